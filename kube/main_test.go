package kube_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/client-go/rest"

	"github.com/ares-arena/arena/kube/kubetest"
)

// One control plane serves the package's tests, each in a namespace of its
// own (kube.ForTest with kube.WithConfig): starting one takes seconds.
var (
	planeOnce sync.Once
	plane     *kubetest.Plane
	planeErr  error
)

// cluster returns the package's plane, started on first use, running the
// reference pods as agentd processes; without the binaries, or when the pod
// CIDR cannot be routed to this host (not root), the test skips (fails with
// ARENA_REQUIRE_KUBE=1).
func cluster(t *testing.T) *rest.Config {
	t.Helper()
	planeOnce.Do(func() {
		noapi, err := buildNoAPI()
		if err != nil {
			planeErr = err
			return
		}
		plane, planeErr = kubetest.Start(context.Background(), kubetest.WithNodes(3), kubetest.WithAgentd(),
			kubetest.WithAgentImage(noAPIImage, noapi))
		if planeErr == nil && plane.AgentsErr != nil {
			planeErr = plane.AgentsErr
		}
	})
	switch {
	case (errors.Is(planeErr, kubetest.ErrNoTools) || errors.Is(planeErr, kubetest.ErrNoPodNetwork)) && os.Getenv(kubetest.RequireEnv) != "1":
		t.Skipf("%v (set %s=1 to fail instead)", planeErr, kubetest.RequireEnv)
	case planeErr != nil:
		t.Fatalf("%v", planeErr)
	}
	return plane.Config
}

// noAPIImage is the image of pods that run testdata/noapi: an agent that
// answers 404 to every request of the contract.
const noAPIImage = "arena-noapi:local"

var binDir string

func buildNoAPI() (string, error) {
	bin := filepath.Join(binDir, "noapi")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/noapi").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./testdata/noapi: %v\n%s", err, out)
	}
	return bin, nil
}

func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "arena-kube-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	if plane != nil {
		if err := plane.Exited(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
		if err := plane.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
