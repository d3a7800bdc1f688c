package arenatest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// TestFatalMidRunRollsBack: a test that ends by t.Fatal in the middle of a
// run (here from the probe, on the run's goroutine) leaves no fault in
// place: every liftable fault of the run, an hour long, is lifted.
func TestFatalMidRunRollsBack(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithoutHealing(), fakes.WithWorkers(6))
	types := []fault.Type{fault.PauseAgent, fault.SlowAgent, fault.NetworkPartition,
		fault.ToolTimeout, fault.MCPDisconnect, fault.LLMFailure}
	sc := &scenario.Scenario{Name: "fatal-mid-run", Config: scenario.Config{Cooldown: clock.Duration(2 * time.Hour)}}
	for i, typ := range types {
		sc.Actions = append(sc.Actions, scenario.Step{Delay: clock.Duration(time.Second),
			Action: fault.Action{Type: typ, TargetID: fmt.Sprintf("worker-%d", i+1), Metadata: map[string]any{"duration": "1h"}}})
	}
	fatalAt := clk.Now().Add(time.Minute)
	var probeErr error
	r := record("fatal", func(t arenatest.TB) {
		arenatest.Run(t, sc, arenatest.WithRuntime(cluster), arenatest.WithSeed(1),
			arenatest.WithProbe(func(ctx context.Context) error {
				if !clk.Now().Before(fatalAt) {
					probeErr = cluster.Probe(ctx) // the faults are in place now
					t.Errorf("fatal at %s", clk.Now().Sub(clock.VirtualEpoch()))
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
		if a.Status == fault.StatusPaused || a.SlowDelay > 0 || a.Partitioned || a.ToolTimeout > 0 || a.MCPDisconnected || a.LLMFailure != "" {
			t.Errorf("%s still faulted after the test ended: %+v", a.ID, a)
		}
	}
}

// WithAbortWhen stops a run whose system stays down, and the test fails
// with the reason; Survive likewise.
func TestWithAbortWhen(t *testing.T) {
	sc := &scenario.Scenario{Name: "down", Config: scenario.Config{Cooldown: clock.Duration(5 * time.Minute)},
		Actions: []scenario.Step{{Delay: clock.Duration(time.Second), Action: fault.Action{Type: fault.KillLeader}}}}
	abort := arenatest.WithAbortWhen(engine.AbortWhen{UnhealthyFor: clock.Duration(10 * time.Second)})
	var rep *scenario.Report
	r := record("run", func(t arenatest.TB) {
		rep = arenatest.Run(t, sc, arenatest.WithSeed(2), arenatest.WithCluster(fakes.WithoutHealing()), abort)
	})
	const why = "aborted: abort_when.unhealthy_for: unhealthy for 10s since 1s (leader unavailable: leader-0 stopped)"
	if rep == nil || rep.Outcome != scenario.OutcomeAborted || !strings.Contains(r.errorText(), why) {
		t.Errorf("Run: outcome %v, errors:\n%s\nwant %q", rep.Outcome, r.errorText(), why)
	}

	var srep *engine.SurvivalReport
	r = record("survive", func(t arenatest.TB) {
		srep = arenatest.Survive(t, engine.SurvivalConfig{Duration: time.Hour, Interval: 10 * time.Second,
			Mix: map[fault.Type]float64{fault.KillLeader: 1}}, arenatest.WithSeed(2), arenatest.WithCluster(fakes.WithoutHealing()), abort)
	})
	if srep == nil || srep.Ending != engine.SurvivalAborted || !strings.Contains(r.errorText(), "aborted: abort_when.unhealthy_for") {
		t.Errorf("Survive: ending %v, errors:\n%s", srep.Ending, r.errorText())
	}
}
