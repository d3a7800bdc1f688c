package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// TestRunStatus looks at the status from inside a virtual run, halfway
// through, and before and after it.
func TestRunStatus(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3))
	store := events.NewMemoryStore()
	defer store.Close()
	svc := engine.NewService(fault.NewInjector(c, c), store, nil, engine.WithClock(clk), engine.WithProbe(c.Probe))
	if st := svc.RunStatus(); st.Running || st.RunID != "" || st.Healthy != nil {
		t.Errorf("before any run: %+v", st)
	}
	r, err := svc.NewRun(engine.RunOptions{Seed: 9, Duration: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r.Schedule(engine.Step{At: time.Second, Action: fault.Action{Type: fault.KillLeader}})
	var mid engine.RunStatus
	r.At(10*time.Second, engine.KindInject, func(context.Context) { mid = svc.RunStatus() })
	if _, err := r.Play(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !mid.Running || mid.Origin != engine.OriginRun || mid.Seed != 9 || !mid.Virtual || mid.RunID == "" ||
		mid.Elapsed != clock.Duration(10*time.Second) || mid.Duration != clock.Duration(20*time.Second) || mid.Progress != 0.5 {
		t.Errorf("halfway: %+v, want running, seed 9, virtual, 10s of 20s", mid)
	}
	if !mid.Score.Measured || mid.Healthy == nil {
		t.Errorf("halfway: score %+v, healthy %v; want availability measured so far and the last verdict", mid.Score, mid.Healthy)
	}
	if st := svc.RunStatus(); st.Running {
		t.Errorf("after the run: %+v, want not running", st)
	}
}

// TestRunStatusOfAScenario: a scenario's status has its name and its
// planned length (its run is allowed longer), seen from its own probe.
func TestRunStatusOfAScenario(t *testing.T) {
	clk2 := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk2), fakes.WithSeed(3))
	store := events.NewMemoryStore()
	defer store.Close()
	var svc *engine.Service
	var seen []engine.RunStatus
	probe := func(ctx context.Context) error {
		seen = append(seen, svc.RunStatus())
		return c.Probe(ctx)
	}
	svc = engine.NewService(fault.NewInjector(c, c), store, nil, engine.WithClock(clk2), engine.WithProbe(probe))
	sc, err := scenario.Load([]byte("name: two-kills\nconfig: {seed: 5, cooldown: 10s}\nactions:\n  - {delay: 2s, action: {type: kill_agent, target_id: worker-1}}\n"), "two-kills.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scenario.Run(context.Background(), svc, sc); err != nil {
		t.Fatal(err)
	}
	if len(seen) < 10 {
		t.Fatalf("the probe saw %d statuses", len(seen))
	}
	mid := seen[len(seen)/2]
	if !mid.Running || mid.Origin != engine.OriginScenario || mid.Name != "two-kills" || mid.Seed != 5 ||
		mid.Duration != clock.Duration(sc.PlannedLength()) || mid.Progress <= 0 || mid.Progress > 1 {
		t.Errorf("status halfway: %+v, want the scenario with its planned length %s", mid, sc.PlannedLength())
	}
}
