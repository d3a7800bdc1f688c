package fakes

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ares-arena/arena/fault"
)

// TestIncrementalState drives clusters with random faults, lifts and time,
// and after every step compares what the cluster keeps incrementally (the
// count of available workers the probe reads, the list of agents a
// checkpoint tick looks at) with a walk over every agent.
func TestIncrementalState(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"healing", nil},
		{"no healing", []Option{WithoutHealing()}},
		{"no checkpoints", []Option{WithoutCheckpoints()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newClusterSim(t, append([]Option{WithWorkers(7), WithSeed(3)}, tc.opts...)...)
			c, ctx := s.c, context.Background()
			rng := rand.New(rand.NewPCG(1, 2))
			ids := make([]string, len(c.agents))
			for i := range c.agents {
				ids[i] = c.agents[i].id
			}
			downs, corrupted := 0, 0
			var book liftBook
			for step := range 3000 {
				id := ids[rng.IntN(len(ids))]
				chaosOp(c, &book, rng.IntN(chaosOps+2), 1+rng.IntN(3), id, "", fault.Edge{}, liftable[rng.IntN(len(liftable))])
				s.clock.Advance(time.Duration(rng.IntN(8)) * probeStep)
				_ = c.Probe(ctx)

				c.mu.Lock()
				up := 0
				for i := range c.agents {
					a := &c.agents[i]
					if a.typ == fault.TypeWorker && c.available(i) {
						up++
					}
					if a.corrupted() && !a.listed {
						t.Errorf("step %d: %s corrupted, not on the corrupt list", step, a.id)
					}
					if a.corrupted() {
						corrupted++
					}
					if !a.corrupted() && a.mem != a.ckpt {
						t.Errorf("step %d: %s: memory matches the checksum, not the checkpoint", step, a.id)
					}
				}
				if up != c.upWorkers {
					t.Fatalf("step %d: %d workers available, count says %d", step, up, c.upWorkers)
				}
				if up < c.opts.workers {
					downs++
				}
				if len(c.corrupt) > len(c.agents) {
					t.Errorf("step %d: corrupt list holds %d entries for %d agents", step, len(c.corrupt), len(c.agents))
				}
				c.mu.Unlock()
			}
			if downs == 0 || corrupted == 0 {
				t.Fatalf("the walk never saw a worker down (%d) or a corrupted memory (%d)", downs, corrupted)
			}
		})
	}
}

// The Append methods append what the List methods return, after what dst
// holds, and leave dst alone on a cancelled context.
func TestAppendMatchesList(t *testing.T) {
	s := newClusterSim(t, WithWorkers(4))
	c, ctx := s.c, context.Background()
	s.must(c.RemoveNode(ctx, "worker-2"))
	s.must(c.RemoveEdge(ctx, "orchestrator-0", "worker-3"))
	s.land(c.PauseAgent(ctx, "worker-1"))

	agents, _ := c.ListAgents(ctx)
	gotAgents, err := c.AppendAgents(ctx, []fault.AgentInfo{{ID: "x"}})
	if err != nil || len(gotAgents) != len(agents)+1 || gotAgents[0].ID != "x" || !slices.Equal(gotAgents[1:], agents) {
		t.Errorf("AppendAgents = %v, %v; want x then %v", gotAgents, err, agents)
	}
	nodes, _ := c.ListNodes(ctx)
	gotNodes, err := c.AppendNodes(ctx, []string{"x"})
	if err != nil || !slices.Equal(gotNodes, append([]string{"x"}, nodes...)) || slices.Contains(nodes, "worker-2") {
		t.Errorf("AppendNodes = %v, %v; ListNodes %v", gotNodes, err, nodes)
	}
	edges, _ := c.ListEdges(ctx)
	gotEdges, err := c.AppendEdges(ctx, []fault.Edge{{Source: "x"}})
	if err != nil || !slices.Equal(gotEdges, append([]fault.Edge{{Source: "x"}}, edges...)) || len(edges) != 3 {
		t.Errorf("AppendEdges = %v, %v; ListEdges %v (want 3 of the 5 canonical edges: a removed node hides its edge)", gotEdges, err, edges)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if got, err := c.AppendAgents(cctx, []fault.AgentInfo{{ID: "x"}}); err == nil || len(got) != 1 {
		t.Errorf("AppendAgents on a cancelled context = %v, %v; want dst and the error", got, err)
	}
}
