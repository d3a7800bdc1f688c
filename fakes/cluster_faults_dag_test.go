package fakes

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/fault"
)

func TestRemoveNode(t *testing.T) {
	t.Run("repaired after 1s", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.must(s.c.RemoveNode(bgCtx, "worker-2"))
		nodes, _ := s.c.ListNodes(bgCtx)
		edges, _ := s.c.ListEdges(bgCtx)
		if strings.Contains(strings.Join(nodes, " "), "worker-2") || len(edges) != 3 {
			t.Errorf("after RemoveNode: nodes %v, edges %v", nodes, edges)
		}
		want := map[string]string{"dag": "dag differs from canonical: missing node worker-2"}
		if diff := cmp.Diff(want, s.checks()); diff != "" {
			t.Errorf("checks (-want +got):\n%s", diff)
		}
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "dag broken: missing node worker-2"},
			{time.Second, ""},
		})
		if edges, _ := s.c.ListEdges(bgCtx); len(edges) != 4 {
			t.Errorf("edges after repair: %v", edges)
		}
	})
	t.Run("worker gets no tasks", func(t *testing.T) {
		s := newClusterSim(t, WithoutDAGRepair())
		s.advance(faultAt)
		s.must(s.c.RemoveNode(bgCtx, "worker-2"))
		wantTimeline(t, s, 10*time.Second, []probeChange{{0, "dag broken: missing node worker-2"}})
		if got := inFlightOn(s.c, "worker-2"); got != 0 {
			t.Errorf("tasks on worker-2 = %d, want 0", got)
		}
		if st := s.c.Tasks(); st.Failed != 0 || st.Queued > 1 {
			t.Errorf("Tasks() = %+v, want the others to take the load", st)
		}
	})
	t.Run("orchestrator node", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.must(s.c.RemoveNode(bgCtx, "orchestrator-0"))
		s.advance(900 * time.Millisecond)
		if st := s.c.Tasks(); st.Queued == 0 {
			t.Errorf("Tasks() = %+v, want tasks queued while no worker is reachable", st)
		}
		s.advance(probeStep)
		if st := s.c.Tasks(); st.Queued != 0 {
			t.Errorf("Tasks() after repair = %+v, want the queue drained", st)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		s.must(s.c.RemoveNode(bgCtx, "worker-2"))
		if err := s.c.RemoveNode(bgCtx, "worker-2"); !errors.Is(err, fault.ErrCannotLand) {
			t.Errorf("RemoveNode(removed) = %v, want ErrCannotLand", err)
		}
		err := s.c.RemoveNode(bgCtx, "nope")
		if !errors.Is(err, ErrNoNode) || err.Error() != `fakes: node "nope": no such node` {
			t.Errorf("RemoveNode(unknown) = %v, want ErrNoNode", err)
		}
	})
}

func TestRemoveEdge(t *testing.T) {
	t.Run("repaired after 1s", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.must(s.c.RemoveEdge(bgCtx, "orchestrator-0", "worker-2"))
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "dag broken: missing edge orchestrator-0->worker-2"},
			{time.Second, ""},
		})
	})
	t.Run("without repair", func(t *testing.T) {
		s := newClusterSim(t, WithoutDAGRepair())
		s.advance(faultAt)
		s.must(s.c.RemoveEdge(bgCtx, "leader-0", "orchestrator-0"))
		wantTimeline(t, s, time.Minute, []probeChange{{0, "dag broken: missing edge leader-0->orchestrator-0"}})
		want := map[string]string{"dag": "dag differs from canonical: missing edge leader-0->orchestrator-0"}
		if diff := cmp.Diff(want, s.checks()); diff != "" {
			t.Errorf("checks (-want +got):\n%s", diff)
		}
	})
	t.Run("node and edge", func(t *testing.T) {
		s := newClusterSim(t, WithDAGRepair(time.Second))
		s.must(s.c.RemoveEdge(bgCtx, "orchestrator-0", "worker-3"))
		s.advance(500 * time.Millisecond)
		s.must(s.c.RemoveNode(bgCtx, "worker-3"))
		if err := s.c.RemoveEdge(bgCtx, "orchestrator-0", "worker-3"); !errors.Is(err, fault.ErrCannotLand) {
			t.Errorf("RemoveEdge(edge of a removed node) = %v, want ErrCannotLand", err)
		}
		// The edge comes back at +0.5s, hidden by its missing node until +1s.
		wantTimeline(t, s, 5*time.Second, []probeChange{
			{0, "dag broken: missing node worker-3"},
			{time.Second, ""},
		})
		if edges, _ := s.c.ListEdges(bgCtx); len(edges) != 4 {
			t.Errorf("edges after repair: %v", edges)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		err := s.c.RemoveEdge(bgCtx, "worker-1", "worker-2")
		if !errors.Is(err, ErrNoEdge) || err.Error() != `fakes: edge "worker-1"->"worker-2": no such edge` {
			t.Errorf("RemoveEdge(non-canonical) = %v, want ErrNoEdge", err)
		}
		s.must(s.c.RemoveEdge(bgCtx, "orchestrator-0", "worker-1"))
		if err := s.c.RemoveEdge(bgCtx, "orchestrator-0", "worker-1"); !errors.Is(err, fault.ErrCannotLand) {
			t.Errorf("RemoveEdge(removed) = %v, want ErrCannotLand", err)
		}
	})
}

// TestUnknownAgent: every agent fault on an unknown agent is
// fault.ErrNoAgent, and says which agent.
func TestUnknownAgent(t *testing.T) {
	s := newClusterSim(t)
	in := fault.NewInjectorFor(s.c)
	for _, spec := range fault.Specs() {
		if spec.Target != fault.TargetAgent {
			continue
		}
		a, p, err := in.Prepare(bgCtx, fault.Action{Type: spec.Type, TargetID: "x"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := in.Inject(bgCtx, a, p); !errors.Is(err, fault.ErrNoAgent) || err.Error() != `fakes: agent "x": no such agent` {
			t.Errorf("%s on an unknown agent = %v, want fault.ErrNoAgent", spec.Type, err)
		}
	}
	if _, ok := s.c.Agent("x"); ok {
		t.Error(`Agent("x") found an agent`)
	}
}

// TestLiftTwice: each liftable fault's lift restores the agent, and
// lifting it again changes nothing.
func TestLiftTwice(t *testing.T) {
	for _, spec := range fault.Specs() {
		if !spec.Lifts {
			continue
		}
		s := newClusterSim(t)
		in := fault.NewInjectorFor(s.c)
		before := s.agent("worker-1")
		a, p, err := in.Prepare(bgCtx, fault.Action{Type: spec.Type, TargetID: "worker-1"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		lift := s.land(in.Inject(bgCtx, a, p))
		if s.agent("worker-1") == before {
			t.Errorf("%s landed and changed nothing", spec.Type)
		}
		for i := range 2 {
			s.must(lift(bgCtx))
			if a := s.agent("worker-1"); a != before {
				t.Errorf("%s lifted %d times: %+v, want %+v", spec.Type, i+1, a, before)
			}
		}
	}
}
