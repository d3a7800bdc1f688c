package fakes_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fakes"
)

// effects shows each built-in fault type on the fake cluster: what the
// fault changes in the agent's state (Cluster.Agent) or the DAG. The
// conformance test lands every type and checks its effect with these;
// TestEveryTypeHasAnEffect keeps the table whole, so a new type asks for
// its effect here.
var effects = map[arena.ActionType]func(c *fakes.Cluster, st fakes.AgentState, a arena.Action) bool{
	arena.ActionKillLeader:       killed,
	arena.ActionKillOrchestrator: killed,
	arena.ActionKillAgent:        killed,
	arena.ActionPauseAgent: func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool {
		return st.Status == arena.StatusPaused
	},
	arena.ActionResumeAgent: func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool {
		return st.Status == arena.StatusRunning
	},
	arena.ActionSlowAgent:        func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.SlowDelay > 0 },
	arena.ActionNetworkPartition: func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.Partitioned },
	arena.ActionToolTimeout:      func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.ToolTimeout > 0 },
	arena.ActionMemoryCorrupt:    func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.MemoryCorrupted },
	arena.ActionMCPDisconnect:    func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.MCPDisconnected },
	arena.ActionLLMFailure:       func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.LLMFailure != "" },
	arena.ActionRemoveNode: func(c *fakes.Cluster, _ fakes.AgentState, a arena.Action) bool {
		nodes, _ := c.ListNodes(context.Background())
		return !slices.Contains(nodes, a.TargetID)
	},
	arena.ActionRemoveEdge: func(c *fakes.Cluster, _ fakes.AgentState, a arena.Action) bool {
		edges, _ := c.ListEdges(context.Background())
		return !slices.Contains(edges, arena.Edge{Source: a.SourceID, Target: a.TargetID})
	},
	arena.ActionNetworkLatency:   func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.Latency.Latency > 0 },
	arena.ActionNetworkBandwidth: func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.Bandwidth > 0 },
	arena.ActionConnectionReset:  func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.Resetting },
	arena.ActionClockJump:        func(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool { return st.ClockOffset > 0 },
}

func killed(_ *fakes.Cluster, st fakes.AgentState, _ arena.Action) bool {
	return st.Status == arena.StatusStopped || st.Restarts > 0
}

// TestEveryTypeHasAnEffect: the fake cluster lands every built-in type, so
// each needs its effect in the table above.
func TestEveryTypeHasAnEffect(t *testing.T) {
	for _, s := range arena.FaultSpecs() {
		if effects[s.Type] == nil {
			t.Errorf("%s: no effect in fakes' effects: land it in the fake cluster, and say there what it changes", s.Type)
		}
	}
}

// TestConformance: the fake cluster passes arenatest's conformance suite,
// every built-in type landed with its effect seen (and, for those arena
// lifts, gone once lifted). On a virtual clock, so that no self-healing
// runs between a landing and its check.
func TestConformance(t *testing.T) {
	var observe []arenatest.Effect[*fakes.Cluster]
	for typ, seen := range effects {
		observe = append(observe, arenatest.Observe(typ, func(_ context.Context, c *fakes.Cluster, a arena.Action) (bool, error) {
			st, _ := c.Agent(a.TargetID)
			return seen(c, st, a), nil
		}))
	}
	arenatest.TestRuntime(t, func(t *testing.T) *fakes.Cluster {
		return fakes.NewCluster(fakes.WithClock(arena.NewVirtualClock(time.Time{})))
	}, observe...)
}

// TestConformanceOneWorker: a cluster of one worker, on the wall clock,
// passes as well (the Faults subtests take more runtimes).
func TestConformanceOneWorker(t *testing.T) {
	arenatest.TestRuntime(t, func(t *testing.T) *fakes.Cluster { return fakes.NewCluster(fakes.WithWorkers(1)) })
}

// TestDocumentsEveryType: the package documentation's table of faults
// says what each built-in type does to the cluster and what heals it.
func TestDocumentsEveryType(t *testing.T) {
	src, err := os.ReadFile("cluster.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range arena.FaultSpecs() {
		if !regexp.MustCompile(`(?m)^//\t` + string(s.Type) + ` `).Match(src) {
			t.Errorf("%s: no row in the fault table of the package documentation (cluster.go)", s.Type)
		}
	}
}
