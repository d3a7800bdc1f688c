package containers

import (
	"archive/tar"
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// AgentImageRepo is the repository of the reference agent image; its tag is
// a hash of the binary and the Dockerfile, so an unchanged agentd is built
// once per Docker daemon.
const AgentImageRepo = "arena-agentd"

// agentdPackage is what BuildAgentImage compiles.
const agentdPackage = "github.com/ares-arena/arena/cmd/agentd"

//go:embed agentd.Dockerfile
var agentDockerfile []byte

var imageBuild struct {
	sync.Mutex
	name string
}

// BuildAgentImage builds the reference agent image and returns its name: it
// compiles cmd/agentd as a static Linux binary for the daemon's architecture
// (CGO_ENABLED=0, with the go command found on PATH; `go test` puts it there)
// and builds a FROM scratch image around it, pulling nothing. An image of the
// same binary is reused. Safe for concurrent use.
func BuildAgentImage(ctx context.Context) (string, error) {
	cli, err := dockerClient(ctx)
	if err != nil {
		return "", err
	}
	defer cli.Close()
	return buildAgentImage(ctx, cli)
}

func buildAgentImage(ctx context.Context, cli *client.Client) (string, error) {
	imageBuild.Lock()
	defer imageBuild.Unlock()
	if imageBuild.name != "" {
		if _, err := cli.ImageInspect(ctx, imageBuild.name); err == nil {
			return imageBuild.name, nil
		}
	}
	ver, err := cli.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		return "", fmt.Errorf("agentd image: %w", err)
	}
	bin, err := compileAgentd(ctx, ver.Arch)
	if err != nil {
		return "", fmt.Errorf("agentd image: %w", err)
	}
	sum := sha256.New()
	sum.Write(bin)
	sum.Write(agentDockerfile)
	name := AgentImageRepo + ":" + hex.EncodeToString(sum.Sum(nil))[:12]
	if _, err := cli.ImageInspect(ctx, name); err == nil {
		imageBuild.name = name
		return name, nil
	} else if !cerrdefs.IsNotFound(err) {
		return "", fmt.Errorf("agentd image: %w", err)
	}
	tarball, err := buildContext(bin)
	if err != nil {
		return "", err
	}
	res, err := cli.ImageBuild(ctx, bytes.NewReader(tarball), client.ImageBuildOptions{
		Tags: []string{name}, Dockerfile: "Dockerfile", Remove: true, ForceRemove: true,
		Labels: map[string]string{"arena.image": "agentd"},
	})
	if err != nil {
		return "", fmt.Errorf("agentd image: build: %w", err)
	}
	defer res.Body.Close()
	if err := buildErrors(res.Body); err != nil {
		return "", fmt.Errorf("agentd image: build: %w", err)
	}
	imageBuild.name = name
	return name, nil
}

// compileAgentd builds the static agentd binary for linux/arch.
func compileAgentd(ctx context.Context, arch string) ([]byte, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if root := os.Getenv("GOROOT"); root != "" {
			goCmd = filepath.Join(root, "bin", "go")
		} else {
			return nil, fmt.Errorf("the go command is needed to build agentd: %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "arena-agentd-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "agentd")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-ldflags=-s -w", "-o", out, agentdPackage)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s: %w\n%s", agentdPackage, err, msg)
	}
	return os.ReadFile(out)
}

// buildContext is the tar of the Dockerfile and the binary.
func buildContext(bin []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"Dockerfile", 0o644, agentDockerfile}, {"agentd", 0o755, bin}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// buildErrors reads the build's JSON message stream to its end and returns
// the error it reports, if any.
func buildErrors(r interface{ Read([]byte) (int, error) }) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var m struct {
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && (m.Error != "" || m.ErrorDetail.Message != "") {
			return errors.New(cmp.Or(m.ErrorDetail.Message, m.Error))
		}
	}
	return sc.Err()
}
