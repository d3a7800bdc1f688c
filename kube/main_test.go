package kube_test

import (
	"context"
	"errors"
	"fmt"
	"os"
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
		plane, planeErr = kubetest.Start(context.Background(), kubetest.WithNodes(3), kubetest.WithAgentd())
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

func TestMain(m *testing.M) {
	code := m.Run()
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
