package arenatest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/ares-arena/arena"
)

// RuntimeFactory returns a fresh runtime for TestRuntime, every agent
// running. It registers whatever must be torn down with t.Cleanup, and may
// skip t (no Docker daemon, say).
type RuntimeFactory func(t *testing.T) arena.RuntimeProvider

// conformanceTimeout bounds each call of the suite: a runtime that hangs
// fails instead of stalling the test binary.
const conformanceTimeout = 30 * time.Second

// noSuchAgent is an ID no runtime should have.
const noSuchAgent = "arena-conformance-no-such-agent"

// TestRuntime checks that a RuntimeProvider keeps the contract the engine
// relies on, in subtests:
//
//   - ListAgents: at least one agent; non-empty IDs without whitespace,
//     unique; a type and a status for each, all running at the start;
//     restarts ≥ 0; the same agents on every call, in a fresh slice.
//   - Faults: each of the eight agent faults lands (returns nil) on a running
//     agent, which stays listed.
//   - UnknownAgent: every method errors for an agent that does not exist.
//   - StopAgent: a stopped agent is listed as stopped (or, when the runtime
//     restarted it already, with more restarts).
//   - PauseResume: paused after PauseAgent, running after ResumeAgent.
//   - FaultLifter (skipped when the runtime is not an arena.FaultLifter):
//     each timed fault is lifted without error, a lifted pause leaves the
//     agent running, and lifting it again is harmless (nil), since the
//     engine lifts faults the system may have healed already.
//   - Concurrency: ListAgents and faults from several goroutines at once
//     (run it with -race) never fail ListAgents nor change the agents.
//   - NoPanics: empty IDs, zero and negative durations, an unknown LLM error
//     type, a cancelled context: errors are fine, panics are not.
//
// Each subtest takes a fresh runtime from factory (the fault subtests take
// another when every agent has been hit once). The fakes pass it:
//
//	arenatest.TestRuntime(t, func(t *testing.T) arena.RuntimeProvider { return fakes.NewCluster() })
func TestRuntime(t *testing.T, factory RuntimeFactory) {
	t.Helper()
	t.Run("ListAgents", func(t *testing.T) { testListAgents(t, factory) })
	t.Run("Faults", func(t *testing.T) { testFaults(t, factory) })
	t.Run("UnknownAgent", func(t *testing.T) { testUnknownAgent(t, factory) })
	t.Run("StopAgent", func(t *testing.T) { testStop(t, factory) })
	t.Run("PauseResume", func(t *testing.T) { testPauseResume(t, factory) })
	t.Run("FaultLifter", func(t *testing.T) { testLifter(t, factory) })
	t.Run("Concurrency", func(t *testing.T) { testConcurrency(t, factory) })
	t.Run("NoPanics", func(t *testing.T) { testNoPanics(t, factory) })
}

// fault is one agent fault, as the engine calls it.
type fault struct {
	name string
	kind arena.ActionType
	call func(ctx context.Context, rt arena.RuntimeProvider, id string) error
}

var agentFaults = []fault{
	{"StopAgent", arena.ActionKillAgent, func(ctx context.Context, rt arena.RuntimeProvider, id string) error {
		return rt.StopAgent(ctx, id)
	}},
	{"PauseAgent", arena.ActionPauseAgent, func(ctx context.Context, rt arena.RuntimeProvider, id string) error {
		return rt.PauseAgent(ctx, id)
	}},
	{"SlowAgent", arena.ActionSlowAgent, func(ctx context.Context, rt arena.RuntimeProvider, id string) error {
		return rt.SlowAgent(ctx, id, arena.DefaultSlowDelay)
	}},
	{"PartitionNetwork", arena.ActionNetworkPartition, func(ctx context.Context, rt arena.RuntimeProvider, id string) error {
		return rt.PartitionNetwork(ctx, id)
	}},
	{"ToolTimeout", arena.ActionToolTimeout, func(ctx context.Context, rt arena.RuntimeProvider, id string) error {
		return rt.ToolTimeout(ctx, id, arena.DefaultToolTimeout)
	}},
	{"CorruptMemory", arena.ActionMemoryCorrupt, func(ctx context.Context, rt arena.RuntimeProvider, id string) error {
		return rt.CorruptMemory(ctx, id)
	}},
	{"DisconnectMCP", arena.ActionMCPDisconnect, func(ctx context.Context, rt arena.RuntimeProvider, id string) error {
		return rt.DisconnectMCP(ctx, id)
	}},
	{"InjectLLMFailure", arena.ActionLLMFailure, func(ctx context.Context, rt arena.RuntimeProvider, id string) error {
		return rt.InjectLLMFailure(ctx, id, arena.DefaultLLMError)
	}},
}

func callContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), conformanceTimeout)
	t.Cleanup(cancel)
	return ctx
}

// list calls ListAgents and fails t on an error.
func list(t *testing.T, ctx context.Context, rt arena.RuntimeProvider) []arena.AgentInfo {
	t.Helper()
	agents, err := rt.ListAgents(ctx)
	if err != nil {
		t.Fatalf("ListAgents: %v", err)
	}
	return agents
}

func find(agents []arena.AgentInfo, id string) (arena.AgentInfo, bool) {
	i := slices.IndexFunc(agents, func(a arena.AgentInfo) bool { return a.ID == id })
	if i < 0 {
		return arena.AgentInfo{}, false
	}
	return agents[i], true
}

func testListAgents(t *testing.T, factory RuntimeFactory) {
	rt := factory(t)
	ctx := callContext(t)
	agents := list(t, ctx, rt)
	if len(agents) == 0 {
		t.Fatal("ListAgents: no agents; the suite needs at least one")
	}
	seen := map[string]bool{}
	var ids []string
	for i, a := range agents {
		switch {
		case a.ID == "":
			t.Errorf("ListAgents: agent %d has an empty ID", i)
		case strings.ContainsFunc(a.ID, unicode.IsSpace):
			t.Errorf("ListAgents: agent ID %q contains whitespace", a.ID)
		case seen[a.ID]:
			t.Errorf("ListAgents: agent ID %q listed twice", a.ID)
		}
		seen[a.ID] = true
		ids = append(ids, a.ID)
		if a.Type == "" {
			t.Errorf("ListAgents: agent %q has no type", a.ID)
		}
		if a.Status != arena.StatusRunning {
			t.Errorf("ListAgents: agent %q is %q at the start, want %q", a.ID, a.Status, arena.StatusRunning)
		}
		if a.Restarts < 0 {
			t.Errorf("ListAgents: agent %q has %d restarts", a.ID, a.Restarts)
		}
	}
	agents[0].ID = "changed-by-the-caller"
	again := list(t, ctx, rt)
	var idsAgain []string
	for _, a := range again {
		idsAgain = append(idsAgain, a.ID)
	}
	slices.Sort(ids)
	slices.Sort(idsAgain)
	if !slices.Equal(ids, idsAgain) {
		t.Errorf("ListAgents: %v on the first call, then %v (want the same agents, in a slice the caller owns)", ids, idsAgain)
	}
}

// pool hands out running agents, each once, asking factory for a fresh
// runtime when every agent of the current one has been hit. Workers come
// first: they are what a fault usually hits.
type pool struct {
	t       *testing.T
	factory RuntimeFactory
	rt      arena.RuntimeProvider
	unhit   []string
}

