// Package etcdcluster runs a three-member etcd cluster in Docker under
// arena, with a key-value workload whose history arena checks for
// linearizability (package history) after every recovery and at the end.
// etcd is the binary the Kubernetes plane build makes (kube/tools/build.sh,
// `make kube-tools`), in a FROM scratch image; the workload speaks etcd's v3
// JSON gateway (/v3/kv/...) over plain HTTP, so this module needs no etcd
// client. Everything runs on the real clock.
package etcdcluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/testcontainers/testcontainers-go"
)

// BinaryEnv names the environment variable that points at an etcd binary
// (static, linux) to use instead of the Kubernetes plane's.
const BinaryEnv = "ARENA_ETCD_BINARY"

// ErrNoBinary is returned (wrapped) by FindBinary when no etcd binary is
// found.
var ErrNoBinary = errors.New("no etcd binary")

// FindBinary returns the etcd binary: $ARENA_ETCD_BINARY, else
// $ARENA_KUBE_TOOLS/etcd, else the newest ~/.cache/arena-kube-tools/*/etcd
// (what `make kube-tools` builds).
func FindBinary() (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" {
		return p, nil
	}
	var candidates []string
	if d := os.Getenv("ARENA_KUBE_TOOLS"); d != "" {
		candidates = append(candidates, filepath.Join(d, "etcd"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		found, _ := filepath.Glob(filepath.Join(home, ".cache", "arena-kube-tools", "*", "etcd"))
		slices.Sort(found)
		slices.Reverse(found)
		candidates = append(candidates, found...)
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w: set %s, or run `make kube-tools` (it builds one into ~/.cache/arena-kube-tools)", ErrNoBinary, BinaryEnv)
}

const dockerfile = `FROM scratch
COPY etcd /etcd
EXPOSE 2379 2380
ENTRYPOINT ["/etcd"]
`

// BuildImage builds a FROM scratch image around the etcd binary at bin,
// pulling nothing. The tag is a hash of the binary, so an unchanged binary
// is built once.
func BuildImage(ctx context.Context, bin string) (string, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "arena-etcd-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "etcd"), data, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		return "", err
	}
	sum := sha256.Sum256(append(data, dockerfile...))
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return "", err
	}
	defer p.Close()
	return p.BuildImage(ctx, &testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context: dir, Dockerfile: "Dockerfile", Repo: "arena-etcd", Tag: hex.EncodeToString(sum[:])[:12], KeepImage: true,
	}})
}
