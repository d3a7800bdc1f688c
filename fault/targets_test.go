package fault_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ares-arena/arena/fault"
)

// raftLike is a runtime shaped like a Raft system under sim: its own
// names, "follower" and "leader" types, and a client node; it partitions
// and kills, and hands back a Lift for a partition.
type raftLike struct {
	agents  []fault.AgentInfo
	lifted  []string
	liftErr error // what a partition's lift returns, nil to lift it
}

func newRaftLike() *raftLike {
	return &raftLike{agents: []fault.AgentInfo{
		{ID: "raft-1", Type: "follower", Status: fault.StatusRunning},
		{ID: "raft-2", Type: fault.TypeLeader, Status: fault.StatusRunning},
		{ID: "raft-3", Type: "follower", Status: fault.StatusRunning},
	}}
}

func (r *raftLike) ListAgents(context.Context) ([]fault.AgentInfo, error) { return r.agents, nil }
func (r *raftLike) StopAgent(context.Context, string) error               { return nil }
func (r *raftLike) PartitionNetwork(_ context.Context, id string) (fault.Lift, error) {
	return func(context.Context) error {
		if r.liftErr != nil {
			return r.liftErr
		}
		r.lifted = append(r.lifted, id)
		return nil
	}, nil
}

// TestTargetsCheck: before a run, each target resolves against what the
// runtime lists, or is an error naming the target, what it lists, and the
// fix.
func TestTargetsCheck(t *testing.T) {
	in := fault.NewInjectorFor(newRaftLike())
	tg, err := in.Targets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const listed = "the runtime lists raft-1 (follower), raft-2 (leader), raft-3 (follower)"
	for _, c := range []struct {
		a    fault.Action
		want string // "" resolves
		role string
	}{
		{a: fault.Action{Type: fault.KillLeader}},
		{a: fault.Action{Type: fault.KillAgent, TargetID: "raft-3"}},
		{a: fault.Action{Type: fault.KillAgent, TargetID: "any"}},
		{a: fault.Action{Type: fault.KillAgent, TargetID: "random"}},
		{a: fault.Action{Type: fault.KillAgent, TargetID: "not:leader"}},
		{a: fault.Action{Type: fault.NetworkPartition, TargetID: "type:follower"}},
		{a: fault.Action{Type: fault.NetworkPartition, TargetID: "worker-1"},
			want: `"worker-1": no agent has that ID (` + listed + `); target an agent it lists, or a role or selector that fits any system: type:<type>, not:<type> (not:leader: anyone but the leader) or any`},
		{a: fault.Action{Type: fault.KillAgent, TargetID: "type:worker"},
			want: `"type:worker": no agent has type worker (` + listed + `); use a type it lists, not:<type> or any`},
		{a: fault.Action{Type: fault.KillOrchestrator}, role: fault.TypeOrchestrator,
			want: `kill_orchestrator hits the orchestrator, and no agent holds that role (` + listed + `); if the system elects its orchestrator later, resolve roles live (fault.WithRoles, sim.World.SetRoles) and give it a warmup; if it has no orchestrator, leave this fault out`},
		{a: fault.Action{Type: fault.KillAgent, TargetID: "type:orchestrator"}, role: fault.TypeOrchestrator,
			want: `"type:orchestrator": no agent has type orchestrator (` + listed + `); if the system elects its orchestrator later, resolve roles live (fault.WithRoles, sim.World.SetRoles) and give it a warmup; if it has no orchestrator, leave this fault out`},
		{a: fault.Action{Type: fault.MCPDisconnect, TargetID: "worker-1"}}, // unsupported: not Check's to say
	} {
		err := tg.Check(c.a)
		var te *fault.TargetError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%s %q) = %v, want nil", c.a.Type, c.a.TargetID, err)
		case c.want == "":
		case err == nil || err.Error() != c.want:
			t.Errorf("Check(%s %q) = %v, want\n%s", c.a.Type, c.a.TargetID, err, c.want)
		case !errors.Is(err, fault.ErrNoTarget) || !errors.As(err, &te) || te.Role != c.role:
			t.Errorf("Check(%s %q) = %#v, want a *TargetError (role %q) wrapping ErrNoTarget", c.a.Type, c.a.TargetID, err, c.role)
		}
	}
}

