package containers_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/containers"
)

// helperProjectEnv hands a child process of TestCleanupAfterFailure the
// project its failing test labels its containers with.
const helperProjectEnv = "ARENA_HELPER_PROJECT"

// TestCleanupAfterFailure runs tests of this package that fail in a child
// process — one with t.Fatal, one that hangs until the test binary's
// timeout — and then asks the Docker API for anything labelled with their
// project: there must be nothing left.
func TestCleanupAfterFailure(t *testing.T) {
	containers.RequireDocker(t)
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in the child's output
	}{
		{"fatal", []string{"-test.run=^TestHelperFailing$"}, "--- FAIL: TestHelperFailing"},
		// The guard of ForTest closes the runtime 20s before the deadline;
		// the binary then panics with the timeout, running no cleanup.
		{"timeout", []string{"-test.run=^TestHelperHanging$", "-test.timeout=35s"}, "panic: test timed out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			project := testProject + "-child-" + tc.name
			cmd := exec.Command(exe, append(tc.args, "-test.v")...)
			cmd.Env = append(os.Environ(), helperProjectEnv+"="+project)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the child passed; want it to fail:\n%s", out)
			}
			if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "running: [container ") {
				t.Fatalf("the child's output lacks %q or its running containers:\n%s", tc.want, out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			left, err := containers.Leftovers(ctx, project)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) > 0 {
				t.Errorf("left behind by the failed child: %v", left)
				containers.Sweep(ctx, project)
			}
		})
	}
}

// helperRuntime starts a small cluster for a child of TestCleanupAfterFailure
// (and skips when run on its own).
func helperRuntime(t *testing.T) {
	project := os.Getenv(helperProjectEnv)
	if project == "" {
		t.Skip("a helper of TestCleanupAfterFailure")
	}
	containers.ForTest(t, containers.WithProject(project), containers.WithReferenceAgents(1))
	left, err := containers.Leftovers(context.Background(), project)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("running: %v", left)
}

func TestHelperFailing(t *testing.T) {
	helperRuntime(t)
	t.Fatal("deliberate failure: the runtime must still be removed")
}

func TestHelperHanging(t *testing.T) {
	helperRuntime(t)
	time.Sleep(time.Hour) // until the binary's timeout
}

// SweepStale leaves a run that is going alone and removes it once it is
// older than the age; Close after a sweep has nothing left to do and does
// not fail.
func TestSweepStale(t *testing.T) {
	containers.RequireDocker(t)
	t.Parallel()
	ctx := context.Background()
	project := testProject + "-stale"
	rt, err := containers.NewRuntime(ctx, containers.WithProject(project), containers.WithReferenceAgents(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := containers.SweepStale(ctx, project, time.Hour); err != nil {
		t.Fatal(err)
	}
	if left, _ := containers.Leftovers(ctx, project); len(left) != 7 { // 3 containers, 3 volumes, a network
		t.Errorf("after sweeping what is older than an hour: %v, want the running cluster untouched", left)
	}
	time.Sleep(1100 * time.Millisecond) // Docker dates containers to the second
	if err := containers.SweepStale(ctx, project, time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	if left, _ := containers.Leftovers(ctx, project); len(left) != 0 {
		t.Errorf("after sweeping what is older than 1ns: %v, want nothing", left)
	}
	if err := rt.Close(ctx); err != nil {
		t.Errorf("Close after a sweep: %v", err)
	}
}

// A test binary SIGKILLed while its containers run (no cleanup, no guard)
// leaves them; the next SweepStale removes them at once, since their owner
// is gone from this host, without waiting for the age.
func TestSweepStaleRemovesAKilledOwnersLeftovers(t *testing.T) {
	containers.RequireDocker(t)
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	project := testProject + "-killed"
	cmd := exec.Command(exe, "-test.run=^TestHelperHanging$", "-test.v", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), helperProjectEnv+"="+project)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	running := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "running: [container ") {
				running <- sc.Text()
			}
		}
		close(running)
	}()
	line, ok := <-running
	if !ok {
		_ = cmd.Wait()
		t.Fatal("the child ended before its containers ran")
	}
	_ = cmd.Process.Kill() // SIGKILL: no cleanup runs
	_ = cmd.Wait()
	for range running {
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	left, err := containers.Leftovers(ctx, project)
	if err != nil || len(left) == 0 {
		t.Fatalf("after SIGKILL: %v, %v; want the child's containers left (it said %q)", left, err, line)
	}
	t.Logf("left by the killed child: %v", left)
	if err := containers.SweepStale(ctx, project, time.Hour); err != nil {
		t.Fatal(err)
	}
	if left, err := containers.Leftovers(ctx, project); err != nil || len(left) > 0 {
		t.Errorf("after SweepStale: %v, %v; want nothing left", left, err)
		_ = containers.Sweep(ctx, project)
	}
}
