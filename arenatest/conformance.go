package arenatest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/ares-arena/arena/fault"
)

// RuntimeFactory returns a fresh full runtime for TestRuntime, every agent
// running. It registers whatever must be torn down with t.Cleanup, and may
// skip t (no Docker daemon, say). TestRuntime takes any function of this
// shape, also one returning a runtime with only some capabilities (an
// fault.AgentLister that is a fault.Pauser, say).
type RuntimeFactory func(t *testing.T) fault.RuntimeProvider

// conformanceTimeout bounds each call of the suite (each fault's landing,
// checks and lifts, in Faults): a runtime that hangs fails instead of
// stalling the test binary.
const conformanceTimeout = 30 * time.Second

// callTimeout is a context for one call, or one fault's checks.
func callTimeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), conformanceTimeout)
}

// effectWait bounds how long the suite waits for a fault's effect to show
// once it landed, or to go once it was lifted: a real runtime may apply
// some asynchronously. It polls, so a quick runtime costs no wait.
const effectWait = 10 * time.Second

// noSuchAgent is an ID no runtime should have.
const noSuchAgent = "arena-conformance-no-such-agent"

// factory is TestRuntime's factory, whatever the runtime type it returns.
type factory func(t *testing.T) fault.AgentLister

// seenFunc reports whether the fault of a is in place on rt now.
type seenFunc func(ctx context.Context, rt fault.AgentLister, a fault.Action) (bool, error)

// Effect tells TestRuntime how to see the faults of one built-in type on a
// runtime where arena's own interfaces cannot show them (a slowed agent is
// listed as running); Observe returns one.
type Effect[R fault.AgentLister] struct {
	typ  fault.Type
	seen func(ctx context.Context, rt R, a fault.Action) (bool, error)
}

// Observe returns the Effect of typ for TestRuntime: seen reports whether
// the fault of action a (of type typ, its target resolved: a.TargetID, and
// a.SourceID for an edge) is in place on rt now, through whatever rt shows
// (its own state, an agent's endpoint). TestRuntime then checks it is not
// seen before the fault lands, is seen after, and (for a fault arena lifts)
// is gone once lifted. For the fakes:
//
//	arenatest.Observe(fault.SlowAgent, func(_ context.Context, c *fakes.Cluster, a fault.Action) (bool, error) {
//		st, _ := c.Agent(a.TargetID)
//		return st.SlowDelay > 0, nil
//	})
func Observe[R fault.AgentLister](typ fault.Type, seen func(ctx context.Context, rt R, a fault.Action) (bool, error)) Effect[R] {
	return Effect[R]{typ: typ, seen: seen}
}

// TestRuntime checks that a runtime keeps the contract the engine relies
// on, in subtests:
//
//   - ListAgents: at least one agent; non-empty IDs without whitespace,
//     unique; a type and a status for each, all running at the start;
//     restarts ≥ 0; the same agents on every call, in a fresh slice.
//   - Declared: the runtime says, for every built-in fault type
//     (fault.Specs), that it lands it (it implements the capability)
//     or refuses it with a reason (fault.Refuser), and not both; the
//     injector reports a refused type as fault.ErrUnsupported with that
//     reason. A built-in type added to arena fails this check until each
//     runtime decides.
//   - Faults: each built-in type the runtime lands, through arena's
//     injector as a run lands it (role types on the role's holder, DAG
//     types on the runtime's first node or edge, resume_agent on an agent
//     paused for it): it lands without error on a running agent, which
//     stays listed; its effect shows; and a fault arena lifts hands back a
//     Lift that succeeds, after which the effect is gone, and that succeeds
//     again when called a second time (the engine lifts faults the system
//     may have healed already). Effects are seen through arena's
//     interfaces where they can be (a killed agent is stopped or
//     restarted, a paused one paused, a removed node or edge is no longer
//     listed) and through the Effects given (Observe) for the rest; a type
//     with neither is checked for its lifecycle only, and the subtest logs
//     that its effect went unseen.
//   - UnknownAgent: each agent fault fails for an agent that does not
//     exist, with an error wrapping fault.ErrNoAgent; a DAG fault on an
//     unknown node or edge fails.
//   - Concurrency: ListAgents, faults and lifts from several goroutines at
//     once (run it with -race) never fail ListAgents nor change the agents.
//   - NoPanics: empty IDs, zero and negative durations and rates, an
//     unknown LLM error type, a cancelled context: errors are fine, panics
//     are not.
//
// A runtime need not land every type (see fault.AgentLister): the Faults
// subtests of the types it refuses are skipped with its reason. Each
// subtest takes a fresh runtime from newRuntime (the Faults subtests take
// another when every agent has been hit once, and one for each DAG type).
// The fakes pass it:
//
//	arenatest.TestRuntime(t, func(t *testing.T) *fakes.Cluster { return fakes.NewCluster() }, effects...)
func TestRuntime[R fault.AgentLister](t *testing.T, newRuntime func(t *testing.T) R, effects ...Effect[R]) {
	t.Helper()
	s := &suite{
		factory: func(t *testing.T) fault.AgentLister { return newRuntime(t) },
		effects: map[fault.Type]seenFunc{},
	}
	for _, e := range effects {
		if _, ok := fault.Lookup(e.typ); !ok {
			t.Fatalf("arenatest.Observe(%q): not a built-in fault type", e.typ)
		}
		seen := e.seen
		s.effects[e.typ] = func(ctx context.Context, rt fault.AgentLister, a fault.Action) (bool, error) {
			return seen(ctx, rt.(R), a)
		}
	}
	t.Run("ListAgents", s.testListAgents)
	t.Run("Declared", s.testDeclared)
	t.Run("Faults", s.testFaults)
	t.Run("UnknownAgent", s.testUnknownAgent)
	t.Run("Concurrency", s.testConcurrency)
	t.Run("NoPanics", s.testNoPanics)
}

