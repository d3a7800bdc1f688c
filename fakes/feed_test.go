package fakes

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ares-arena/arena/fault"
)

// TestFeedsFollowLists drives a cluster with random faults, lifts and time
// and keeps copies of its agents, nodes and edges through the feeds alone,
// looking at random intervals (some long enough that the logs forget the
// cursor and send everything); at each look the copies must equal the
// lists.
func TestFeedsFollowLists(t *testing.T) {
	s := newClusterSim(t, WithWorkers(9), WithSeed(5))
	c, ctx := s.c, context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	var (
		agents                  []fault.AgentInfo
		nodes                   []fault.NodeChange
		edges                   []fault.EdgeChange
		agentCur, nodeCur, eCur uint64
		book                    liftBook
		fulls, partials         int
	)
	put := func(n int, i int) {
		if i >= n {
			t.Fatalf("feed index %d of a list of %d", i, n)
		}
	}
	all, _ := c.ListAgents(ctx)
	canon, _ := c.ListEdges(ctx)
	for step := range 4000 {
		a, b := all[rng.IntN(len(all))], canon[rng.IntN(len(canon))]
		chaosOp(c, &book, rng.IntN(chaosOps+2), 1+rng.IntN(3), a.ID, a.ID, b, liftable[rng.IntN(len(liftable))])
		s.clock.Advance(time.Duration(rng.IntN(8)) * probeStep)
		if rng.IntN(1+step%200) != 0 { // sometimes every step, sometimes after hundreds
			continue
		}
		ac, cur, err := c.AppendAgentChanges(ctx, agentCur, nil)
		if err != nil {
			t.Fatal(err)
		}
		if agents == nil {
			agents = make([]fault.AgentInfo, len(all))
		}
		if len(ac) == len(all) {
			fulls++
		} else {
			partials++
		}
		for _, ch := range ac {
			put(len(agents), ch.Index)
			agents[ch.Index] = ch.Agent
		}
		agentCur = cur
		nc, cur, err := c.AppendNodeChanges(ctx, nodeCur, nil)
		if err != nil {
			t.Fatal(err)
		}
		if nodes == nil {
			nodes = make([]fault.NodeChange, len(all))
		}
		for _, ch := range nc {
			put(len(nodes), ch.Index)
			nodes[ch.Index] = ch
		}
		nodeCur = cur
		ec, cur, err := c.AppendEdgeChanges(ctx, eCur, nil)
		if err != nil {
			t.Fatal(err)
		}
		if edges == nil {
			edges = make([]fault.EdgeChange, len(canon))
		}
		for _, ch := range ec {
			put(len(edges), ch.Index)
			edges[ch.Index] = ch
		}
		eCur = cur

		if want, _ := c.ListAgents(ctx); !slices.Equal(agents, want) {
			t.Fatalf("step %d: agents through the feed\n%v\nlisted\n%v", step, agents, want)
		}
		var present []string
		for _, n := range nodes {
			if n.Present {
				present = append(present, n.ID)
			}
		}
		if want, _ := c.ListNodes(ctx); !slices.Equal(present, want) {
			t.Fatalf("step %d: nodes through the feed %v, listed %v", step, present, want)
		}
		var pe []fault.Edge
		for _, e := range edges {
			if e.Present {
				pe = append(pe, e.Edge)
			}
		}
		if want, _ := c.ListEdges(ctx); !slices.Equal(pe, want) {
			t.Fatalf("step %d: edges through the feed %v, listed %v", step, pe, want)
		}
	}
	if fulls < 2 || partials < 50 {
		t.Fatalf("%d full and %d partial looks: the test did not exercise both", fulls, partials)
	}
}

// A cursor of another cluster, or one from the future, gets everything;
// a cancelled context gets dst back and the error.
func TestFeedCursors(t *testing.T) {
	ctx := context.Background()
	c := NewCluster(WithWorkers(3))
	_, cur, _ := c.AppendAgentChanges(ctx, 0, nil)
	got, again, err := c.AppendAgentChanges(ctx, cur, nil)
	if err != nil || len(got) != 0 || again != cur {
		t.Errorf("nothing changed: %v, %d, %v; want no agents and cursor %d", got, again, err, cur)
	}
	if got, _, _ := c.AppendAgentChanges(ctx, cur+1000, nil); len(got) != 5 {
		t.Errorf("a cursor from the future got %d agents, want all 5", len(got))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	dst := []fault.AgentChange{{Index: 7}}
	if got, _, err := c.AppendAgentChanges(cctx, 0, dst); err == nil || len(got) != 1 {
		t.Errorf("cancelled: %v, %v; want dst and the error", got, err)
	}
}
