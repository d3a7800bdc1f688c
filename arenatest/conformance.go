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

// RuntimeFactory returns a fresh full runtime for TestRuntime, every agent
// running. It registers whatever must be torn down with t.Cleanup, and may
// skip t (no Docker daemon, say). TestRuntime takes any function of this
// shape, also one returning a runtime with only some capabilities (an
// arena.AgentLister that is an arena.Pauser, say).
type RuntimeFactory func(t *testing.T) arena.RuntimeProvider

// conformanceTimeout bounds each call of the suite: a runtime that hangs
// fails instead of stalling the test binary.
const conformanceTimeout = 30 * time.Second

// noSuchAgent is an ID no runtime should have.
const noSuchAgent = "arena-conformance-no-such-agent"

// factory is TestRuntime's factory, whatever the runtime type it returns.
type factory func(t *testing.T) arena.AgentLister

// TestRuntime checks that a runtime keeps the contract the engine relies
// on, in subtests:
//
//   - ListAgents: at least one agent; non-empty IDs without whitespace,
//     unique; a type and a status for each, all running at the start;
//     restarts ≥ 0; the same agents on every call, in a fresh slice.
//   - Faults: each agent fault the runtime can land returns nil on a
//     running agent, which stays listed.
//   - UnknownAgent: every fault method errors for an agent that does not
//     exist.
//   - StopAgent (an arena.AgentStopper): a stopped agent is listed as
//     stopped (or, when the runtime restarted it already, with more
//     restarts).
//   - PauseResume (an arena.Pauser): paused after PauseAgent, running after
//     ResumeAgent.
//   - FaultLifter (an arena.FaultLifter): each timed fault is lifted without
//     error, a lifted pause leaves the agent running, and lifting it again
//     is harmless (nil), since the engine lifts faults the system may have
//     healed already.
//   - Concurrency: ListAgents and faults from several goroutines at once
//     (run it with -race) never fail ListAgents nor change the agents.
//   - NoPanics: empty IDs, zero and negative durations, an unknown LLM error
//     type, a cancelled context: errors are fine, panics are not.
//
// A runtime need not have every capability (see arena.AgentLister): the
// checks of the faults it cannot land are skipped, the subtests named for
// them say so with t.Skip, and TestRuntime logs the list. Each subtest
// takes a fresh runtime from newRuntime (the fault subtests take another
// when every agent has been hit once). The fakes pass it:
//
//	arenatest.TestRuntime(t, func(t *testing.T) arena.RuntimeProvider { return fakes.NewCluster() })
func TestRuntime[R arena.AgentLister](t *testing.T, newRuntime func(t *testing.T) R) {
	t.Helper()
	var missing []string // what the runtime cannot land: the same for every runtime of R
	var once sync.Once
	factory := func(t *testing.T) arena.AgentLister {
		rt := newRuntime(t)
		once.Do(func() { missing = lacking(rt) })
		return rt
	}
	t.Run("ListAgents", func(t *testing.T) { testListAgents(t, factory) })
	if len(missing) > 0 {
		t.Logf("TestRuntime: skipping the checks of the faults the runtime cannot land: %s", strings.Join(missing, "; "))
	}
	t.Run("Faults", func(t *testing.T) { testFaults(t, factory) })
	t.Run("UnknownAgent", func(t *testing.T) { testUnknownAgent(t, factory) })
	t.Run("StopAgent", func(t *testing.T) { testStop(t, factory) })
	t.Run("PauseResume", func(t *testing.T) { testPauseResume(t, factory) })
	t.Run("FaultLifter", func(t *testing.T) { testLifter(t, factory) })
	t.Run("Concurrency", func(t *testing.T) { testConcurrency(t, factory) })
	t.Run("NoPanics", func(t *testing.T) { testNoPanics(t, factory) })
}

// lacking says which fault methods rt lacks, and why.
func lacking(rt arena.AgentLister) []string {
	in := arena.NewInjectorFor(rt)
	var missing []string
	for _, f := range allCalls {
		if err := in.Unsupported(f.kind); err != nil {
			missing = append(missing, err.Error())
		}
	}
	return missing
}

// fault is one agent fault, as the engine calls it. call is made only on a
// runtime that can land kind (supports).
type fault struct {
	name string
	kind arena.ActionType
	call func(ctx context.Context, rt arena.AgentLister, id string) error
}