// suite is one TestRuntime.
type suite struct {
	factory factory
	effects map[fault.Type]seenFunc
}

// injectorFor is the injector a service would have over rt: rt as the DAG
// provider too, when it is one.
func injectorFor(rt fault.AgentLister) *fault.Injector {
	if dag, ok := rt.(fault.DAGProvider); ok {
		return fault.NewInjectorFor(rt, fault.WithDAG(dag))
	}
	return fault.NewInjectorFor(rt)
}

func callContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), conformanceTimeout)
	t.Cleanup(cancel)
	return ctx
}

// list calls ListAgents and fails t on an error.
func list(t *testing.T, ctx context.Context, rt fault.AgentLister) []fault.AgentInfo {
	t.Helper()
	agents, err := rt.ListAgents(ctx)
	if err != nil {
		t.Fatalf("ListAgents: %v", err)
	}
	return agents
}

func find(agents []fault.AgentInfo, id string) (fault.AgentInfo, bool) {
	i := slices.IndexFunc(agents, func(a fault.AgentInfo) bool { return a.ID == id })
	if i < 0 {
		return fault.AgentInfo{}, false
	}
	return agents[i], true
}

func (s *suite) testListAgents(t *testing.T) {
	rt := s.factory(t)
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
		if a.Status != fault.StatusRunning {
			t.Errorf("ListAgents: agent %q is %q at the start, want %q", a.ID, a.Status, fault.StatusRunning)
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

func (s *suite) testDeclared(t *testing.T) { TestDeclared(t, s.factory(t)) }

// TestDeclared checks that rt lands or refuses every built-in type: by its
// capability, or by a reason for the type (fault.Refuser) or for its whole
// scope (fault.ScopeRefuser), and refuses no type it lands. It is
// TestRuntime's Declared step, and reads only rt's methods: a runtime that
// needs a daemon or a cluster to run can check its declarations without
// one (even a nil pointer of its type will do).
func TestDeclared(t *testing.T, rt fault.AgentLister) {
	t.Helper()
	in := injectorFor(rt)
	var byType map[fault.Type]string
	if r, ok := rt.(fault.Refuser); ok {
		byType = r.Refusals()
	}
	for _, typ := range slices.Sorted(maps.Keys(byType)) {
		if _, ok := fault.Lookup(typ); !ok {
			t.Errorf("Refusals: %q is not a built-in fault type", typ)
		}
		if strings.TrimSpace(byType[typ]) == "" {
			t.Errorf("Refusals: %s: no reason given", typ)
		}
	}
	var byScope map[fault.Scope]string
	if r, ok := rt.(fault.ScopeRefuser); ok {
		byScope = r.RefusedScopes()
	}
	for _, sc := range slices.Sorted(maps.Keys(byScope)) {
		if !slices.Contains(fault.Scopes(), sc) {
			t.Errorf("RefusedScopes: %q is not a scope (want one of %v)", sc, fault.Scopes())
		}
		if strings.TrimSpace(byScope[sc]) == "" {
			t.Errorf("RefusedScopes: %s: no reason given", sc)
		}
	}
	refusals := fault.RefusalsOf(rt)
	var refused []string
	for _, spec := range fault.Specs() {
		_, typeRefused := byType[spec.Type]
		why, isRefused := refusals[spec.Type]
		err := in.Unsupported(spec.Type)
		switch lands := err == nil; {
		case lands && typeRefused:
			t.Errorf("%s: the runtime lands it (it implements fault.%s) and refuses it (%q): say one", spec.Type, spec.Capability(), why)
		case lands:
			// a scope it refuses, but this type it lands: its capability wins
		case !isRefused:
			t.Errorf("%s: neither landed nor refused: implement fault.%s, or give the reason the runtime refuses it in its Refusals (fault.Refuser), or refuse its scope %s (fault.ScopeRefuser)",
				spec.Type, spec.Capability(), spec.Scope)
		case isRefused && errors.Is(err, fault.ErrNoDAG):
			refused = append(refused, fmt.Sprintf("%s (%s)", spec.Type, why)) // no DAG provider: the injector says so
		case isRefused && (!errors.Is(err, fault.ErrUnsupported) || !strings.Contains(err.Error(), why)):
			t.Errorf("injector: Unsupported(%s) = %v, want fault.ErrUnsupported with the runtime's reason %q", spec.Type, err, why)
		case isRefused:
			refused = append(refused, fmt.Sprintf("%s (%s)", spec.Type, why))
		}
	}
	if len(refused) > 0 {
		t.Logf("the runtime refuses: %s", strings.Join(refused, "; "))
	}
}

// pool hands out running agents, each once, asking factory for a fresh
// runtime when every agent of the current one has been hit. Workers come
// first: they are what a fault usually hits. It is used from the test's
// own goroutine only (it may fail t).
type pool struct {
	t       *testing.T
	factory factory
	rt      fault.AgentLister
	unhit   []fault.AgentInfo
}

// current returns the runtime agents are handed out from.
func (p *pool) current(ctx context.Context) fault.AgentLister {
	if len(p.unhit) == 0 {
		p.refill(ctx)
	}
	return p.rt
}

func (p *pool) refill(ctx context.Context) {
	p.t.Helper()
	p.rt = p.factory(p.t)
	agents := list(p.t, ctx, p.rt)
	slices.SortStableFunc(agents, func(a, b fault.AgentInfo) int {
		return boolRank(a.Type != fault.TypeWorker) - boolRank(b.Type != fault.TypeWorker)
	})
	p.unhit = slices.DeleteFunc(agents, func(a fault.AgentInfo) bool { return a.Status != fault.StatusRunning })
	if len(p.unhit) == 0 {
		p.t.Fatal("ListAgents: no running agent to inject a fault into")
	}
}

// next hands out an agent of type typ ("": any), from a fresh runtime when
// the current one has none left; id is "" when neither has one (the
// fault's own resolution then says what is missing).
func (p *pool) next(ctx context.Context, typ string) (rt fault.AgentLister, id string) {
	p.t.Helper()
	for try := 0; try < 2; try++ {
		if try > 0 || len(p.unhit) == 0 {
			p.refill(ctx)
		}
		if i := slices.IndexFunc(p.unhit, func(a fault.AgentInfo) bool { return typ == "" || a.Type == typ }); i >= 0 {
			id := p.unhit[i].ID
			p.unhit = slices.Delete(p.unhit, i, i+1)
			return p.rt, id
		}
	}
	return p.rt, ""
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// testFaults lands every built-in type the runtime lands, in fault.Specs
// order.
func (s *suite) testFaults(t *testing.T) {
	p := &pool{t: t, factory: s.factory}
	for _, spec := range fault.Specs() {
		ctx, cancel := callTimeout() // each fault its own: runtimes may be started between them
		defer cancel()
		name := string(spec.Type)
		var rt fault.AgentLister
		a := fault.Action{ID: "conformance-" + name, Type: spec.Type}
		switch spec.Target {
		case fault.TargetNode, fault.TargetEdge:
			rt = s.factory(t) // a fresh one: the node or edge must be intact
			if err := injectorFor(rt).Unsupported(spec.Type); err != nil {
				t.Run(name, func(t *testing.T) { t.Skipf("not landed: %v", err) })
				continue
			}
			a.SourceID, a.TargetID = dagTarget(t, ctx, rt.(fault.DAGProvider), spec.Target)
		default:
			if err := injectorFor(p.current(ctx)).Unsupported(spec.Type); err != nil {
				t.Run(name, func(t *testing.T) { t.Skipf("not landed: %v", err) })
				continue
			}
			switch spec.Target {
			case fault.TargetSystem:
				rt = p.current(ctx)
			case fault.TargetRole:
				var holder string
				if rt, holder = p.next(ctx, spec.Role); holder == "" {
					t.Run(name, func(t *testing.T) { t.Skipf("no agent is of type %s: nothing to land it on", spec.Role) })
					continue
				} // the injector resolves the holder
			default:
				rt, a.TargetID = p.next(ctx, "")
			}
		}
		t.Run(name, func(t *testing.T) { s.checkFault(t, ctx, rt, spec, a) })
	}
}

// dagTarget returns the runtime's first node, or its first edge.
func dagTarget(t *testing.T, ctx context.Context, dag fault.DAGProvider, target fault.TargetRule) (source, id string) {
	t.Helper()
	if target == fault.TargetNode {
		nodes, err := dag.ListNodes(ctx)
		if err != nil || len(nodes) == 0 {
			t.Fatalf("ListNodes = %v, %v; want a node to remove", nodes, err)
		}
		return "", nodes[0]
	}
	edges, err := dag.ListEdges(ctx)
	if err != nil || len(edges) == 0 {
		t.Fatalf("ListEdges = %v, %v; want an edge to remove", edges, err)
	}
	return edges[0].Source, edges[0].Target
}

// checkFault lands a on rt and checks the fault's lifecycle and effect.
func (s *suite) checkFault(t *testing.T, ctx context.Context, rt fault.AgentLister, spec fault.Spec, a fault.Action) {
	in := injectorFor(rt)
	a, params, err := in.Prepare(ctx, a, nil)
	if err != nil {
		t.Fatalf("preparing %s: %v", spec.Type, err)
	}
	if spec.Eligible != nil && !spec.Eligible(fault.StatusRunning) && spec.Eligible(fault.StatusPaused) {
		// resume_agent: pause the agent first; its lift, after the resume,
		// lifts a fault that is no longer in place.
		pause := fault.Action{ID: a.ID + "-pause", Type: fault.PauseAgent, TargetID: a.TargetID}
		pause, pp, err := in.Prepare(ctx, pause, nil)
		if err != nil {
			t.Fatalf("preparing the pause before %s: %v", spec.Type, err)
		}
		lift, err := in.Inject(ctx, pause, pp)
		if err != nil {
			t.Fatalf("pausing %q before %s: %v", a.TargetID, spec.Type, err)
		}
		if lift != nil {
			defer func() {
				if err := lift(ctx); err != nil {
					t.Errorf("lifting the pause of %q after %s: %v, want nil (the pause was over)", a.TargetID, spec.Type, err)
				}
			}()
		}
	}
	agentFault := spec.Target == fault.TargetAgent || spec.Target == fault.TargetRole
	before, ok := find(list(t, ctx, rt), a.TargetID)
	if !ok && agentFault {
		t.Fatalf("agent %q is not listed", a.TargetID)
	}
	seen := s.seen(rt, spec, before)
	if seen == nil {
		t.Logf("%s: effect not observed: arena's interfaces do not show it, and no arenatest.Observe was given for it", spec.Type)
	} else if on, err := seen(ctx, rt, a); err != nil {
		t.Fatalf("observing %s on %s before it landed: %v", spec.Type, target(a), err)
	} else if on {
		t.Fatalf("%s seen on %s before it landed: the observation cannot tell a fault from none", spec.Type, target(a))
	}

	lift, err := in.Inject(ctx, a, params)
	if err != nil {
		t.Fatalf("%s on %s, which can take it: %v", spec.Type, target(a), err)
	}
	if agentFault {
		if _, ok := find(list(t, ctx, rt), a.TargetID); !ok {
			t.Errorf("%s on %q: the agent is no longer listed (a fault must not remove an agent)", spec.Type, a.TargetID)
		}
	}
	if seen != nil {
		waitSeen(t, ctx, rt, seen, a, true)
	}
	if !in.CanLift(spec.Type) {
		if spec.Lifts {
			t.Logf("%s: arena cannot lift it on this runtime (it lands it through a deprecated method that returns no Lift, without fault.Lifter)", spec.Type)
		}
		return
	}
	if lift == nil {
		t.Fatalf("%s on %s: landed without a Lift", spec.Type, target(a))
	}
	if err := lift(ctx); err != nil {
		t.Fatalf("lifting %s on %s: %v", spec.Type, target(a), err)
	}
	if seen != nil {
		waitSeen(t, ctx, rt, seen, a, false)
	}
	if err := lift(ctx); err != nil {
		t.Errorf("lifting %s on %s a second time: %v, want nil (the engine lifts faults the system may have healed already)", spec.Type, target(a), err)
	}
}

func target(a fault.Action) string {
	if a.SourceID != "" {
		return fmt.Sprintf("%q->%q", a.SourceID, a.TargetID)
	}
	return fmt.Sprintf("%q", a.TargetID)
}

// seen is how the suite sees a fault of spec's type: through arena's
// interfaces (listed is the target as listed before the fault), the
// Observe given for the type, or both; nil when neither can.
func (s *suite) seen(rt fault.AgentLister, spec fault.Spec, listed fault.AgentInfo) seenFunc {
	own := shown(rt, spec, listed)
	theirs := s.effects[spec.Type]
	switch {
	case own == nil:
		return theirs
	case theirs == nil:
		return own
	}
	return func(ctx context.Context, rt fault.AgentLister, a fault.Action) (bool, error) {
		a1, err := own(ctx, rt, a)
		if err != nil {
			return false, err
		}
		a2, err := theirs(ctx, rt, a)
		if err == nil && a1 != a2 {
			err = fmt.Errorf("arena's interfaces say %v, the Observe given says %v", a1, a2)
		}
		return a1 && a2, err
	}
}

// shown is how arena's own interfaces show a fault of spec's type: a kill
// stops the agent (or restarts it, past the restarts it had when listed), a
// pause pauses it, a resume runs it, a removed node or edge is no longer
// listed. nil for the other types.
func shown(rt fault.AgentLister, spec fault.Spec, listed fault.AgentInfo) seenFunc {
	status := func(is func(a fault.AgentInfo) bool) seenFunc {
		return func(ctx context.Context, rt fault.AgentLister, a fault.Action) (bool, error) {
			agents, err := rt.ListAgents(ctx)
			if err != nil {
				return false, err
			}
			ag, _ := find(agents, a.TargetID)
			return is(ag), nil
		}
	}
	dag, isDAG := rt.(fault.DAGProvider)
	switch {
	case spec.Capability() == reflect.TypeFor[fault.AgentStopper]().Name():
		return status(func(a fault.AgentInfo) bool { return a.Status == fault.StatusStopped || a.Restarts > listed.Restarts })
	case spec.Type == fault.PauseAgent:
		return status(func(a fault.AgentInfo) bool { return a.Status == fault.StatusPaused })
	case spec.Type == fault.ResumeAgent:
		return status(func(a fault.AgentInfo) bool {
			return listed.Status != fault.StatusRunning && a.Status == fault.StatusRunning
		})
	case spec.Target == fault.TargetNode && isDAG:
		return func(ctx context.Context, _ fault.AgentLister, a fault.Action) (bool, error) {
			nodes, err := dag.ListNodes(ctx)
			return !slices.Contains(nodes, a.TargetID), err
		}
	case spec.Target == fault.TargetEdge && isDAG:
		return func(ctx context.Context, _ fault.AgentLister, a fault.Action) (bool, error) {
			edges, err := dag.ListEdges(ctx)
			return !slices.Contains(edges, fault.Edge{Source: a.SourceID, Target: a.TargetID}), err
		}
	}
	return nil
}

// waitSeen polls seen until it answers want, and fails t at effectWait.
func waitSeen(t *testing.T, ctx context.Context, rt fault.AgentLister, seen seenFunc, a fault.Action, want bool) {
	t.Helper()
	deadline := time.Now().Add(effectWait)
	for {
		on, err := seen(ctx, rt, a)
		switch {
		case err != nil:
			t.Fatalf("observing %s on %s: %v", a.Type, target(a), err)
		case on == want:
			return
		case time.Now().After(deadline):
			if want {
				t.Fatalf("%s on %s landed without error, but its effect did not show within %v", a.Type, target(a), effectWait)
			}
			t.Fatalf("%s on %s was lifted without error, but its effect was still there after %v", a.Type, target(a), effectWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testUnknownAgent lands each agent fault the runtime lands on an agent it
// does not have, and each DAG fault on a node or edge it does not have.
func (s *suite) testUnknownAgent(t *testing.T) {
	rt := s.factory(t)
	in := injectorFor(rt)
	for _, spec := range fault.Specs() {
		if !in.Supports(spec.Type) || spec.Target == fault.TargetRole || spec.Target == fault.TargetSystem {
			continue
		}
		ctx, cancel := callTimeout()
		defer cancel()
		a := fault.Action{Type: spec.Type, TargetID: noSuchAgent}
		if spec.Target == fault.TargetEdge {
			a.SourceID = noSuchAgent
		}
		a, p, err := in.Prepare(ctx, a, nil)
		if err != nil {
			t.Errorf("preparing %s on %s: %v", spec.Type, target(a), err)
			continue
		}
		lift, err := in.Inject(ctx, a, p)
		switch {
		case err == nil:
			t.Errorf("%s on %s = nil, want an error for an unknown target", spec.Type, target(a))
			if lift != nil {
				_ = lift(ctx)
			}
		case spec.Target == fault.TargetAgent && !errors.Is(err, fault.ErrNoAgent):
			t.Errorf("%s on %s = %v, want an error wrapping fault.ErrNoAgent", spec.Type, target(a), err)
		}
	}
}

func (s *suite) testConcurrency(t *testing.T) {
	rt := s.factory(t)
	in := injectorFor(rt)
	ctx := callContext(t)
	agents := list(t, ctx, rt)
	var ids []string
	for _, a := range agents {
		ids = append(ids, a.ID)
	}
	var types []fault.Type
	for _, spec := range fault.Specs() {
		if spec.Target == fault.TargetAgent && in.Supports(spec.Type) {
			types = append(types, spec.Type)
		}
	}
	const workers, rounds = 8, 20
	errs := make(chan error, workers*rounds)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				ctx, cancel := callTimeout()
				defer cancel()
				if _, err := rt.ListAgents(ctx); err != nil {
					errs <- fmt.Errorf("ListAgents: %v", err)
				}
				if len(types) == 0 {
					continue
				}
				// Faults may fail to land (a stopped agent cannot be
				// paused); only their safety is tested here.
				a := fault.Action{Type: types[(w+r)%len(types)], TargetID: ids[(w*rounds+r)%len(ids)]}
				a, p, err := in.Prepare(ctx, a, nil)
				if err != nil {
					errs <- err
					continue
				}
				lift, err := in.Inject(ctx, a, p)
				if errors.Is(err, fault.ErrProviderPanic) {
					errs <- fmt.Errorf("%s on %q: %v", a.Type, a.TargetID, err)
				}
				if lift != nil && r%2 == 0 {
					if p := safeCall(func() error { return lift(ctx) }); p != nil {
						errs <- fmt.Errorf("lifting %s on %q panicked: %v", a.Type, a.TargetID, p)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ctx, cancel := callTimeout()
	defer cancel()
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

func (s *suite) testNoPanics(t *testing.T) {
	rt := s.factory(t)
	in := injectorFor(rt)
	ctx := callContext(t)
	id := list(t, ctx, rt)[0].ID
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	calls := map[string]func() error{
		`ListAgents(cancelled)`: func() error { _, err := rt.ListAgents(cancelled); return err },
	}
	// Every agent fault on an empty ID, through the injector (which does
	// not validate Inject's action: Prepare does).
	var lifts []fault.Lift
	for _, spec := range fault.Specs() {
		if spec.Target != fault.TargetAgent || !in.Supports(spec.Type) {
			continue
		}
		calls[string(spec.Type)+` on ""`] = func() error {
			lift, err := in.Inject(ctx, fault.Action{Type: spec.Type}, fault.Params{})
			if lift != nil {
				lifts = append(lifts, lift)
			}
			return err
		}
	}
	// Odd values the engine's validation never lets through, straight to
	// the methods the runtime has.
	keep := func(lift fault.Lift, err error) error {
		if lift != nil {
			lifts = append(lifts, lift)
		}
		return err
	}
	if r, ok := rt.(fault.AgentStopper); ok {
		calls[`StopAgent(cancelled, id)`] = func() error { return r.StopAgent(cancelled, id) }
	}
	if r, ok := rt.(fault.Pauser); ok {
		calls[`PauseAgent(cancelled, id)`] = func() error { return keep(r.PauseAgent(cancelled, id)) }
	}
	if r, ok := rt.(fault.Slower); ok {
		calls[`SlowAgent(ctx, id, 0)`] = func() error { return keep(r.SlowAgent(ctx, id, 0)) }
		calls[`SlowAgent(ctx, id, -1s)`] = func() error { return keep(r.SlowAgent(ctx, id, -time.Second)) }
	}
	if r, ok := rt.(fault.ToolTimeouter); ok {
		calls[`ToolTimeout(ctx, id, 0)`] = func() error { return keep(r.ToolTimeout(ctx, id, 0)) }
		calls[`ToolTimeout(ctx, id, -1s)`] = func() error { return keep(r.ToolTimeout(ctx, id, -time.Second)) }
	}
	if r, ok := rt.(fault.LLMFailer); ok {
		calls[`InjectLLMFailure(ctx, id, "?")`] = func() error { return keep(r.InjectLLMFailure(ctx, id, "nonsense")) }
		calls[`InjectLLMFailure(ctx, id, "")`] = func() error { return keep(r.InjectLLMFailure(ctx, id, "")) }
		calls[`InjectLLMFailure(cancelled, id)`] = func() error { return keep(r.InjectLLMFailure(cancelled, id, fault.LLMTimeout)) }
	}
	if r, ok := rt.(fault.LatencyInjector); ok {
		calls[`InjectLatency(ctx, id, 0)`] = func() error { return keep(r.InjectLatency(ctx, id, fault.Latency{})) }
		calls[`InjectLatency(ctx, id, -1s±-1s)`] = func() error {
			return keep(r.InjectLatency(ctx, id, fault.Latency{Latency: -time.Second, Jitter: -time.Second}))
		}
		calls[`InjectLatency(ctx, id, peer unknown)`] = func() error {
			return keep(r.InjectLatency(ctx, id, fault.Latency{Latency: time.Second, Peer: noSuchAgent}))
		}
	}
	if r, ok := rt.(fault.BandwidthLimiter); ok {
		calls[`LimitBandwidth(ctx, id, 0)`] = func() error { return keep(r.LimitBandwidth(ctx, id, 0)) }
		calls[`LimitBandwidth(ctx, id, -1)`] = func() error { return keep(r.LimitBandwidth(ctx, id, -1)) }
	}
	if r, ok := rt.(fault.ConnectionResetter); ok {
		calls[`ResetConnections(ctx, id, -1s)`] = func() error { return keep(r.ResetConnections(ctx, id, -time.Second)) }
	}
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		if p := safeCall(calls[name]); p != nil {
			t.Errorf("%s panicked: %v", name, p)
		}
	}
	for i, lift := range lifts {
		if p := safeCall(func() error { return lift(cancelled) }); p != nil {
			t.Errorf("lift %d, with a cancelled context, panicked: %v", i, p)
		}
	}
	if _, err := rt.ListAgents(ctx); err != nil {
		t.Errorf("ListAgents after the odd calls: %v", err)
	}
}

// safeCall runs fn, whose error may be anything, and returns what it
// panicked with (nil if it did not). A panic the injector caught counts.
func safeCall(fn func() error) (panicked any) {
	defer func() {
		if r := recover(); r != nil {
			panicked = r
		}
	}()
	if err := fn(); errors.Is(err, fault.ErrProviderPanic) {
		return err
	}
	return nil
}

// TestRuntimeDoc checks that file, a runtime's package documentation,
// names every built-in fault type ("kill_*" names the kills): how the
// runtime lands it, or why it refuses it. A type added to arena then asks
// for its line there, as TestRuntime asks for the runtime's decision.
func TestRuntimeDoc(t *testing.T, file string) {
	t.Helper()
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range fault.Specs() {
		name := string(s.Type)
		if !strings.Contains(string(doc), name) && !(strings.HasPrefix(name, "kill_") && strings.Contains(string(doc), "kill_*")) {
			t.Errorf("%s: %s does not say how the runtime lands it or why it refuses it", name, file)
		}
	}
}
