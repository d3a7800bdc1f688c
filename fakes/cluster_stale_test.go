package fakes

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/fault"
)

// TestDroppingStaleDeadlinesChangesNothing drives two clusters with the same
// seed through the same random faults, lifts and time; one drops every stale
// deadline after each step, the most it ever could. Their agents, tasks,
// DAG, roles and probe stay equal at every step: what stale calls overtaken
// was, and the rest pop in the same order.
func TestDroppingStaleDeadlinesChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"seed 5", []Option{WithSeed(5)}},
		{"seed 6, no checkpoints", []Option{WithSeed(6), WithoutCheckpoints()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]Option{WithWorkers(6)}, tc.opts...)
			a, b := newClusterSim(t, opts...), newClusterSim(t, opts...)
			ids := make([]string, len(a.c.agents))
			for i := range a.c.agents {
				ids[i] = a.c.agents[i].id
			}
			nodes, _ := a.c.ListNodes(context.Background())
			edges, _ := a.c.ListEdges(context.Background())
			rng := rand.New(rand.NewPCG(7, 8))
			dropped := 0
			books := map[*clusterSim]*liftBook{a: {}, b: {}}
			for step := range 4000 {
				id, op, size, d := ids[rng.IntN(len(ids))], rng.IntN(chaosOps+2), 1+rng.IntN(3), time.Duration(rng.IntN(8))*probeStep
				node, edge := nodes[rng.IntN(len(nodes))], edges[rng.IntN(len(edges))]
				for _, s := range []*clusterSim{a, b} {
					chaosOp(s.c, books[s], op, size, id, node, edge, liftable[step%len(liftable)])
					s.clock.Advance(d)
				}
				b.c.mu.Lock()
				n := len(b.c.events)
				b.c.events.DeleteFunc(b.c.stale)
				dropped += n - len(b.c.events)
				b.c.mu.Unlock()
				if diff := cmp.Diff(clusterView(a.c), clusterView(b.c)); diff != "" {
					t.Fatalf("step %d (op %d on %s): the clusters differ (-kept +dropped):\n%s", step, op, id, diff)
				}
			}
			if dropped == 0 {
				t.Fatal("no deadline was ever stale: the test compared nothing")
			}
			t.Logf("%d stale deadlines dropped", dropped)
		})
	}
}

// view is what a user of a Cluster can see.
type view struct {
	Agents         []AgentState
	Tasks          TaskStats
	Nodes          []string
	Edges          []fault.Edge
	Leader, Orch   string
	Probe          string
	QueuedLiveOnly int // deadlines that are not stale
}

func clusterView(c *Cluster) view {
	ctx := context.Background()
	v := view{Tasks: c.Tasks(), Leader: c.Leader(), Orch: c.Orchestrator()}
	agents, _ := c.ListAgents(ctx)
	for _, ag := range agents {
		st, _ := c.Agent(ag.ID)
		v.Agents = append(v.Agents, st)
	}
	v.Nodes, _ = c.ListNodes(ctx)
	v.Edges, _ = c.ListEdges(ctx)
	if err := c.Probe(ctx); err != nil {
		v.Probe = err.Error()
	}
	c.mu.Lock()
	for i := range c.events {
		if !c.stale(&c.events[i]) {
			v.QueuedLiveOnly++
		}
	}
	c.mu.Unlock()
	return v
}

// Under a clock that does not move, faults landed and lifted over and over
// leave a queue bounded by what is live, not by how many there were.
func TestStaleDeadlinesDoNotPileUp(t *testing.T) {
	s := newClusterSim(t, WithWorkers(4))
	ctx := context.Background()
	for range 100_000 {
		lift := s.land(s.c.PartitionNetwork(ctx, "worker-2"))
		s.must(lift(ctx))
	}
	s.c.mu.Lock()
	n := len(s.c.events)
	s.c.mu.Unlock()
	if n > 2*minCompact {
		t.Errorf("%d deadlines queued after 100,000 partitions lifted at once, want at most %d", n, 2*minCompact)
	}
}
