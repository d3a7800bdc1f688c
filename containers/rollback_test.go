package containers_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// TestRollbackAfterCancelledRun: a scenario pauses, partitions and slows
// three containers for an hour, and is cancelled once they have landed:
// the run lifts them all before it returns, and docker inspect shows each
// container unpaused, connected and without a CPU quota.
func TestRollbackAfterCancelledRun(t *testing.T) {
	t.Parallel()
	rt := containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(3))
	svc := service(rt)
	waitHealthy(t, rt, 10*time.Second)
	hour := map[string]any{"duration": "1h"}
	sc := &scenario.Scenario{Name: "held-for-an-hour", Config: scenario.Config{Cooldown: clock.Duration(10 * time.Minute)},
		Actions: []scenario.Step{
			{Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1", Metadata: hour}},
			{Action: fault.Action{Type: fault.NetworkPartition, TargetID: "worker-2", Metadata: hour}},
			{Action: fault.Action{Type: fault.SlowAgent, TargetID: "worker-3", Metadata: map[string]any{"duration": "1h", "delay": "2s"}}},
		}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // cancel once all three are in place, as a SIGINT would
		for len(svc.ActiveFaults()) < 3 && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	rep, err := scenario.Run(ctx, svc, sc)
	if !errors.Is(err, context.Canceled) || rep == nil {
		t.Fatalf("run = %v, want it cancelled", err)
	}
	if rep.Report.Landed != 3 {
		t.Fatalf("%d faults landed, want 3: %+v", rep.Report.Landed, rep.Report.InjectionErrors)
	}
	if len(rep.Report.Rollback) != 3 {
		t.Errorf("rollback = %+v, want the three faults", rep.Report.Rollback)
	}
	for _, rb := range rep.Report.Rollback {
		if rb.Outcome != engine.RollbackLifted {
			t.Errorf("rollback of %s %s: %s", rb.Type, rb.TargetID, rb.Detail)
		}
	}
	if in := inspect(t, rt, "worker-1"); in.State.Paused {
		t.Error("docker inspect: worker-1 still paused")
	}
	if nets := inspect(t, rt, "worker-2").NetworkSettings.Networks; nets[rt.Network()] == nil {
		t.Errorf("docker inspect: worker-2 not connected to %s: %v", rt.Network(), nets)
	}
	if hc := inspect(t, rt, "worker-3").HostConfig; hc.CPUQuota > 0 {
		t.Errorf("docker inspect: worker-3 still has CPU quota %d", hc.CPUQuota)
	}
	if active := svc.ActiveFaults(); len(active) != 0 {
		t.Errorf("ActiveFaults() = %+v", active)
	}
}