var agentFaults = []fault{
	{"StopAgent", arena.ActionKillAgent, func(ctx context.Context, rt arena.AgentLister, id string) error {
		return rt.(arena.AgentStopper).StopAgent(ctx, id)
	}},
	{"PauseAgent", arena.ActionPauseAgent, func(ctx context.Context, rt arena.AgentLister, id string) error {
		return rt.(arena.Pauser).PauseAgent(ctx, id)
	}},
	{"SlowAgent", arena.ActionSlowAgent, func(ctx context.Context, rt arena.AgentLister, id string) error {
		return rt.(arena.Slower).SlowAgent(ctx, id, arena.DefaultSlowDelay)
	}},
	{"PartitionNetwork", arena.ActionNetworkPartition, func(ctx context.Context, rt arena.AgentLister, id string) error {
		return rt.(arena.Partitioner).PartitionNetwork(ctx, id)
	}},
	{"ToolTimeout", arena.ActionToolTimeout, func(ctx context.Context, rt arena.AgentLister, id string) error {
		return rt.(arena.ToolTimeouter).ToolTimeout(ctx, id, arena.DefaultToolTimeout)
	}},
	{"CorruptMemory", arena.ActionMemoryCorrupt, func(ctx context.Context, rt arena.AgentLister, id string) error {
		return rt.(arena.MemoryCorrupter).CorruptMemory(ctx, id)
	}},
	{"DisconnectMCP", arena.ActionMCPDisconnect, func(ctx context.Context, rt arena.AgentLister, id string) error {
		return rt.(arena.MCPDisconnecter).DisconnectMCP(ctx, id)
	}},
	{"InjectLLMFailure", arena.ActionLLMFailure, func(ctx context.Context, rt arena.AgentLister, id string) error {
		return rt.(arena.LLMFailer).InjectLLMFailure(ctx, id, arena.DefaultLLMError)
	}},
}

var resumeCall = fault{"ResumeAgent", arena.ActionResumeAgent, func(ctx context.Context, rt arena.AgentLister, id string) error {
	return rt.(arena.Pauser).ResumeAgent(ctx, id)
}}

// allCalls is every fault method of a runtime.
var allCalls = append(slices.Clone(agentFaults), resumeCall)

// supported keeps the calls rt can land.
func supported(rt arena.AgentLister, calls []fault) []fault {
	in := arena.NewInjectorFor(rt)
	return slices.DeleteFunc(slices.Clone(calls), func(f fault) bool { return !in.Supports(f.kind) })
}

// require skips t unless rt can land kind.
func require(t *testing.T, rt arena.AgentLister, kind arena.ActionType) {
	t.Helper()
	if err := arena.NewInjectorFor(rt).Unsupported(kind); err != nil {
		t.Skipf("skipped: %v", err)
	}
}

func callContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), conformanceTimeout)
	t.Cleanup(cancel)
	return ctx
}