// TestTargetsCheckBoundsTheListing: a large system is named by its first
// agents and a count by type, not agent by agent.
func TestTargetsCheckBoundsTheListing(t *testing.T) {
	rt := &raftLike{}
	for i := range 1000 {
		rt.agents = append(rt.agents, fault.AgentInfo{ID: "n" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Type: "node"})
	}
	in := fault.NewInjectorFor(rt)
	tg, err := in.Targets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	err = tg.Check(fault.Action{Type: fault.KillAgent, TargetID: "worker-1"})
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), "and 988 more; 1000 agents: node ×1000") {
		t.Errorf("Check = %v, want the first 12 agents and a count by type", err)
	}
}

// TestNotLeaderSelector: not:leader picks among the others, and two
// partitions of not:leader cut two agents off while the first is not lifted.
func TestNotLeaderSelector(t *testing.T) {
	for seed := range uint64(20) {
		rt := newRaftLike()
		in := fault.NewInjectorFor(rt)
		rng := rand.New(rand.NewPCG(seed, 0))
		ctx := context.Background()
		a := fault.Action{Type: fault.NetworkPartition, TargetID: "not:leader", Metadata: map[string]any{"duration": "5s"}}
		first, p, err := in.Prepare(ctx, a, rng)
		if err != nil {
			t.Fatal(err)
		}
		lift, err := in.Inject(ctx, first, p)
		if err != nil {
			t.Fatal(err)
		}
		second, _, err := in.Prepare(ctx, a, rng)
		if err != nil {
			t.Fatal(err)
		}
		if first.TargetID == "raft-2" || second.TargetID == "raft-2" || first.TargetID == second.TargetID {
			t.Fatalf("seed %d: not:leader picked %s then %s, want the two followers", seed, first.TargetID, second.TargetID)
		}
		// Once lifted, the first follower may be picked again.
		if err := lift(ctx); err != nil || len(rt.lifted) != 1 {
			t.Fatalf("lift = %v, lifted %v", err, rt.lifted)
		}
		picked := map[string]bool{}
		for range 20 {
			again, _, _ := in.Prepare(ctx, a, rng)
			picked[again.TargetID] = true
		}
		if !picked[first.TargetID] {
			t.Errorf("seed %d: after the lift, %s is never picked again (picked %v)", seed, first.TargetID, picked)
		}
	}
}

// TestFailedLiftKeepsTheTargetBusy: a lift that fails leaves the fault in
// place, so a second not:leader partition still picks the other follower.
func TestFailedLiftKeepsTheTargetBusy(t *testing.T) {
	for seed := range uint64(20) {
		rt := newRaftLike()
		in := fault.NewInjectorFor(rt)
		rng := rand.New(rand.NewPCG(seed, 0))
		ctx := context.Background()
		a := fault.Action{Type: fault.NetworkPartition, TargetID: "not:leader", Metadata: map[string]any{"duration": "5s"}}
		first, p, err := in.Prepare(ctx, a, rng)
		if err != nil {
			t.Fatal(err)
		}
		lift, err := in.Inject(ctx, first, p)
		if err != nil {
			t.Fatal(err)
		}
		rt.liftErr = errors.New("link down")
		if err := lift(ctx); err == nil {
			t.Fatal("lift succeeded, want its error")
		}
		for range 5 {
			second, _, err := in.Prepare(ctx, a, rng)
			if err != nil {
				t.Fatal(err)
			}
			if second.TargetID == first.TargetID {
				t.Fatalf("seed %d: not:leader picked %s again after its partition's lift failed", seed, first.TargetID)
			}
		}
	}
}

