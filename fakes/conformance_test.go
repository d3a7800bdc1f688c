package fakes_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// effects shows each built-in fault type on the fake cluster: what the
// fault changes in the agent's state (Cluster.Agent) or the DAG. The
// conformance test lands every type and checks its effect with these;
// TestEveryTypeHasAnEffect keeps the table whole, so a new type asks for
// its effect here.
var effects = map[fault.Type]func(c *fakes.Cluster, st fakes.AgentState, a fault.Action) bool{
	fault.KillLeader:       killed,
	fault.KillOrchestrator: killed,
	fault.KillAgent:        killed,
	fault.PauseAgent: func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool {
		return st.Status == fault.StatusPaused
	},
	fault.ResumeAgent: func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool {
		return st.Status == fault.StatusRunning
	},
	fault.SlowAgent:        func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.SlowDelay > 0 },
	fault.NetworkPartition: func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.Partitioned },
	fault.ToolTimeout:      func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.ToolTimeout > 0 },
	fault.MemoryCorrupt:    func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.MemoryCorrupted },
	fault.MCPDisconnect:    func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.MCPDisconnected },
	fault.LLMFailure:       func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.LLMFailure != "" },
	fault.RemoveNode: func(c *fakes.Cluster, _ fakes.AgentState, a fault.Action) bool {
		nodes, _ := c.ListNodes(context.Background())
		return !slices.Contains(nodes, a.TargetID)
	},
	fault.RemoveEdge: func(c *fakes.Cluster, _ fakes.AgentState, a fault.Action) bool {
		edges, _ := c.ListEdges(context.Background())
		return !slices.Contains(edges, fault.Edge{Source: a.SourceID, Target: a.TargetID})
	},
	fault.NetworkLatency:   func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.Latency.Latency > 0 },
	fault.NetworkBandwidth: func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.Bandwidth > 0 },
	fault.ConnectionReset:  func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.Resetting },
	fault.ClockJump:        func(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool { return st.ClockOffset > 0 },
}

func killed(_ *fakes.Cluster, st fakes.AgentState, _ fault.Action) bool {
	return st.Status == fault.StatusStopped || st.Restarts > 0
}

// TestEveryTypeHasAnEffect: the fake cluster lands every built-in type, so
// each needs its effect in the table above.
func TestEveryTypeHasAnEffect(t *testing.T) {
	for _, s := range fault.Specs() {
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
		observe = append(observe, arenatest.Observe(typ, func(_ context.Context, c *fakes.Cluster, a fault.Action) (bool, error) {
			st, _ := c.Agent(a.TargetID)
			return seen(c, st, a), nil
		}))
	}
	arenatest.TestRuntime(t, func(t *testing.T) *fakes.Cluster {
		return fakes.NewCluster(fakes.WithClock(clock.NewVirtual(time.Time{})))
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
	for _, s := range fault.Specs() {
		if !regexp.MustCompile(`(?m)^//\t` + string(s.Type) + ` `).Match(src) {
			t.Errorf("%s: no row in the fault table of the package documentation (cluster.go)", s.Type)
		}
	}
}

// TestDocumentsEveryLift: the fault table's row of a type says "its lift"
// exactly when arena lifts the type, as the package documentation tells
// the reader to look there.
func TestDocumentsEveryLift(t *testing.T) {
	src, err := os.ReadFile("cluster.go")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[fault.Type]string{} // type → its row's lines
	var row fault.Type
	for line := range strings.Lines(string(src)) {
		cell, ok := strings.CutPrefix(line, "//\t")
		switch {
		case !ok:
			row = ""
		case cell != "" && cell[0] != ' ':
			row = fault.Type(strings.Fields(cell)[0])
		}
		if row != "" {
			rows[row] += cell
		}
	}
	for _, s := range fault.Specs() {
		if got := strings.Contains(rows[s.Type], "its lift"); got != s.Lifts {
			t.Errorf("%s: row says \"its lift\" = %v, want %v (FaultSpec.Lifts): %q", s.Type, got, s.Lifts, rows[s.Type])
		}
	}
}