// list calls ListAgents and fails t on an error.
func list(t *testing.T, ctx context.Context, rt arena.AgentLister) []arena.AgentInfo {
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

func testListAgents(t *testing.T, factory factory) {
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
	factory factory
	rt      arena.AgentLister
	unhit   []string
}

func (p *pool) next(ctx context.Context) (arena.AgentLister, string) {
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

func testFaults(t *testing.T, factory factory) {
	p := &pool{t: t, factory: factory}
	ctx := callContext(t)
	for _, f := range agentFaults {
		rt, id := p.next(ctx)
		if !arena.NewInjectorFor(rt).Supports(f.kind) {
			p.unhit = append([]string{id}, p.unhit...) // not hit: the next fault takes it
		}
		t.Run(f.name, func(t *testing.T) {
			require(t, rt, f.kind)
			if err := f.call(ctx, rt, id); err != nil {
				t.Fatalf("%s(%q) on a running agent: %v", f.name, id, err)
			}
			if _, ok := find(list(t, ctx, rt), id); !ok {
				t.Errorf("%s(%q): the agent is no longer listed (a fault must not remove an agent)", f.name, id)
			}
		})
	}
}

func testUnknownAgent(t *testing.T, factory factory) {
	rt := factory(t)
	ctx := callContext(t)
	for _, f := range supported(rt, allCalls) {
		if err := f.call(ctx, rt, noSuchAgent); err == nil {
			t.Errorf("%s(%q) = nil, want an error for an unknown agent", f.name, noSuchAgent)
		}
	}
}

func testStop(t *testing.T, factory factory) {
	ctx := callContext(t)
	rt, id := (&pool{t: t, factory: factory}).next(ctx)
	require(t, rt, arena.ActionKillAgent)
	before, _ := find(list(t, ctx, rt), id)
	if err := rt.(arena.AgentStopper).StopAgent(ctx, id); err != nil {
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

func testPauseResume(t *testing.T, factory factory) {
	ctx := callContext(t)
	rt, id := (&pool{t: t, factory: factory}).next(ctx)
	require(t, rt, arena.ActionPauseAgent)
	pauser := rt.(arena.Pauser)
	if err := pauser.PauseAgent(ctx, id); err != nil {
		t.Fatalf("PauseAgent(%q): %v", id, err)
	}
	if a, _ := find(list(t, ctx, rt), id); a.Status != arena.StatusPaused {
		t.Errorf("after PauseAgent(%q): status %q, want %q", id, a.Status, arena.StatusPaused)
	}
	if err := pauser.ResumeAgent(ctx, id); err != nil {
		t.Fatalf("ResumeAgent(%q): %v", id, err)
	}
	if a, _ := find(list(t, ctx, rt), id); a.Status != arena.StatusRunning {
		t.Errorf("after ResumeAgent(%q): status %q, want %q", id, a.Status, arena.StatusRunning)
	}
}

func testLifter(t *testing.T, factory factory) {
	ctx := callContext(t)
	p := &pool{t: t, factory: factory}
	rt, id := p.next(ctx)
	if _, ok := rt.(arena.FaultLifter); !ok {
		t.Skipf("%T is not an arena.FaultLifter: the engine cannot lift timed faults early", rt)
	}
	p.unhit = append([]string{id}, p.unhit...)
	for _, f := range supported(rt, agentFaults) {
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

func testConcurrency(t *testing.T, factory factory) {
	rt := factory(t)
	ctx := callContext(t)
	agents := list(t, ctx, rt)
	var ids []string
	for _, a := range agents {
		ids = append(ids, a.ID)
	}
	faults := supported(rt, agentFaults)
	const workers, rounds = 8, 20
	errs := make(chan error, workers*rounds)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				if _, err := rt.ListAgents(ctx); err != nil {
					errs <- fmt.Errorf("ListAgents: %v", err)
				}
				if len(faults) == 0 {
					continue
				}
				// Faults may fail to land (a stopped agent cannot be
				// paused); only their safety is tested here.
				f := faults[(w+r)%len(faults)]
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

func testNoPanics(t *testing.T, factory factory) {
	rt := factory(t)
	ctx := callContext(t)
	id := list(t, ctx, rt)[0].ID
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	type call struct {
		kind arena.ActionType // what the runtime needs for it; "" for ListAgents
		fn   func() error
	}
	stop := func(ctx context.Context, id string) error { return rt.(arena.AgentStopper).StopAgent(ctx, id) }
	pause := func(ctx context.Context, id string) error { return rt.(arena.Pauser).PauseAgent(ctx, id) }
	slow := func(id string, d time.Duration) error { return rt.(arena.Slower).SlowAgent(ctx, id, d) }
	tool := func(d time.Duration) error { return rt.(arena.ToolTimeouter).ToolTimeout(ctx, id, d) }
	llm := func(ctx context.Context, id string, e arena.LLMErrorType) error {
		return rt.(arena.LLMFailer).InjectLLMFailure(ctx, id, e)
	}
	all := map[string]call{
		`StopAgent(ctx, "")`:              {arena.ActionKillAgent, func() error { return stop(ctx, "") }},
		`PauseAgent(ctx, "")`:             {arena.ActionPauseAgent, func() error { return pause(ctx, "") }},
		`ResumeAgent(ctx, "")`:            {arena.ActionResumeAgent, func() error { return rt.(arena.Pauser).ResumeAgent(ctx, "") }},
		`SlowAgent(ctx, "", 1s)`:          {arena.ActionSlowAgent, func() error { return slow("", time.Second) }},
		`SlowAgent(ctx, id, 0)`:           {arena.ActionSlowAgent, func() error { return slow(id, 0) }},
		`SlowAgent(ctx, id, -1s)`:         {arena.ActionSlowAgent, func() error { return slow(id, -time.Second) }},
		`PartitionNetwork(ctx, "")`:       {arena.ActionNetworkPartition, func() error { return rt.(arena.Partitioner).PartitionNetwork(ctx, "") }},
		`ToolTimeout(ctx, id, 0)`:         {arena.ActionToolTimeout, func() error { return tool(0) }},
		`ToolTimeout(ctx, id, -1s)`:       {arena.ActionToolTimeout, func() error { return tool(-time.Second) }},
		`CorruptMemory(ctx, "")`:          {arena.ActionMemoryCorrupt, func() error { return rt.(arena.MemoryCorrupter).CorruptMemory(ctx, "") }},
		`DisconnectMCP(ctx, "")`:          {arena.ActionMCPDisconnect, func() error { return rt.(arena.MCPDisconnecter).DisconnectMCP(ctx, "") }},
		`InjectLLMFailure(ctx, id, "?")`:  {arena.ActionLLMFailure, func() error { return llm(ctx, id, "nonsense") }},
		`InjectLLMFailure(ctx, "", "")`:   {arena.ActionLLMFailure, func() error { return llm(ctx, "", "") }},
		`ListAgents(cancelled)`:           {"", func() error { _, err := rt.ListAgents(cancelled); return err }},
		`StopAgent(cancelled, id)`:        {arena.ActionKillAgent, func() error { return stop(cancelled, id) }},
		`PauseAgent(cancelled, id)`:       {arena.ActionPauseAgent, func() error { return pause(cancelled, id) }},
		`InjectLLMFailure(cancelled, id)`: {arena.ActionLLMFailure, func() error { return llm(cancelled, id, arena.LLMTimeout) }},
	}
	in := arena.NewInjectorFor(rt)
	calls := map[string]func() error{}
	for name, c := range all {
		if c.kind == "" || in.Supports(c.kind) {
			calls[name] = c.fn
		}
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
