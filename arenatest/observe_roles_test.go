package arenatest_test

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// TestWithObserveAndWithRoles: the observation settings reach the run, and
// the role resolver decides whom kill_leader hits.
func TestWithObserveAndWithRoles(t *testing.T) {
	roles := func(_ context.Context, agents []fault.AgentInfo) ([]fault.AgentInfo, error) {
		for i := range agents {
			switch agents[i].ID {
			case "worker-2":
				agents[i].Type = fault.TypeLeader
			case "leader-0":
				agents[i].Type = fault.TypeWorker
			}
		}
		return agents, nil
	}
	var def, tuned *scenario.Report
	record("TestObserve", func(t arenatest.TB) {
		def = arenatest.Run(t, "leader-failover", arenatest.WithSeed(7))
		tuned = arenatest.Run(t, "leader-failover", arenatest.WithSeed(7),
			arenatest.WithObserve(engine.ObserveOptions{ProbeInterval: 500 * time.Millisecond}), arenatest.WithRoles(roles))
	})
	if def == nil || tuned == nil {
		t.Fatal("Run returned no report")
	}
	if def.Report.Samples != 5*(tuned.Report.Samples-1)+1 {
		t.Errorf("samples: default %d, WithObserve(500ms) %d; want 5:1", def.Report.Samples, tuned.Report.Samples)
	}
	if got := tuned.Steps[0].Result.Action.TargetID; got != "worker-2" {
		t.Errorf("kill_leader with WithRoles hit %s, want worker-2 (the resolver's leader)", got)
	}
}