func (p *pool) next(ctx context.Context) (arena.RuntimeProvider, string) {
	p.t.Helper()
	if len(p.unhit) == 0 {
		p.rt = p.factory(p.t)
		agents := list(p.t, ctx, p.rt)
		slices.SortStableFunc(agents, func(a, b arena.AgentInfo) int {
			return boolRank(a.Type != arena.TypeWorker) - boolRank(b.Type != arena.TypeWorker)
		})
		for _, a := range agents {
			if a.Status == arena.StatusRunning {
				p.unhit = append(p.unhit, a.ID)
			}
		}
		if len(p.unhit) == 0 {
			p.t.Fatal("ListAgents: no running agent to inject a fault into")
		}
	}
	id := p.unhit[0]
	p.unhit = p.unhit[1:]
	return p.rt, id
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func testFaults(t *testing.T, factory RuntimeFactory) {
	p := &pool{t: t, factory: factory}
	ctx := callContext(t)
	for _, f := range agentFaults {
		rt, id := p.next(ctx)
		t.Run(f.name, func(t *testing.T) {
			if err := f.call(ctx, rt, id); err != nil {
				t.Fatalf("%s(%q) on a running agent: %v", f.name, id, err)
			}
			if _, ok := find(list(t, ctx, rt), id); !ok {
				t.Errorf("%s(%q): the agent is no longer listed (a fault must not remove an agent)", f.name, id)
			}
		})
	}
}

func testUnknownAgent(t *testing.T, factory RuntimeFactory) {
	rt := factory(t)
	ctx := callContext(t)
	calls := append(slices.Clone(agentFaults), fault{"ResumeAgent", arena.ActionResumeAgent,
		func(ctx context.Context, rt arena.RuntimeProvider, id string) error { return rt.ResumeAgent(ctx, id) }})
	for _, f := range calls {
		if err := f.call(ctx, rt, noSuchAgent); err == nil {
			t.Errorf("%s(%q) = nil, want an error for an unknown agent", f.name, noSuchAgent)
		}
	}
}

func testStop(t *testing.T, factory RuntimeFactory) {
	ctx := callContext(t)
	rt, id := (&pool{t: t, factory: factory}).next(ctx)
	before, _ := find(list(t, ctx, rt), id)
	if err := rt.StopAgent(ctx, id); err != nil {
		t.Fatalf("StopAgent(%q): %v", id, err)
	}
	after, ok := find(list(t, ctx, rt), id)
	switch {
	case !ok:
		t.Errorf("after StopAgent(%q) the agent is no longer listed", id)
	case after.Status != arena.StatusStopped && after.Restarts <= before.Restarts:
		t.Errorf("after StopAgent(%q): status %q with %d restarts, want %q (or more restarts than %d, if restarted already)",
			id, after.Status, after.Restarts, arena.StatusStopped, before.Restarts)
	}
}

func testPauseResume(t *testing.T, factory RuntimeFactory) {
	ctx := callContext(t)
	rt, id := (&pool{t: t, factory: factory}).next(ctx)
	if err := rt.PauseAgent(ctx, id); err != nil {
		t.Fatalf("PauseAgent(%q): %v", id, err)
	}
	if a, _ := find(list(t, ctx, rt), id); a.Status != arena.StatusPaused {
		t.Errorf("after PauseAgent(%q): status %q, want %q", id, a.Status, arena.StatusPaused)
	}
	if err := rt.ResumeAgent(ctx, id); err != nil {
		t.Fatalf("ResumeAgent(%q): %v", id, err)
	}
	if a, _ := find(list(t, ctx, rt), id); a.Status != arena.StatusRunning {
		t.Errorf("after ResumeAgent(%q): status %q, want %q", id, a.Status, arena.StatusRunning)
	}
}

func testLifter(t *testing.T, factory RuntimeFactory) {
	ctx := callContext(t)
	p := &pool{t: t, factory: factory}
	rt, id := p.next(ctx)
	if _, ok := rt.(arena.FaultLifter); !ok {
		t.Skipf("%T is not an arena.FaultLifter: the engine cannot lift timed faults early", rt)
	}
	p.unhit = append([]string{id}, p.unhit...)
	for _, f := range agentFaults {
		if !f.kind.Liftable() {
			continue
		}
		rt, id := p.next(ctx)
		lifter := rt.(arena.FaultLifter)
		t.Run(f.name, func(t *testing.T) {
			if err := f.call(ctx, rt, id); err != nil {
				t.Fatalf("%s(%q): %v", f.name, id, err)
			}
			if err := lifter.LiftFault(ctx, f.kind, id); err != nil {
				t.Fatalf("LiftFault(%s, %q): %v", f.kind, id, err)
			}
			if a, _ := find(list(t, ctx, rt), id); f.kind == arena.ActionPauseAgent && a.Status != arena.StatusRunning {
				t.Errorf("after LiftFault(%s, %q): status %q, want %q", f.kind, id, a.Status, arena.StatusRunning)
			}
			if err := lifter.LiftFault(ctx, f.kind, id); err != nil {
				t.Errorf("LiftFault(%s, %q) of a fault lifted already: %v, want nil", f.kind, id, err)
			}
		})
	}
}

func testConcurrency(t *testing.T, factory RuntimeFactory) {
	rt := factory(t)
	ctx := callContext(t)
	agents := list(t, ctx, rt)
	var ids []string
	for _, a := range agents {
		ids = append(ids, a.ID)
	}
	const workers, rounds = 8, 20
	errs := make(chan error, workers*rounds)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				if _, err := rt.ListAgents(ctx); err != nil {
					errs <- fmt.Errorf("ListAgents: %v", err)
				}
				// Faults may fail to land (a stopped agent cannot be
				// paused); only their safety is tested here.
				f := agentFaults[(w+r)%len(agentFaults)]
				id := ids[(w*rounds+r)%len(ids)]
				if p := safeCall(func() error { return f.call(ctx, rt, id) }); p != nil {
					errs <- fmt.Errorf("%s(%q) panicked: %v", f.name, id, p)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	after := list(t, ctx, rt)
	var idsAfter []string
	for _, a := range after {
		idsAfter = append(idsAfter, a.ID)
	}
	slices.Sort(ids)
	slices.Sort(idsAfter)
	if !slices.Equal(ids, idsAfter) {
		t.Errorf("after concurrent faults ListAgents lists %v, want %v", idsAfter, ids)
	}
}

func testNoPanics(t *testing.T, factory RuntimeFactory) {
	rt := factory(t)
	ctx := callContext(t)
	id := list(t, ctx, rt)[0].ID
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	calls := map[string]func() error{
		`StopAgent(ctx, "")`:              func() error { return rt.StopAgent(ctx, "") },
		`PauseAgent(ctx, "")`:             func() error { return rt.PauseAgent(ctx, "") },
		`ResumeAgent(ctx, "")`:            func() error { return rt.ResumeAgent(ctx, "") },
		`SlowAgent(ctx, "", 1s)`:          func() error { return rt.SlowAgent(ctx, "", time.Second) },
		`SlowAgent(ctx, id, 0)`:           func() error { return rt.SlowAgent(ctx, id, 0) },
		`SlowAgent(ctx, id, -1s)`:         func() error { return rt.SlowAgent(ctx, id, -time.Second) },
		`PartitionNetwork(ctx, "")`:       func() error { return rt.PartitionNetwork(ctx, "") },
		`ToolTimeout(ctx, id, 0)`:         func() error { return rt.ToolTimeout(ctx, id, 0) },
		`ToolTimeout(ctx, id, -1s)`:       func() error { return rt.ToolTimeout(ctx, id, -time.Second) },
		`CorruptMemory(ctx, "")`:          func() error { return rt.CorruptMemory(ctx, "") },
		`DisconnectMCP(ctx, "")`:          func() error { return rt.DisconnectMCP(ctx, "") },
		`InjectLLMFailure(ctx, id, "?")`:  func() error { return rt.InjectLLMFailure(ctx, id, "nonsense") },
		`InjectLLMFailure(ctx, "", "")`:   func() error { return rt.InjectLLMFailure(ctx, "", "") },
		`ListAgents(cancelled)`:           func() error { _, err := rt.ListAgents(cancelled); return err },
		`StopAgent(cancelled, id)`:        func() error { return rt.StopAgent(cancelled, id) },
		`PauseAgent(cancelled, id)`:       func() error { return rt.PauseAgent(cancelled, id) },
		`InjectLLMFailure(cancelled, id)`: func() error { return rt.InjectLLMFailure(cancelled, id, arena.LLMTimeout) },
	}
	if l, ok := rt.(arena.FaultLifter); ok {
		calls[`LiftFault(ctx, "bogus", id)`] = func() error { return l.LiftFault(ctx, "bogus", id) }
		calls[`LiftFault(ctx, kill_agent, id)`] = func() error { return l.LiftFault(ctx, arena.ActionKillAgent, id) }
		calls[`LiftFault(ctx, pause_agent, "")`] = func() error { return l.LiftFault(ctx, arena.ActionPauseAgent, "") }
	}
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		if p := safeCall(calls[name]); p != nil {
			t.Errorf("%s panicked: %v", name, p)
		}
	}
	if _, err := rt.ListAgents(ctx); err != nil {
		t.Errorf("ListAgents after the odd calls: %v", err)
	}
}

// safeCall runs fn, whose error may be anything, and returns what it
// panicked with (nil if it did not).
func safeCall(fn func() error) (panicked any) {
	defer func() { panicked = recover() }()
	_ = fn()
	return nil
}
