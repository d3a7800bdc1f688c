package kubetest

import (
	"context"
	"errors"
	"os"
)

// TB is what New needs of a test: *testing.T, *testing.B and Ginkgo's
// GinkgoT() all have it.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Logf(format string, args ...any)
	Failed() bool
}

// New starts a plane for a test and stops it in t.Cleanup. Without the
// binaries the test is skipped, or failed when ARENA_REQUIRE_KUBE=1. When
// the test failed, the last lines of each process's log are logged first.
func New(t TB, opts ...Option) *Plane {
	t.Helper()
	p, err := Start(context.Background(), opts...)
	if errors.Is(err, ErrNoTools) {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%v (%s=1 requires the control plane)", err, RequireEnv)
		} else {
			t.Skipf("%v (set %s=1 to fail instead)", err, RequireEnv)
		}
		return nil
	}
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, pr := range p.procs {
				t.Logf("kubetest: last lines of %s.log:\n%s", pr.name, tail(pr.log, 15))
			}
		}
		if err := p.Exited(); err != nil {
			t.Logf("%v", err)
		}
		if err := p.Close(); err != nil {
			t.Logf("kubetest: close: %v", err)
		}
	})
	return p
}
