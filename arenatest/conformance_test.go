package arenatest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// The fake cluster's own conformance test, with an effect for every type,
// is in package fakes; these are the suite's tests.

// killPause is a runtime that can only list, kill, pause and resume, and
// says why it refuses the rest: the suite checks those and skips the rest,
// saying so.
type killPause struct{ c *fakes.Cluster }

func (k killPause) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	return k.c.ListAgents(ctx)
}
func (k killPause) StopAgent(ctx context.Context, id string) error { return k.c.StopAgent(ctx, id) }
func (k killPause) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	return k.c.PauseAgent(ctx, id)
}
func (k killPause) ResumeAgent(ctx context.Context, id string) error { return k.c.ResumeAgent(ctx, id) }

// Refusals refuses every type but the kills, pause and resume: derived
// from the specs here (a runtime would list the types it refuses), so that
// this test does not break when arena adds a type.
func (k killPause) Refusals() map[fault.Type]string {
	lands := fault.NewInjectorFor(struct {
		fault.AgentLister
		fault.AgentStopper
		fault.Pauser
	}{k, k, k})
	out := map[fault.Type]string{}
	for _, s := range fault.Specs() {
		if !lands.Supports(s.Type) {
			out[s.Type] = "this runtime only kills and pauses"
		}
	}
	return out
}

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
	out := runDemo(t, "TestPartialRuntimeDemo", "ARENATEST_PARTIAL_DEMO", true)
	for _, want := range []string{
		"the runtime refuses: slow_agent (this runtime only kills and pauses)",
		"--- PASS: TestPartialRuntimeDemo/Declared",
		"--- PASS: TestPartialRuntimeDemo/Faults/kill_leader",
		"--- PASS: TestPartialRuntimeDemo/Faults/pause_agent",
		"--- PASS: TestPartialRuntimeDemo/Faults/resume_agent",
		"--- SKIP: TestPartialRuntimeDemo/Faults/slow_agent",
		"not landed: slow_agent is not supported by this runtime: this runtime only kills and pauses",
		"--- SKIP: TestPartialRuntimeDemo/Faults/llm_failure",
		"--- SKIP: TestPartialRuntimeDemo/Faults/remove_node",
		"--- PASS: TestPartialRuntimeDemo/UnknownAgent",
		"--- PASS: TestPartialRuntimeDemo/Concurrency",
		"--- PASS: TestPartialRuntimeDemo/NoPanics",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, s := range fault.Specs() { // every type has its subtest
		if name := "TestPartialRuntimeDemo/Faults/" + string(s.Type); !strings.Contains(out, name) {
			t.Errorf("output lacks a subtest %s", name)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// runDemo runs test name of this binary in a child process with env set,
// and returns its verbose output; pass says whether it must pass.
func runDemo(t *testing.T, name, env string, pass bool) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	if pass && err != nil {
		t.Fatalf("%s failed: %v\n%s", name, err, out)
	}
	if !pass && err == nil {
		t.Fatalf("%s passed, want it to fail:\n%s", name, out)
	}
	return string(out)
}

// undeclared is a fake cluster seen as a bare RuntimeProvider: it does not
// say what it does with the network and DAG types.
type undeclared struct{ fault.RuntimeProvider }

// TestUndeclaredRuntimeDemo is run by TestRuntimeAsksForEveryType.
func TestUndeclaredRuntimeDemo(t *testing.T) {
	if os.Getenv("ARENATEST_UNDECLARED_DEMO") == "" {
		t.Skip("run by TestRuntimeAsksForEveryType")
	}
	arenatest.TestRuntime(t, func(t *testing.T) undeclared { return undeclared{fakes.NewCluster()} })
}

// TestRuntimeAsksForEveryType: a runtime that neither lands nor refuses a
// built-in type fails, naming the type and what to do.
func TestRuntimeAsksForEveryType(t *testing.T) {
	out := runDemo(t, "TestUndeclaredRuntimeDemo", "ARENATEST_UNDECLARED_DEMO", false)
	for _, want := range []string{
		"--- FAIL: TestUndeclaredRuntimeDemo/Declared",
		"network_latency: neither landed nor refused: implement fault.LatencyInjector, or give the reason the runtime refuses it in its Refusals (fault.Refuser)",
		"remove_node: neither landed nor refused: implement fault.DAGProvider",
		"--- PASS: TestUndeclaredRuntimeDemo/Faults/slow_agent",
	} {
		if !strings.Contains(out, want) {
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
	if err := b.Cluster.ResumeAgent(ctx, id); errors.Is(err, fault.ErrNoAgent) {
		return nil // an unknown agent is silently ignored
	} else {
		return err
	}
}

// PauseAgent lands nothing, and says it did.
func (b broken) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	return func(context.Context) error { return nil }, nil
}

func (b broken) SlowAgent(ctx context.Context, id string, d time.Duration) (fault.Lift, error) {
	if d < 0 {
		panic("negative delay")
	}
	return b.Cluster.SlowAgent(ctx, id, d)
}

// ToolTimeout lands, but its lift fails once the fault is gone.
func (b broken) ToolTimeout(ctx context.Context, id string, d time.Duration) (fault.Lift, error) {
	lift, err := b.Cluster.ToolTimeout(ctx, id, d)
	if err != nil {
		return nil, err
	}
	lifted := false
	return func(ctx context.Context) error {
		if lifted {
			return fmt.Errorf("tool timeout on %s: not active", id)
		}
		lifted = true
		return lift(ctx)
	}, nil
}

// DisconnectMCP hands back no lift.
func (b broken) DisconnectMCP(ctx context.Context, id string) (fault.Lift, error) {
	_, err := b.Cluster.DisconnectMCP(ctx, id)
	return nil, err
}

// InjectLLMFailure names an unknown agent in its own words.
func (b broken) InjectLLMFailure(ctx context.Context, id string, e fault.LLMErrorType) (fault.Lift, error) {
	if _, ok := b.Cluster.Agent(id); !ok {
		return nil, fmt.Errorf("who is %s?", id)
	}
	return b.Cluster.InjectLLMFailure(ctx, id, e)
}

func (b broken) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
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
	arenatest.TestRuntime(t, func(t *testing.T) broken { return broken{fakes.NewCluster()} },
		arenatest.Observe(fault.ToolTimeout, func(_ context.Context, b broken, a fault.Action) (bool, error) {
			st, _ := b.Agent(a.TargetID)
			return st.ToolTimeout > 0, nil
		}))
}

// TestRuntimeFindsBugs: the suite fails a runtime with bugs, naming each.
func TestRuntimeFindsBugs(t *testing.T) {
	out := runDemo(t, "TestBrokenRuntimeDemo", "ARENATEST_BROKEN_DEMO", false)
	for _, want := range []string{
		`ListAgents: agent "leader-0" has no type`,
		`resume_agent on "arena-conformance-no-such-agent" = nil, want an error for an unknown target`,
		`llm_failure on "arena-conformance-no-such-agent" = who is arena-conformance-no-such-agent\?, want an error wrapping fault.ErrNoAgent`,
		`pause_agent on "[a-z0-9-]+" landed without error, but its effect did not show within 10s`,
		`lifting tool_timeout on "([a-z0-9-]+)" a second time: tool timeout on [a-z0-9-]+: not active, want nil`,
		`lifting mcp_disconnect on "([a-z0-9-]+)": mcp_disconnect on "[a-z0-9-]+": the runtime landed it but handed back no Lift`,
		`SlowAgent\(ctx, id, -1s\) panicked: negative delay`,
		`--- PASS: TestBrokenRuntimeDemo/Declared`,
		`--- PASS: TestBrokenRuntimeDemo/Faults/kill_agent`,
		`--- PASS: TestBrokenRuntimeDemo/Faults/slow_agent`,
		`--- PASS: TestBrokenRuntimeDemo/Concurrency`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}
