package natscluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/testcontainers/testcontainers-go"
)

// serverPackage is the NATS server's own main package, built as it is.
const serverPackage = "github.com/nats-io/nats-server/v2"

const dockerfile = `FROM scratch
COPY nats-server /nats-server
EXPOSE 4222 6222 8222
ENTRYPOINT ["/nats-server"]
`

// BuildImage compiles the NATS server (the version go.mod pins) as a static
// Linux binary and builds a FROM scratch image around it, pulling nothing.
// The tag is a hash of the binary, so an unchanged server is built once.
func BuildImage(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "arena-nats-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "nats-server")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, serverPackage)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", serverPackage, err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		return "", err
	}
	sum := sha256.Sum256(append(data, dockerfile...))
	tag := hex.EncodeToString(sum[:])[:12]
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return "", err
	}
	defer p.Close()
	return p.BuildImage(ctx, &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context: dir, Dockerfile: "Dockerfile", Repo: "arena-nats", Tag: tag, KeepImage: true,
	}})
}
