package arenatest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fakes"
)

// TestFatalMidRunRollsBack: a test that ends by t.Fatal in the middle of a
// run (here from the probe, on the run's goroutine) leaves no fault in
// place: every liftable fault of the run, an hour long, is lifted.
func TestFatalMidRunRollsBack(t *testing.T) {
	clock := arena.NewVirtualClock(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clock), fakes.WithoutHealing(), fakes.WithWorkers(6))
	types := []arena.ActionType{arena.ActionPauseAgent, arena.ActionSlowAgent, arena.ActionNetworkPartition,
		arena.ActionToolTimeout, arena.ActionMCPDisconnect, arena.ActionLLMFailure}
	sc := &arena.Scenario{Name: "fatal-mid-run", Config: arena.ScenarioConfig{Cooldown: arena.Duration(2 * time.Hour)}}
	for i, typ := range types {
		sc.Actions = append(sc.Actions, arena.ScenarioStep{Delay: arena.Duration(time.Second),
			Action: arena.Action{Type: typ, TargetID: fmt.Sprintf("worker-%d", i+1), Metadata: map[string]any{"duration": "1h"}}})
	}
	fatalAt := clock.Now().Add(time.Minute)
	var probeErr error
	r := record("fatal", func(t arenatest.TB) {
		arenatest.Run(t, sc, arenatest.WithRuntime(cluster), arenatest.WithSeed(1),
			arenatest.WithProbe(func(ctx context.Context) error {
				if !clock.Now().Before(fatalAt) {
					probeErr = cluster.Probe(ctx) // the faults are in place now
					t.Errorf("fatal at %s", clock.Now().Sub(arena.VirtualEpoch()))
					t.FailNow()
				}
				return cluster.Probe(ctx)
			}))
		t.Errorf("Run returned after FailNow")
	})
	if !r.stopped || r.errorText() != "fatal at 1m0s" {
		t.Fatalf("recorder: stopped %v, errors %q", r.stopped, r.errorText())
	}
	if probeErr == nil {
		t.Error("the system was healthy at the t.Fatal: the faults had not landed")
	}
	agents, _ := cluster.ListAgents(context.Background())
	for _, ag := range agents {
		a, _ := cluster.Agent(ag.ID)
		if a.Status == arena.StatusPaused || a.SlowDelay > 0 || a.Partitioned || a.ToolTimeout > 0 || a.MCPDisconnected || a.LLMFailure != "" {
			t.Errorf("%s still faulted after the test ended: %+v", a.ID, a)
		}
	}
}

// WithAbortWhen stops a run whose system stays down, and the test fails
// with the reason; Survive likewise.
func TestWithAbortWhen(t *testing.T) {
	sc := &arena.Scenario{Name: "down", Config: arena.ScenarioConfig{Cooldown: arena.Duration(5 * time.Minute)},
		Actions: []arena.ScenarioStep{{Delay: arena.Duration(time.Second), Action: arena.Action{Type: arena.ActionKillLeader}}}}
	abort := arenatest.WithAbortWhen(arena.AbortWhen{UnhealthyFor: arena.Duration(10 * time.Second)})
	var rep *arena.ScenarioReport
	r := record("run", func(t arenatest.TB) {
		rep = arenatest.Run(t, sc, arenatest.WithSeed(2), arenatest.WithCluster(fakes.WithoutHealing()), abort)
	})
	const why = "aborted: abort_when.unhealthy_for: unhealthy for 10s since 1s (leader unavailable: leader-0 stopped)"
	if rep == nil || rep.Outcome != arena.OutcomeAborted || !strings.Contains(r.errorText(), why) {
		t.Errorf("Run: outcome %v, errors:\n%s\nwant %q", rep.Outcome, r.errorText(), why)
	}

	var srep *arena.SurvivalReport
	r = record("survive", func(t arenatest.TB) {
		srep = arenatest.Survive(t, arena.SurvivalConfig{Duration: time.Hour, Interval: 10 * time.Second,
			Mix: map[arena.ActionType]float64{arena.ActionKillLeader: 1}}, arenatest.WithSeed(2), arenatest.WithCluster(fakes.WithoutHealing()), abort)
	})
	if srep == nil || srep.Ending != arena.SurvivalAborted || !strings.Contains(r.errorText(), "aborted: abort_when.unhealthy_for") {
		t.Errorf("Survive: ending %v, errors:\n%s", srep.Ending, r.errorText())
	}
}
