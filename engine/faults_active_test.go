package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// liftable is every fault type arena lifts, with the metadata it is given
// and how to see it on a fake agent.
var liftable = []struct {
	typ  fault.Type
	meta map[string]any
	on   func(fakes.AgentState) bool
}{
	{fault.PauseAgent, nil, func(a fakes.AgentState) bool { return a.Status == fault.StatusPaused }},
	{fault.SlowAgent, map[string]any{"delay": "3s"}, func(a fakes.AgentState) bool { return a.SlowDelay > 0 }},
	{fault.NetworkPartition, nil, func(a fakes.AgentState) bool { return a.Partitioned }},
	{fault.ToolTimeout, nil, func(a fakes.AgentState) bool { return a.ToolTimeout > 0 }},
	{fault.MCPDisconnect, nil, func(a fakes.AgentState) bool { return a.MCPDisconnected }},
	{fault.LLMFailure, map[string]any{"error_type": "overloaded"}, func(a fakes.AgentState) bool { return a.LLMFailure != "" }},
}

func timed(typ fault.Type, meta map[string]any, d string) fault.Action {
	m := map[string]any{"duration": d}
	for k, v := range meta {
		m[k] = v
	}
	return fault.Action{Type: typ, TargetID: "worker-1", Metadata: m}
}

// faulted reports whether worker-1 still carries the fault.
func (e *rig) faulted(t *testing.T, on func(fakes.AgentState) bool) bool {
	t.Helper()
	a, ok := e.cluster.Agent("worker-1")
	if !ok {
		t.Fatal("no worker-1")
	}
	return on(a)
}

// TestExecuteLiftsAtDuration: a fault executed outside any run (as the HTTP
// action routes do) is lifted when its duration has passed on the
// service's clock, not before, and the lift is an event.
func TestExecuteLiftsAtDuration(t *testing.T) {
	for _, c := range liftable {
		t.Run(string(c.typ), func(t *testing.T) {
			e := newRig(fakes.WithoutHealing())
			start := e.clock.Now()
			res := e.svc.Execute(context.Background(), timed(c.typ, c.meta, "2s"))
			if !res.Success {
				t.Fatalf("Execute = %+v", res)
			}
			active := e.svc.ActiveFaults()
			if len(active) != 1 || active[0].ID != res.Action.ID || active[0].Origin != engine.OriginExecute ||
				active[0].LiftAt == nil || !active[0].LiftAt.Equal(start.Add(2*time.Second)) {
				t.Fatalf("ActiveFaults() = %+v, want the fault, lift at +2s", active)
			}
			e.clock.Advance(1999 * time.Millisecond)
			if !e.faulted(t, c.on) {
				t.Fatal("fault gone before its duration")
			}
			e.clock.Advance(time.Millisecond)
			if e.faulted(t, c.on) {
				t.Fatal("fault still in place at its duration")
			}
			if active := e.svc.ActiveFaults(); len(active) != 0 {
				t.Errorf("ActiveFaults() after the lift = %+v", active)
			}
			lifts := e.events(t, engine.EventFaultLifted)
			if len(lifts) != 1 || lifts[0]["why"] != "duration" || lifts[0]["action_id"] != res.Action.ID {
				t.Errorf("lift events = %v", lifts)
			}
		})
	}
}

