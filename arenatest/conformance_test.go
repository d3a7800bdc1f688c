package arenatest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fakes"
)

// The fake cluster passes the conformance suite, on the wall clock and on
// a virtual one, and as a bare RuntimeProvider (no FaultLifter).
func TestRuntimeFakes(t *testing.T) {
	t.Run("real clock", func(t *testing.T) {
		arenatest.TestRuntime(t, func(t *testing.T) arena.RuntimeProvider { return fakes.NewCluster() })
	})
	t.Run("virtual clock", func(t *testing.T) {
		arenatest.TestRuntime(t, func(t *testing.T) arena.RuntimeProvider {
			return fakes.NewCluster(fakes.WithClock(arena.NewVirtualClock(time.Time{})), fakes.WithWorkers(1))
		})
	})
	t.Run("bare", func(t *testing.T) {
		arenatest.TestRuntime(t, func(t *testing.T) arena.RuntimeProvider { return bare{fakes.NewCluster()} })
	})
}

// killPause is a runtime that can only list, kill, pause and resume: the
// suite checks those and skips the rest, saying so.
type killPause struct{ c *fakes.Cluster }

func (k killPause) ListAgents(ctx context.Context) ([]arena.AgentInfo, error) {
	return k.c.ListAgents(ctx)
}
func (k killPause) StopAgent(ctx context.Context, id string) error   { return k.c.StopAgent(ctx, id) }
func (k killPause) PauseAgent(ctx context.Context, id string) error  { return k.c.PauseAgent(ctx, id) }
func (k killPause) ResumeAgent(ctx context.Context, id string) error { return k.c.ResumeAgent(ctx, id) }

// TestPartialRuntimeDemo is run by TestRuntimePartial, in a child process,
// so that its verbose output can be read.
func TestPartialRuntimeDemo(t *testing.T) {
	if os.Getenv("ARENATEST_PARTIAL_DEMO") == "" {
		t.Skip("run by TestRuntimePartial")
	}
	arenatest.TestRuntime(t, func(t *testing.T) killPause { return killPause{fakes.NewCluster()} })
}

// TestRuntimePartial: a runtime with only some capabilities passes the
// checks of those, and the suite says which it skipped and why.
func TestRuntimePartial(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestPartialRuntimeDemo$", "-test.v")
	cmd.Env = append(os.Environ(), "ARENATEST_PARTIAL_DEMO=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the kill-and-pause runtime failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"skipping the checks of the faults the runtime cannot land: slow_agent is not supported by this runtime (it does not implement arena.Slower)",
		"mcp_disconnect is not supported by this runtime (it does not implement arena.MCPDisconnecter)",
		"--- PASS: TestPartialRuntimeDemo/Faults/StopAgent",
		"--- PASS: TestPartialRuntimeDemo/Faults/PauseAgent",
		"--- SKIP: TestPartialRuntimeDemo/Faults/SlowAgent",
		"--- SKIP: TestPartialRuntimeDemo/Faults/InjectLLMFailure",
		"--- PASS: TestPartialRuntimeDemo/UnknownAgent",
		"--- PASS: TestPartialRuntimeDemo/StopAgent",
		"--- PASS: TestPartialRuntimeDemo/PauseResume",
		"--- SKIP: TestPartialRuntimeDemo/FaultLifter",
		"--- PASS: TestPartialRuntimeDemo/Concurrency",
		"--- PASS: TestPartialRuntimeDemo/NoPanics",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// broken is a fake cluster with the bugs a runtime might have.
type broken struct{ *fakes.Cluster }

func (b broken) ResumeAgent(ctx context.Context, id string) error {
	if err := b.Cluster.ResumeAgent(ctx, id); errors.Is(err, fakes.ErrNoAgent) {
		return nil // an unknown agent is silently ignored
	} else {
		return err
	}
}

func (b broken) PauseAgent(ctx context.Context, id string) error { return nil } // lands nothing

func (b broken) SlowAgent(ctx context.Context, id string, d time.Duration) error {
	if d < 0 {
		panic("negative delay")
	}
	return b.Cluster.SlowAgent(ctx, id, d)
}

func (b broken) ListAgents(ctx context.Context) ([]arena.AgentInfo, error) {
	agents, err := b.Cluster.ListAgents(ctx)
	agents[0].Type = "" // the leader's type is lost
	return agents, err
}

// TestBrokenRuntimeDemo is run by TestRuntimeFindsBugs, in a child process,
// because it fails.
func TestBrokenRuntimeDemo(t *testing.T) {
	if os.Getenv("ARENATEST_BROKEN_DEMO") == "" {
		t.Skip("run by TestRuntimeFindsBugs")
	}
	arenatest.TestRuntime(t, func(t *testing.T) arena.RuntimeProvider { return broken{fakes.NewCluster()} })
}

// TestRuntimeFindsBugs: the suite fails a runtime with bugs, naming each.
func TestRuntimeFindsBugs(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenRuntimeDemo$", "-test.v")
	cmd.Env = append(os.Environ(), "ARENATEST_BROKEN_DEMO=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the broken runtime passed:\n%s", out)
	}
	for _, want := range []string{
		`ListAgents: agent "leader-0" has no type`,
		`PauseAgent("arena-conformance-no-such-agent") = nil, want an error for an unknown agent`,
		`ResumeAgent("arena-conformance-no-such-agent") = nil, want an error for an unknown agent`,
		`after PauseAgent("worker-1"): status "running", want "paused"`,
		`SlowAgent(ctx, id, -1s) panicked: negative delay`,
		`--- PASS: TestBrokenRuntimeDemo/Faults `,
		`--- PASS: TestBrokenRuntimeDemo/StopAgent`,
		`--- PASS: TestBrokenRuntimeDemo/Concurrency`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}