// TestSelectorValidation: not: needs a type and names agents only; any
// fits a node and an edge's ends.
func TestSelectorValidation(t *testing.T) {
	for _, c := range []struct {
		a    fault.Action
		want string
	}{
		{fault.Action{Type: fault.KillAgent, TargetID: "not:"}, `target_id: selector "not:" names no agent type`},
		{fault.Action{Type: fault.RemoveNode, TargetID: "not:leader"}, `target_id: selector "not:leader" is only allowed for agent targets`},
		{fault.Action{Type: fault.KillAgent, TargetID: "not:leader"}, ""},
		{fault.Action{Type: fault.RemoveNode, TargetID: "any"}, ""},
		{fault.Action{Type: fault.RemoveEdge, SourceID: "any", TargetID: "any"}, ""},
	} {
		err := c.a.Validate()
		if got := errText(err); got != c.want {
			t.Errorf("Validate(%+v) = %q, want %q", c.a, got, c.want)
		}
	}
	for _, id := range []string{"any", "random", "type:x", "not:x"} {
		if !fault.IsSelector(id) {
			t.Errorf("IsSelector(%q) = false", id)
		}
	}
	if fault.IsSelector("worker-1") {
		t.Error(`IsSelector("worker-1") = true`)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// dag is a DAG provider of three nodes in a chain.
type dag struct{ removed []fault.Edge }

func (d *dag) ListNodes(context.Context) ([]string, error) { return []string{"c", "a", "b"}, nil }
func (d *dag) ListEdges(context.Context) ([]fault.Edge, error) {
	return []fault.Edge{{Source: "b", Target: "c"}, {Source: "a", Target: "b"}}, nil
}
func (d *dag) RemoveNode(context.Context, string) error { return nil }
func (d *dag) RemoveEdge(_ context.Context, s, t string) error {
	d.removed = append(d.removed, fault.Edge{Source: s, Target: t})
	return nil
}

// TestDAGTargets: any edge and any node resolve to ones the DAG lists, and
// names it does not list are refused before a run.
func TestDAGTargets(t *testing.T) {
	in := fault.NewInjectorFor(nil, fault.WithDAG(&dag{}))
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	a, _, err := in.Prepare(ctx, fault.Action{Type: fault.RemoveEdge, SourceID: "any", TargetID: "any"}, rng)
	if err != nil || !(a.SourceID == "a" && a.TargetID == "b" || a.SourceID == "b" && a.TargetID == "c") {
		t.Errorf("any edge = %s->%s, %v, want a listed edge", a.SourceID, a.TargetID, err)
	}
	a, _, err = in.Prepare(ctx, fault.Action{Type: fault.RemoveEdge, SourceID: "b", TargetID: "any"}, rng)
	if err != nil || a.TargetID != "c" {
		t.Errorf("edge from b = %s->%s, %v, want b->c", a.SourceID, a.TargetID, err)
	}
	tg, err := in.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a    fault.Action
		want string
	}{
		{fault.Action{Type: fault.RemoveNode, TargetID: "any"}, ""},
		{fault.Action{Type: fault.RemoveNode, TargetID: "worker-3"}, `"worker-3": the DAG has no such node (the DAG lists a, b, c); target a node it lists, or any`},
		{fault.Action{Type: fault.RemoveEdge, SourceID: "a", TargetID: "b"}, ""},
		{fault.Action{Type: fault.RemoveEdge, SourceID: "orchestrator-0", TargetID: "b"}, `"orchestrator-0->b": the DAG has no such edge (the DAG lists a->b, b->c); cut an edge it lists, or any edge (source_id and target_id any)`},
	} {
		if got := errText(tg.Check(c.a)); got != c.want {
			t.Errorf("Check(%s %s) = %q, want %q", c.a.Type, c.a.TargetText(), got, c.want)
		}
	}
}

// TestWithoutAgents: a test's own node is never picked by a selector, and
// a target naming it is refused before a run.
func TestWithoutAgents(t *testing.T) {
	rt := newRaftLike()
	rt.agents = append(rt.agents, fault.AgentInfo{ID: "client", Type: "client", Status: fault.StatusRunning})
	in := fault.NewInjectorFor(rt, fault.WithoutAgents("client"))
	ctx := context.Background()
	for seed := range uint64(30) {
		a, _, err := in.Prepare(ctx, fault.Action{Type: fault.KillAgent, TargetID: "not:leader"}, rand.New(rand.NewPCG(seed, 1)))
		if err != nil || a.TargetID == "client" {
			t.Fatalf("seed %d: not:leader = %q, %v, want a follower", seed, a.TargetID, err)
		}
	}
	tg, err := in.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Check(fault.Action{Type: fault.KillAgent, TargetID: "client"}); !errors.Is(err, fault.ErrNoTarget) {
		t.Errorf("Check(kill_agent client) = %v, want ErrNoTarget", err)
	}
	if len(rt.agents) != 4 {
		t.Errorf("the runtime's own list changed: %v", rt.agents)
	}
}
