package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// slowStop is a fake cluster whose StopAgent lands at once (a SIGKILL) but
// returns only after a delay, like a container runtime waiting for the
// container to exit.
type slowStop struct {
	*fakes.Cluster
	delay time.Duration
}

func (s slowStop) StopAgent(ctx context.Context, id string) error {
	err := s.Cluster.StopAgent(ctx, id)
	time.Sleep(s.delay)
	return err
}

// TestSlowInjectionCallCountsAgainstItsFault: a leader kill whose call
// returns after the failover has already healed the outage is still a fault
// that degraded the system, timed from the call's start. Before, its time was
// the call's return and it was reported "no impact".
func TestSlowInjectionCallCountsAgainstItsFault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cluster := fakes.NewCluster(fakes.WithSeed(3), fakes.WithFailover(time.Second, 0))
		rt := slowStop{cluster, 2500 * time.Millisecond}
		svc := engine.NewService(fault.NewInjector(rt, nil), nil, nil, engine.WithProbe(cluster.Probe),
			engine.WithObserveOptions(engine.ObserveOptions{SettleTime: 3 * time.Second}))
		rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: 20 * time.Second},
			engine.Step{At: 2 * time.Second, Action: fault.Action{Type: fault.KillLeader}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Faults) != 1 {
			t.Fatalf("faults = %+v, want 1", rep.Faults)
		}
		f := rep.Faults[0]
		if f.At.D() != 2*time.Second || f.InjectDuration.D() != 2500*time.Millisecond {
			t.Errorf("at %s, inject duration %s; want 2s (the call's start), 2.5s", f.At, f.InjectDuration)
		}
		// Down from 2s until the election at 3s: the first healthy sample
		// is at 3s or just after, within one probe interval.
		if !f.Degraded || !f.Recovered || f.TTR.D() < time.Second || f.TTR.D() > time.Second+engine.DefaultProbeInterval {
			t.Errorf("fault = degraded %v, recovered %v, TTR %s; want degraded, recovered, TTR in [1s, 1.1s]", f.Degraded, f.Recovered, f.TTR)
		}
	})
}

// TestChecksThatCannotLookAreNotMeasured: a check returning ErrNotApplicable
// is listed as not measured and gives no consistency grade.
func TestChecksThatCannotLookAreNotMeasured(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3))
	blind := fault.Check{Name: "state", Run: func(context.Context) error {
		return fmt.Errorf("%w: no agent serves GET /state", fault.ErrNotApplicable)
	}}
	svc := engine.NewService(fault.NewInjector(cluster, nil), nil, nil, engine.WithClock(clk),
		engine.WithProbe(cluster.Probe), engine.WithChecks(blind))
	rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: 30 * time.Second},
		engine.Step{At: 2 * time.Second, Action: fault.Action{Type: fault.KillLeader}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Score.Consistency.Measured || rep.ChecksRun != 0 || rep.ChecksNotApplicable != 2 {
		t.Errorf("consistency measured %v, checks run %d, not applicable %d; want not measured, 0, 2 (after the fault and at the end)",
			rep.Score.Consistency.Measured, rep.ChecksRun, rep.ChecksNotApplicable)
	}
	for _, c := range rep.Checks {
		if !c.NotApplicable || c.Passed {
			t.Errorf("check %+v, want not applicable and not passed", c)
		}
	}
	gate := scenario.Gate{Consistent: true}.Check(rep)
	if len(gate) != 1 || gate[0].Passed {
		t.Errorf("gate consistent = %+v, want failed: nothing was checked", gate)
	}
	if text := rep.String(); !strings.Contains(text, "consistency      -  (unmeasured; 0/0 checks passed, 2 not applicable (could not look))") {
		t.Errorf("report text does not say the checks could not look:\n%s", text)
	}
}

// healing is a fake cluster whose runtime says it healed every fault 2s
// after it landed, as containers' partition healing does.
type healing struct{ *fakes.Cluster }

func (healing) HealedAt(_ fault.Type, _ string, since time.Time) (time.Time, bool) {
	return since.Add(2 * time.Second), true
}

// TestReportSaysWhoHealedAFault: a fault the runtime healed before its
// duration was up is reported healed by the runtime at that time, and
// lifted by arena at its duration.
func TestReportSaysWhoHealedAFault(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3))
	svc := engine.NewService(fault.NewInjector(healing{cluster}, nil), nil, nil, engine.WithClock(clk), engine.WithProbe(cluster.Probe))
	rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: 30 * time.Second},
		engine.Step{At: time.Second, Action: fault.Action{Type: fault.NetworkPartition, TargetID: "worker-1", Metadata: map[string]any{"duration": "8s"}}})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Faults[0]
	if f.HealedByRuntime == nil || f.HealedByRuntime.D() != 3*time.Second || f.Lifted == nil || f.Lifted.D() != 9*time.Second {
		t.Fatalf("fault = %+v, want healed by the runtime at 3s, lifted at 9s", f)
	}
	if text := rep.String(); !strings.Contains(text, "healed by the runtime at 3s, lifted by arena at 9s") {
		t.Errorf("report text does not say who healed the fault when:\n%s", text)
	}
}

// TestTimedFaultIsWatchedPastItsLift: a fault with a duration is not called
// recovered before arena lifts it; a disruption when it is lifted (a node
// rejoining) is the fault's.
func TestTimedFaultIsWatchedPastItsLift(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	start := clk.Now()
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3))
	probe := func(ctx context.Context) error {
		if d := clk.Now().Sub(start); d >= 9*time.Second && d < 10*time.Second {
			return fmt.Errorf("worker-1 rejoining")
		}
		return cluster.Probe(ctx)
	}
	svc := engine.NewService(fault.NewInjector(cluster, nil), nil, nil, engine.WithClock(clk), engine.WithProbe(probe),
		engine.WithObserveOptions(engine.ObserveOptions{SettleTime: 2 * time.Second}))
	rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: 30 * time.Second},
		engine.Step{At: time.Second, Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1", Metadata: map[string]any{"duration": "8s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; !f.Degraded || f.TTR.D() != 9*time.Second {
		t.Errorf("fault = degraded %v, TTR %s; want degraded, TTR 9s (healthy again 1s after the lift at 9s)", f.Degraded, f.TTR)
	}
}
