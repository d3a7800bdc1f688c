package containers

import (
	"context"
	"errors"
	"os"
	"time"
)

// RequireDockerEnv names the environment variable that turns a missing
// Docker daemon from a skipped test into a failed one: CI sets
// ARENA_REQUIRE_DOCKER=1, so that a broken daemon cannot pass as a skip.
const RequireDockerEnv = "ARENA_REQUIRE_DOCKER"

// TB is what ForTest and RequireDocker need of a test: *testing.T,
// *testing.B and Ginkgo's GinkgoT() all have it.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// closeGrace is how long before a test's deadline ForTest removes the
// runtime: a test binary that times out panics without running cleanups.
const closeGrace = 20 * time.Second

// RequireDocker skips the test when no Docker daemon answers (or fails it
// when ARENA_REQUIRE_DOCKER=1).
func RequireDocker(t TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Ping(ctx); err != nil {
		noDocker(t, err)
	}
}

func noDocker(t TB, err error) {
	t.Helper()
	if os.Getenv(RequireDockerEnv) == "1" {
		t.Fatalf("containers: Docker is required (%s=1), but: %v", RequireDockerEnv, err)
		return
	}
	t.Skipf("containers: skipped: %v (set %s=1 to fail instead)", err, RequireDockerEnv)
}

// ForTest starts a runtime for a test and makes sure it goes away:
//
//   - no daemon: the test is skipped (failed with ARENA_REQUIRE_DOCKER=1);
//   - the runtime is closed in t.Cleanup, whether the test passed or not;
//   - when the test has a deadline (go test -timeout), the runtime is
//     closed 20s before it, because a test binary that times out panics
//     without running cleanups. Whatever escapes even that (a killed
//     process) carries the project label for Sweep.
func ForTest(t TB, opts ...Option) *Runtime {
	t.Helper()
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	deadline, hasDeadline := testDeadline(t)
	if hasDeadline {
		ctx, cancel = context.WithDeadline(ctx, deadline)
	}
	defer cancel()
	rt, err := NewRuntime(ctx, opts...)
	if errors.Is(err, ErrNoDocker) {
		noDocker(t, err)
		return nil
	}
	if err != nil {
		t.Fatalf("containers: %v", err)
		return nil
	}
	closeRT := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := rt.Close(ctx); err != nil {
			t.Errorf("%v", err)
		}
	}
	if hasDeadline {
		guard := time.AfterFunc(time.Until(deadline), func() {
			ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
			defer cancel()
			rt.Close(ctx)
		})
		t.Cleanup(func() { guard.Stop() })
	}
	t.Cleanup(closeRT)
	return rt
}

// testDeadline is the test's deadline less the grace to close in.
func testDeadline(t TB) (time.Time, bool) {
	d, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return time.Time{}, false
	}
	dl, ok := d.Deadline()
	if !ok {
		return time.Time{}, false
	}
	return dl.Add(-closeGrace), true
}