func (e *rig) events(t *testing.T, typ string) []map[string]any {
	t.Helper()
	evs, err := e.store.Read(context.Background(), events.Filter{Types: []string{typ}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, ev := range evs {
		if ev.Type != typ {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(ev.Data, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestLiftFaultOnRequest(t *testing.T) {
	e := newRig(fakes.WithoutHealing())
	res := e.svc.Execute(context.Background(), fault.Action{Type: fault.PauseAgent, TargetID: "worker-1"}) // no duration
	if active := e.svc.ActiveFaults(); len(active) != 1 || active[0].LiftAt != nil {
		t.Fatalf("ActiveFaults() = %+v, want the pause without a lift time", active)
	}
	if err := e.svc.LiftFault(context.Background(), res.Action.ID); err != nil {
		t.Fatal(err)
	}
	if a, _ := e.cluster.Agent("worker-1"); a.Status != fault.StatusRunning {
		t.Errorf("worker-1 = %s after LiftFault, want running", a.Status)
	}
	if err := e.svc.LiftFault(context.Background(), res.Action.ID); !errors.Is(err, engine.ErrNoActiveFault) {
		t.Errorf("second LiftFault = %v, want ErrNoActiveFault", err)
	}
	// A kill is never in the registry.
	e.svc.Execute(context.Background(), fault.Action{Type: fault.KillAgent, TargetID: "worker-2"})
	if active := e.svc.ActiveFaults(); len(active) != 0 {
		t.Errorf("ActiveFaults() after a kill = %+v", active)
	}
}

// TestActiveFaultIDTaken: an action whose ID is already an active fault's
// (a client reusing "id" over HTTP, a Go caller executing one Action value
// twice) is refused. Kept, it would replace the first fault in the
// registry: that fault would never be lifted nor rolled back, and its timer
// would lift the second one at the first one's time.
func TestActiveFaultIDTaken(t *testing.T) {
	e := newRig(fakes.WithoutHealing())
	a := timed(fault.PauseAgent, nil, "10s")
	a.ID = "f1"
	if res := e.svc.Execute(context.Background(), a); !res.Success {
		t.Fatalf("Execute = %+v", res)
	}
	b := timed(fault.NetworkPartition, nil, "1m")
	b.ID, b.TargetID = "f1", "worker-2"
	res := e.svc.Execute(context.Background(), b)
	var ve *fault.ValidationError
	if res.Success || !errors.As(res.Err, &ve) || ve.Field != "id" {
		t.Fatalf("Execute with a taken ID = %+v, want a validation error naming id", res)
	}
	if a, _ := e.cluster.Agent("worker-2"); a.Partitioned {
		t.Error("worker-2 partitioned by the refused action")
	}
	if got := e.svc.Rollback(context.Background()); len(got) != 1 || got[0].Type != fault.PauseAgent {
		t.Errorf("Rollback() = %+v, want the pause of worker-1", got)
	}
	if a, _ := e.cluster.Agent("worker-1"); a.Status != fault.StatusRunning {
		t.Errorf("worker-1 = %s after the rollback, want running", a.Status)
	}
	// Once lifted, the ID is free again.
	if res := e.svc.Execute(context.Background(), b); !res.Success {
		t.Errorf("Execute after the lift = %+v", res)
	}
}

func TestMaxFaultDuration(t *testing.T) {
	e := newRig()
	res := e.svc.Execute(context.Background(), timed(fault.PauseAgent, nil, "1h0m1s"))
	var ve *fault.ValidationError
	if res.Success || !errors.As(res.Err, &ve) || ve.Field != "metadata.duration" {
		t.Fatalf("Execute over the bound = %+v, want a validation error naming metadata.duration", res)
	}
	if want := "metadata.duration: 1h0m1s is over the maximum fault duration 1h0m0s"; res.Error != want {
		t.Errorf("error = %q, want %q", res.Error, want)
	}
	sc := &scenario.Scenario{Name: "long", Actions: []scenario.Step{{Action: timed(fault.PauseAgent, nil, "2h")}}}
	if _, err := scenario.Run(context.Background(), e.svc, sc); err == nil ||
		err.Error() != `actions[0].action.metadata.duration: 2h0m0s is over the maximum fault duration 1h0m0s` {
		t.Errorf("scenario over the bound = %v", err)
	}
	_, err := e.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 3 * time.Hour, MaxLifetime: 2 * time.Hour, Seed: 1})
	if err == nil || err.Error() != "survival: max_lifetime: 2h0m0s is over the maximum fault duration 1h0m0s" {
		t.Errorf("survival over the bound = %v", err)
	}
}

// TestRunsLiftAtDuration: in a scenario and in survival, every liftable
// fault is lifted at its duration (the report's Lifted, exactly).
func TestRunsLiftAtDuration(t *testing.T) {
	for _, c := range liftable {
		t.Run("scenario/"+string(c.typ), func(t *testing.T) {
			e := newRig(fakes.WithoutHealing())
			sc := &scenario.Scenario{Name: "timed", Config: scenario.Config{Seed: 1, Cooldown: clock.Duration(5 * time.Second)},
				Actions: []scenario.Step{{Delay: clock.Duration(time.Second), Action: timed(c.typ, c.meta, "2s")}}}
			rep, err := scenario.Run(context.Background(), e.svc, sc)
			if err != nil {
				t.Fatal(err)
			}
			f := rep.Report.Faults[0]
			if f.Lifted == nil || f.Lifted.D() != 3*time.Second {
				t.Errorf("lifted = %v, want at 3s", f.Lifted)
			}
			if len(rep.Report.Rollback) != 0 {
				t.Errorf("rollback = %+v, want nothing left", rep.Report.Rollback)
			}
			if e.faulted(t, c.on) {
				t.Error("fault in place after the run")
			}
		})
	}
	t.Run("survival", func(t *testing.T) {
		e := newRig(fakes.WithoutHealing())
		mix := map[fault.Type]float64{}
		for _, c := range liftable {
			mix[c.typ] = 1
		}
		rep, err := e.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 10 * time.Minute, Interval: 5 * time.Second,
			Seed: 3, Mix: mix, MinLifetime: time.Second, MaxLifetime: 4 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[fault.Type]bool{}
		for i, ev := range rep.Events {
			if !ev.Success {
				continue
			}
			f := rep.Faults[i]
			if f.Action.ID != ev.ActionID {
				t.Fatalf("fault %d is %s, event is %s", i, f.Action.ID, ev.ActionID)
			}
			if f.Lifted == nil || f.Lifted.D() != ev.At.D()+ev.Lifetime.D() {
				t.Errorf("%s %s landed at %s for %s: lifted = %v", ev.ActionID, ev.Type, ev.At, ev.Lifetime, f.Lifted)
			}
			seen[ev.Type] = true
		}
		if len(seen) != len(liftable) {
			t.Errorf("types landed = %v, want all %d liftable types", seen, len(liftable))
		}
		if len(e.svc.ActiveFaults()) != 0 {
			t.Errorf("active after survival = %+v", e.svc.ActiveFaults())
		}
	})
}

// noneFaulted fails unless no agent carries a liftable fault.
func (e *rig) noneFaulted(t *testing.T) {
	t.Helper()
	agents, _ := e.cluster.ListAgents(context.Background())
	for _, ag := range agents {
		a, _ := e.cluster.Agent(ag.ID)
		for _, c := range liftable {
			if c.on(a) {
				t.Errorf("%s still has %s after the run", a.ID, c.typ)
			}
		}
	}
	if active := e.svc.ActiveFaults(); len(active) != 0 {
		t.Errorf("ActiveFaults() = %+v", active)
	}
}

// allAtOnce is a scenario landing every liftable fault, on workers 1 to 6,
// for an hour, then a long cooldown.
func allAtOnce(e *rig) *scenario.Scenario {
	sc := &scenario.Scenario{Name: "everything-for-an-hour", Config: scenario.Config{Seed: 1, Cooldown: clock.Duration(2 * time.Hour)}}
	for i, c := range liftable {
		a := timed(c.typ, c.meta, "1h")
		a.TargetID = fmt.Sprintf("worker-%d", i+1)
		sc.Actions = append(sc.Actions, scenario.Step{Delay: clock.Duration(time.Second), Action: a})
	}
	return sc
}

func rolledBack(t *testing.T, rep *engine.Report, n int) {
	t.Helper()
	if len(rep.Rollback) != n {
		t.Fatalf("rollback = %+v, want %d faults", rep.Rollback, n)
	}
	for _, rb := range rep.Rollback {
		if rb.Outcome != engine.RollbackLifted || rb.Detail != "lifted at end" {
			t.Errorf("rollback %+v, want lifted at end", rb)
		}
	}
}

// TestRollbackOnEveryExit: faults that outlive their run are lifted when
// it is cancelled, times out, is stopped, or completes.
func TestRollbackOnEveryExit(t *testing.T) {
	n := len(liftable)
	t.Run("cancelled", func(t *testing.T) {
		e := newRig(fakes.WithoutHealing(), fakes.WithWorkers(n))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cancelAt := e.clock.Now().Add(time.Minute)
		probe := func(pctx context.Context) error {
			if !e.clock.Now().Before(cancelAt) {
				cancel()
			}
			return e.cluster.Probe(pctx)
		}
		e.svc = engine.NewService(fault.NewInjector(e.cluster, e.cluster), e.store, nil, engine.WithClock(e.clock), engine.WithProbe(probe))
		rep, err := scenario.Run(ctx, e.svc, allAtOnce(e))
		if !errors.Is(err, context.Canceled) || rep.Outcome != scenario.OutcomeCancelled {
			t.Fatalf("run = %v, %v; want cancelled", rep.Outcome, err)
		}
		rolledBack(t, rep.Report, n)
		e.noneFaulted(t)
	})
	t.Run("timed out", func(t *testing.T) {
		e := newRig(fakes.WithoutHealing(), fakes.WithWorkers(n))
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond) // a caller's bound, as the HTTP server's
		defer cancel()
		hangAt := e.clock.Now().Add(time.Minute)
		probe := func(pctx context.Context) error {
			if !e.clock.Now().Before(hangAt) {
				<-pctx.Done() // the probe hangs until the deadline
			}
			return e.cluster.Probe(pctx)
		}
		e.svc = engine.NewService(fault.NewInjector(e.cluster, e.cluster), e.store, nil, engine.WithClock(e.clock), engine.WithProbe(probe))
		rep, err := scenario.Run(ctx, e.svc, allAtOnce(e))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("run = %v, want the deadline", err)
		}
		rolledBack(t, rep.Report, n)
		e.noneFaulted(t)
	})
	t.Run("stopped", func(t *testing.T) {
		e := newRig(fakes.WithoutHealing(), fakes.WithWorkers(n))
		r, err := e.svc.NewRun(engine.RunOptions{Seed: 1, Duration: 2 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range liftable {
			a := timed(c.typ, c.meta, "1h")
			a.TargetID = fmt.Sprintf("worker-%d", i+1)
			r.Schedule(engine.Step{At: time.Second, Action: a})
		}
		r.At(time.Minute, engine.KindPhase, func(context.Context) { r.Stop() })
		rep, err := r.Play(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.End.Sub(rep.Start); got != time.Minute {
			t.Errorf("run ended after %s, want 1m", got)
		}
		rolledBack(t, rep, n)
		e.noneFaulted(t)
	})
	t.Run("panicked", func(t *testing.T) {
		e := newRig(fakes.WithoutHealing(), fakes.WithWorkers(n))
		r, err := e.svc.NewRun(engine.RunOptions{Seed: 1, Duration: 2 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range liftable {
			a := timed(c.typ, c.meta, "1h")
			a.TargetID = fmt.Sprintf("worker-%d", i+1)
			r.Schedule(engine.Step{At: time.Second, Action: a})
		}
		r.At(time.Minute, engine.KindPhase, func(context.Context) { panic("schedule bug") })
		func() {
			defer func() {
				if p := recover(); p != "schedule bug" {
					t.Errorf("recovered %v, want the event's panic", p)
				}
			}()
			r.Play(context.Background())
		}()
		e.noneFaulted(t)
		if err := e.svc.RunActive(); err != nil {
			t.Errorf("after the panic: %v", err)
		}
	})
	t.Run("completed without durations", func(t *testing.T) {
		e := newRig(fakes.WithoutHealing(), fakes.WithWorkers(n))
		var steps []engine.Step
		for i, c := range liftable {
			steps = append(steps, engine.Step{At: time.Second, Action: fault.Action{Type: c.typ, TargetID: fmt.Sprintf("worker-%d", i+1), Metadata: c.meta}})
		}
		rep := e.run(t, time.Minute, steps...)
		rolledBack(t, rep, n)
		e.noneFaulted(t)
	})
	t.Run("survival stopped", func(t *testing.T) {
		e := newRig(fakes.WithoutHealing())
		stopAt := e.clock.Now().Add(10 * time.Minute)
		stopped := make(chan *engine.SurvivalReport, 1)
		var once bool
		probe := func(pctx context.Context) error {
			if !once && !e.clock.Now().Before(stopAt) {
				once = true
				go func() { // StopSurvival waits for the run: not from its own goroutine
					rep, _ := e.svc.StopSurvival()
					stopped <- rep
				}()
			}
			return e.cluster.Probe(pctx)
		}
		e.svc = engine.NewService(fault.NewInjector(e.cluster, e.cluster), e.store, nil, engine.WithClock(e.clock), engine.WithProbe(probe))
		mix := map[fault.Type]float64{}
		for _, c := range liftable {
			mix[c.typ] = 1
		}
		rep, err := e.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: engine.MaxSurvivalDuration, Interval: time.Minute, Seed: 5, Mix: mix,
			MinLifetime: 50 * time.Minute, MaxLifetime: time.Hour, AllowUnhealthyStart: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := <-stopped; got != rep {
			t.Error("StopSurvival returned another report")
		}
		if rep.Ending != engine.SurvivalStopped || !strings.Contains(rep.String(), ", stopped (on request) after ") {
			t.Errorf("ending %q, headline:\n%s", rep.Ending, rep.String())
		}
		if len(rep.Rollback) == 0 {
			t.Error("nothing rolled back")
		}
		rolledBack(t, rep.Report, len(rep.Rollback))
		e.noneFaulted(t)
	})
	t.Run("survival interrupted", func(t *testing.T) {
		e := newRig(fakes.WithoutHealing())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stopAt := e.clock.Now().Add(10 * time.Minute)
		probe := func(pctx context.Context) error {
			if !e.clock.Now().Before(stopAt) {
				cancel()
			}
			return e.cluster.Probe(pctx)
		}
		e.svc = engine.NewService(fault.NewInjector(e.cluster, e.cluster), e.store, nil, engine.WithClock(e.clock), engine.WithProbe(probe))
		mix := map[fault.Type]float64{}
		for _, c := range liftable {
			mix[c.typ] = 1
		}
		rep, err := e.svc.RunSurvival(ctx, engine.SurvivalConfig{Duration: 24 * time.Hour, Interval: time.Minute, Seed: 5, Mix: mix,
			MinLifetime: 50 * time.Minute, MaxLifetime: time.Hour})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("survival = %v, want cancelled", err)
		}
		if rep.Ending != engine.SurvivalInterrupted || !rep.Stopped {
			t.Errorf("ending = %q (stopped %v), want interrupted", rep.Ending, rep.Stopped)
		}
		if head := strings.SplitN(rep.String(), "\n", 2)[0]; !strings.Contains(head, ", interrupted (context canceled) after 10m0s;") {
			t.Errorf("headline %q does not say it was interrupted", head)
		}
		if len(rep.Rollback) == 0 {
			t.Error("nothing rolled back")
		}
		rolledBack(t, rep.Report, len(rep.Rollback))
		e.noneFaulted(t)
	})
}

// TestOneRunAtATime: a run holds the service; a second run of any kind, and
// an Execute outside it, are refused naming it.
func TestOneRunAtATime(t *testing.T) {
	e := newRig()
	var during []error
	var executed fault.Result
	sc := &scenario.Scenario{Name: "holder", Config: scenario.Config{Seed: 1, Cooldown: clock.Duration(time.Second)},
		Actions: []scenario.Step{{Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1"}}}}
	probe := func(ctx context.Context) error {
		if during == nil {
			_, err := e.svc.RunSurvival(ctx, engine.SurvivalConfig{Duration: time.Minute, Seed: 1})
			_, err2 := scenario.Run(ctx, e.svc, sc)
			during = []error{err, err2}
			executed = e.svc.Execute(ctx, fault.Action{Type: fault.KillAgent, TargetID: "worker-2"})
		}
		return nil
	}
	e.svc = engine.NewService(fault.NewInjector(e.cluster, e.cluster), e.store, nil, engine.WithClock(e.clock), engine.WithProbe(probe))
	rep, err := scenario.Run(context.Background(), e.svc, sc)
	if err != nil {
		t.Fatal(err)
	}
	want := `a run is active on this service: scenario "holder" (run-1) is running`
	for i, err := range during {
		var rae *engine.RunActiveError
		if !errors.As(err, &rae) || !errors.Is(err, engine.ErrRunActive) || !stringsHasSuffix(err.Error(), want) {
			t.Errorf("run %d during the scenario = %v, want %q", i, err, want)
		}
		if errors.Is(err, engine.ErrSurvivalRunning) {
			t.Errorf("%v is ErrSurvivalRunning: no survival run is going", err)
		}
	}
	if executed.Success || !errors.Is(executed.Err, engine.ErrRunActive) {
		t.Errorf("Execute during the run = %+v, want refused", executed)
	}
	if a, _ := e.cluster.Agent("worker-2"); a.Status != fault.StatusRunning {
		t.Errorf("worker-2 = %s: the refused kill landed", a.Status)
	}
	if rep.Report.Landed != 1 || rep.Report.InjectionErrorCount != 0 {
		t.Errorf("run's report: %d landed, %d injection errors; the outside action must not count", rep.Report.Landed, rep.Report.InjectionErrorCount)
	}
}

func stringsHasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

// slowLifter is the fake cluster whose pauses' lifts wait to be let go.
type slowLifter struct {
	*fakes.Cluster
	entered, release chan struct{}
	finished         atomic.Bool
}

func (s *slowLifter) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	lift, err := s.Cluster.PauseAgent(ctx, id)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		close(s.entered)
		<-s.release
		defer s.finished.Store(true)
		return lift(ctx)
	}, nil
}

// TestRollbackWaitsForLiftsUnderWay: a fault whose timer fired just before
// the process ends is out of the registry but not lifted yet. Rollback
// waits for that lift: when it returns, nothing arena started is still
// touching the system (arena serve exits right after it).
func TestRollbackWaitsForLiftsUnderWay(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithoutHealing())
	rt := &slowLifter{Cluster: c, entered: make(chan struct{}), release: make(chan struct{})}
	svc := engine.NewService(fault.NewInjector(rt, c), nil, nil, engine.WithClock(clk))
	if res := svc.Execute(context.Background(), timed(fault.PauseAgent, nil, "2s")); !res.Success {
		t.Fatalf("Execute = %+v", res)
	}
	advanced := make(chan struct{})
	go func() {
		defer close(advanced)
		clk.Advance(2 * time.Second) // the timer fires: its lift begins, and waits
	}()
	<-rt.entered
	go close(rt.release)
	if got := svc.Rollback(context.Background()); len(got) != 0 {
		t.Errorf("Rollback() = %+v, want nothing of its own to lift", got)
	}
	if !rt.finished.Load() {
		t.Error("Rollback returned while the timer's lift was still under way")
	}
	<-advanced
	if a, _ := c.Agent("worker-1"); a.Status != fault.StatusRunning {
		t.Errorf("worker-1 = %s, want running", a.Status)
	}
}

// TestRunReportsOutsideFaults: a fault landed outside any run and still in
// place when a run starts is not the run's (not scored as its fault, not
// rolled back by it), but its report says the system carried it.
func TestRunReportsOutsideFaults(t *testing.T) {
	e := newRig(fakes.WithoutHealing())
	pause := e.svc.Execute(context.Background(), fault.Action{ID: "outside-1", Type: fault.PauseAgent, TargetID: "worker-1"})
	if !pause.Success {
		t.Fatalf("Execute = %+v", pause)
	}
	rep := e.run(t, 10*time.Second, engine.Step{At: time.Second, Action: timed(fault.SlowAgent, map[string]any{"delay": "1s"}, "2s")})
	if f := rep.OutsideFaults; len(f) != 1 || f[0].ID != "outside-1" || f[0].Origin != engine.OriginExecute {
		t.Errorf("OutsideFaults = %+v, want the pause of worker-1", f)
	}
	if len(rep.Faults) != 1 || rep.Faults[0].Action.Type != fault.SlowAgent || len(rep.Rollback) != 0 {
		t.Errorf("faults %+v, rollback %+v: want only the run's slow, nothing rolled back", rep.Faults, rep.Rollback)
	}
	if want := "outside fault in place at the start: outside-1 pause_agent worker-1 (execute)"; !strings.Contains(rep.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, rep)
	}
	if active := e.svc.ActiveFaults(); len(active) != 1 || active[0].ID != "outside-1" {
		t.Errorf("ActiveFaults() after the run = %+v, want the outside pause still there", active)
	}
	if err := e.svc.LiftFault(context.Background(), "outside-1"); err != nil {
		t.Fatal(err)
	}
	if rep := e.run(t, 5*time.Second); rep.OutsideFaults != nil {
		t.Errorf("OutsideFaults of a run on a clean system = %+v", rep.OutsideFaults)
	}
}

// slowLanding is a fake cluster whose pause takes 700ms of the clock to land.
type slowLanding struct {
	*fakes.Cluster
	clock *clock.Virtual
}

func (s slowLanding) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	s.clock.Advance(700 * time.Millisecond)
	return s.Cluster.PauseAgent(ctx, id)
}

// TestExecuteLiftCountsFromLanding: an executed fault's duration counts
// from the start of its landing, as its LiftAt says, not from when the
// landing returned.
func TestExecuteLiftCountsFromLanding(t *testing.T) {
	e := newRig(fakes.WithoutHealing())
	rt := slowLanding{e.cluster, e.clock}
	svc := engine.NewService(fault.NewInjector(rt, rt), e.store, nil, engine.WithClock(e.clock))
	start := e.clock.Now()
	if res := svc.Execute(context.Background(), timed(fault.PauseAgent, nil, "2s")); !res.Success {
		t.Fatalf("Execute = %+v", res)
	}
	if active := svc.ActiveFaults(); len(active) != 1 || !active[0].LiftAt.Equal(start.Add(2*time.Second)) {
		t.Fatalf("ActiveFaults() = %+v, want a lift at +2s", active)
	}
	e.clock.Advance(1299 * time.Millisecond) // +1.999s
	if !e.faulted(t, liftable[0].on) {
		t.Fatal("fault gone before its duration")
	}
	e.clock.Advance(time.Millisecond)
	if e.faulted(t, liftable[0].on) {
		t.Fatal("fault still in place at +2s: the landing's 700ms was added to its duration")
	}
}

// TestRealTimeLiftNotHeldByEvents: in real time a timed fault has a lift
// timer of its own, so that an event of the run still running at its lift
// time (here a probe sample hanging on the paused agent, as a probe of real
// containers does) does not hold the lift back.
func TestRealTimeLiftNotHeldByEvents(t *testing.T) {
	c := fakes.NewCluster(fakes.WithoutHealing())
	var once sync.Once
	liftedDuringProbe := make(chan bool, 1)
	probe := func(ctx context.Context) error {
		if a, _ := c.Agent("worker-1"); a.Status == fault.StatusPaused {
			once.Do(func() { // hold the run's event loop until the pause is lifted (or 5s)
				for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
					if a, _ := c.Agent("worker-1"); a.Status != fault.StatusPaused {
						liftedDuringProbe <- true
						return
					}
				}
				liftedDuringProbe <- false
			})
		}
		return c.Probe(ctx)
	}
	svc := engine.NewService(fault.NewInjector(c, c), nil, nil, engine.WithProbe(probe))
	rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: time.Second,
		Observe: engine.ObserveOptions{ProbeInterval: 10 * time.Millisecond}},
		engine.Step{Action: timed(fault.PauseAgent, nil, "100ms")})
	if err != nil {
		t.Fatal(err)
	}
	if !<-liftedDuringProbe {
		t.Error("the pause was not lifted while a probe sample held the run's events")
	}
	if f := rep.Faults[0]; f.Lifted == nil || f.LiftError != "" {
		t.Errorf("fault lifted %v (%s)", f.Lifted, f.LiftError)
	}
	if len(rep.Rollback) != 0 {
		t.Errorf("rollback = %+v, want the fault lifted at its duration", rep.Rollback)
	}
}

// TestExecuteSupersedesSameFault: a fault executed outside a run on an
// agent that carries one of its type already replaces it in the registry:
// one lift lifts both, the newer duration governs (the older timer does not
// lift it early), and the registry does not grow with faults the system
// healed by itself.
func TestExecuteSupersedesSameFault(t *testing.T) {
	e := newRig(fakes.WithoutHealing())
	ctx := context.Background()
	slow := liftable[1]
	first := e.svc.Execute(ctx, timed(slow.typ, slow.meta, "2s"))
	e.clock.Advance(time.Second)
	second := e.svc.Execute(ctx, timed(slow.typ, slow.meta, "5s"))
	other := e.svc.Execute(ctx, fault.Action{Type: slow.typ, TargetID: "worker-2", Metadata: slow.meta})
	if !first.Success || !second.Success || !other.Success {
		t.Fatalf("Execute = %+v / %+v / %+v", first, second, other)
	}
	active := e.svc.ActiveFaults()
	ids := map[string]bool{}
	for _, f := range active {
		ids[f.ID] = true
	}
	if len(active) != 2 || !ids[second.Action.ID] || !ids[other.Action.ID] {
		t.Fatalf("ActiveFaults() = %+v, want the second slowdown of worker-1 and worker-2's", active)
	}
	if err := e.svc.LiftFault(ctx, first.Action.ID); !errors.Is(err, engine.ErrNoActiveFault) {
		t.Errorf("LiftFault(the superseded slowdown) = %v, want ErrNoActiveFault", err)
	}
	e.clock.Advance(2 * time.Second) // past the first slowdown's end
	if !e.faulted(t, slow.on) {
		t.Fatal("worker-1 lost its slowdown at the superseded one's end, want at the second's")
	}
	e.clock.Advance(3 * time.Second)
	if e.faulted(t, slow.on) {
		t.Fatal("worker-1 still slow at the second slowdown's end")
	}
	// The second was lifted at its duration: a third lands on its own, and
	// a fourth supersedes the third.
	third := e.svc.Execute(ctx, timed(slow.typ, slow.meta, "5s"))
	fourth := e.svc.Execute(ctx, timed(slow.typ, slow.meta, "5s"))
	active = e.svc.ActiveFaults()
	clear(ids)
	for _, f := range active {
		ids[f.ID] = true
	}
	if !third.Success || !fourth.Success || len(active) != 2 || !ids[fourth.Action.ID] || !ids[other.Action.ID] {
		t.Fatalf("after two more slowdowns of worker-1: ActiveFaults() = %+v, want the fourth and worker-2's", active)
	}
	if err := e.svc.LiftFault(ctx, fourth.Action.ID); err != nil || e.faulted(t, slow.on) {
		t.Fatalf("LiftFault(the fourth) = %v, worker-1 slow: %v; want lifted", err, e.faulted(t, slow.on))
	}
	for range 1000 {
		e.svc.Execute(ctx, fault.Action{Type: fault.PauseAgent, TargetID: "worker-3"})
		_ = e.cluster.ResumeAgent(ctx, "worker-3") // healed behind arena's back
	}
	if n := len(e.svc.ActiveFaults()); n != 2 {
		t.Errorf("%d active faults after 1000 pauses of worker-3 healed by the system, want 2", n)
	}
}

// TestUserFaultDurationOutsideARun: a user-defined fault's `duration` is
// read with its own spec, so outside a run it is bounded by the service's
// maximum and lifted when it elapses, like a built-in's.
func TestUserFaultDurationOutsideARun(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk))
	var full, lifts atomic.Int32
	spec := fault.Spec{Type: "acme.disk_full", Target: fault.TargetAgent, Priority: 5, Fix: "free the disk", Suggestion: "watch the disk",
		Metadata: []fault.MetaKey{{Name: fault.MetaDuration, Kind: fault.MetaKindDuration}},
		Lifts:    true,
		Inject:   func(context.Context, fault.Action, fault.Params) error { full.Add(1); return nil },
		Lift:     func(context.Context, fault.Action) error { lifts.Add(1); return nil },
	}
	svc := engine.NewService(fault.NewInjectorFor(c, fault.WithFault(spec)), nil, nil,
		engine.WithClock(clk), engine.WithMaxFaultDuration(time.Minute))
	ctx := context.Background()
	over := svc.Execute(ctx, fault.Action{Type: "acme.disk_full", TargetID: "worker-1", Metadata: map[string]any{"duration": "2m"}})
	if over.Success || !strings.Contains(over.Error, "metadata.duration") || full.Load() != 0 {
		t.Fatalf("acme.disk_full for 2m with a 1m maximum = %+v (landed %d), want refused naming metadata.duration", over, full.Load())
	}
	res := svc.Execute(ctx, fault.Action{Type: "acme.disk_full", TargetID: "worker-1", Metadata: map[string]any{"duration": "2s"}})
	if !res.Success {
		t.Fatalf("Execute = %+v", res)
	}
	clk.Advance(1999 * time.Millisecond)
	if lifts.Load() != 0 {
		t.Fatal("lifted before its duration")
	}
	clk.Advance(time.Millisecond)
	if lifts.Load() != 1 || len(svc.ActiveFaults()) != 0 {
		t.Errorf("at its duration: %d lifts, active %+v; want 1 lift and none active", lifts.Load(), svc.ActiveFaults())
	}
}

