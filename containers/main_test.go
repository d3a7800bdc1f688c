package containers_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ares-arena/arena/containers"
	"go.uber.org/goleak"
)

// testProject labels everything this test binary creates: a prefix of the
// package's own, and a suffix of the process's, because two runs of this
// package may share a daemon (two engineers' `make test`, two CI jobs): one
// must neither sweep the other's runtimes away nor count them as its leaks.
const testProjectPrefix = "arena-containers-test-"

var testProject = testProjectPrefix + session()

func session() string {
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%d-%x", os.Getpid(), b)
}

// staleAge is how old leftovers of this package must be to be swept at the
// start: older than any run, so that runs still going are left alone.
const staleAge = time.Hour

func TestMain(m *testing.M) {
	// No registry is reachable on CI machines: no Ryuk reaper image (the
	// sweep below and Runtime.Close do its job), and inside a container the
	// daemon's published ports are on loopback. .ci/run sets both; these
	// defaults make a bare `go test` behave the same.
	setDefaultEnv("TESTCONTAINERS_RYUK_DISABLED", "true")
	if _, err := os.Stat("/.dockerenv"); err == nil {
		setDefaultEnv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	}
	// A child process of TestCleanupAfterFailure leaves the sweeping to its
	// parent.
	child := os.Getenv(helperProjectEnv) != ""
	if !child {
		sweepStale() // what killed earlier runs left behind
	}
	code := m.Run()
	if !child {
		// Every runtime of the suite must have removed what it created:
		// anything with the project's label now is a leak, which the sweep
		// would otherwise hide.
		if left := leftovers(); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: left behind by the tests: %v\n", left)
			code = 1
		}
		sweep()
	}
	if code == 0 {
		// goleak.VerifyTestMain would call os.Exit itself; it is done by
		// hand so that the sweep above runs first.
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func setDefaultEnv(k, v string) {
	if os.Getenv(k) == "" {
		os.Setenv(k, v)
	}
}

func leftovers() []string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	left, err := containers.Leftovers(ctx, testProject)
	if err != nil && !errors.Is(err, containers.ErrNoDocker) {
		fmt.Fprintln(os.Stderr, "leftovers:", err)
	}
	return left
}

func sweepStale() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := containers.Ping(ctx); err != nil {
		return
	}
	if err := containers.SweepStale(ctx, testProjectPrefix, staleAge); err != nil {
		fmt.Fprintln(os.Stderr, "sweep:", err)
	}
}

func sweep() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := containers.Ping(ctx); err != nil {
		return
	}
	if err := containers.Sweep(ctx, testProject); err != nil {
		fmt.Fprintln(os.Stderr, "sweep:", err)
	}
}