// TestUserRoleFaultLiftedInARun: a user-defined fault on a role, with a
// `duration`, is lifted by the run when it elapses, on the holder it
// landed on. (The run once decoded the landed action again to find the
// duration, and a role's fault, its target now filled in, failed that
// decoding: it was never lifted.)
func TestUserRoleFaultLiftedInARun(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk))
	var landedOn, liftedFrom string
	var liftedAt time.Time
	spec := fault.Spec{Type: "leader_overload", Target: fault.TargetRole, Role: fault.TypeLeader, Priority: 5,
		Fix: "shed load", Suggestion: "watch the leader's queue",
		Metadata: []fault.MetaKey{{Name: fault.MetaDuration, Kind: fault.MetaKindDuration}},
		Lifts:    true,
		Inject:   func(_ context.Context, a fault.Action, _ fault.Params) error { landedOn = a.TargetID; return nil },
		Lift: func(_ context.Context, a fault.Action) error {
			liftedFrom, liftedAt = a.TargetID, clk.Now()
			return nil
		},
	}
	svc := engine.NewService(fault.NewInjectorFor(c, fault.WithFault(spec)), nil, nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe))
	start := clk.Now()
	rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: time.Minute},
		engine.Step{At: 10 * time.Second, Action: fault.Action{Type: "leader_overload", Metadata: map[string]any{"duration": "5s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if landedOn == "" || liftedFrom != landedOn || liftedAt.Sub(start) != 15*time.Second {
		t.Fatalf("landed on %q, lifted from %q at %v; want lifted from the holder at 15s", landedOn, liftedFrom, liftedAt.Sub(start))
	}
	if len(rep.Faults) != 1 || rep.Faults[0].Lifted == nil || rep.Faults[0].Lifted.D() != 15*time.Second {
		t.Errorf("report's faults = %+v, want one lifted at 15s", rep.Faults)
	}
	if n := len(svc.ActiveFaults()); n != 0 {
		t.Errorf("%d active faults after the run, want 0", n)
	}
}

// A run's fault lifted on request, its ID then given to a later fault of
// the same run: the first fault's duration, when it elapses, lifts nothing;
// the later one is lifted at its own.
func TestRunLiftAtDurationSparesALaterFaultWithItsID(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk))
	start := clk.Now()
	var lifts []time.Duration
	spec := fault.Spec{Type: "cpu_burn", Target: fault.TargetAgent, Priority: 3, Fix: "cap the burner", Suggestion: "watch the CPU",
		Metadata: []fault.MetaKey{{Name: fault.MetaDuration, Kind: fault.MetaKindDuration}},
		Lifts:    true,
		Inject:   func(context.Context, fault.Action, fault.Params) error { return nil },
		Lift: func(context.Context, fault.Action) error {
			lifts = append(lifts, clk.Now().Sub(start))
			return nil
		},
	}
	svc := engine.NewService(fault.NewInjectorFor(c, fault.WithFault(spec)), nil, nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe))
	r, err := svc.NewRun(engine.RunOptions{Seed: 1, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	burn := func(d string) fault.Action {
		return fault.Action{ID: "x", Type: "cpu_burn", TargetID: "worker-1", Metadata: map[string]any{"duration": d}}
	}
	r.At(10*time.Second, engine.KindInject, func(ctx context.Context) {
		if res := r.Inject(ctx, burn("10s")); !res.Success {
			t.Error(res.Error)
		}
	})
	r.At(12*time.Second, engine.KindInject, func(ctx context.Context) {
		if err := svc.LiftFault(ctx, "x"); err != nil {
			t.Error(err)
		}
	})
	r.At(15*time.Second, engine.KindInject, func(ctx context.Context) {
		if res := r.Inject(ctx, burn("30s")); !res.Success {
			t.Error(res.Error)
		}
	})
	if _, err := r.Play(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{12 * time.Second, 45 * time.Second}; !slices.Equal(lifts, want) {
		t.Errorf("lifted at %v, want %v (on request, then the later fault at its own duration)", lifts, want)
	}
}
