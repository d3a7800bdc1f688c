package arena

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// noLift is a runtime without FaultLifter.
type noLift struct{ *stubRuntime }

func (noLift) LiftFault() {} // not the interface's signature: not a lifter

func TestNoLiftWithoutALifter(t *testing.T) {
	clock := NewVirtualClock(time.Time{})
	stub := newStub(clock, -1)
	svc := NewService(NewInjector(noLift{stub}, nil), nil, nil, WithClock(clock), WithProbe(stub.probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second},
		Step{At: time.Second, Action: Action{Type: ActionPauseAgent, TargetID: "worker-1", Metadata: map[string]any{"duration": "1.5s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; f.Lifted != nil || f.Recovered {
		t.Errorf("fault = %+v, want neither lifted nor recovered (the runtime cannot lift)", f)
	}
}

// TestRealTimeSlowProbeNeverGivesNegativeTTR: samples that started before a
// fault landed are not fed to it, however late the executor runs.
func TestRealTimeSlowProbeNeverGivesNegativeTTR(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := newStub(RealClock{}, 2*time.Second)
		probe := func(ctx context.Context) error {
			time.Sleep(300 * time.Millisecond) // slower than the 100ms interval
			return stub.probe(ctx)
		}
		svc := NewService(NewInjector(stub, nil), nil, nil, WithProbe(probe))
		rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 20 * time.Second}, kill(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.Faults[0]; !f.Recovered || f.TTR < 0 || f.TTR.D() > 3*time.Second {
			t.Errorf("fault = %+v, want recovered with a TTR in [0, 3s]", f)
		}
	})
}

// TestStopBeforeCheckEventStillReportsTheFault: a recovery decided at the
// last sample before Stop keeps its outcome and gets the end checks.
func TestStopBeforeCheckEventStillReportsTheFault(t *testing.T) {
	svc, _ := virtualService(time.Second, WithChecks(Check{Name: "ok", Run: func(context.Context) error { return nil }}),
		WithObserveOptions(ObserveOptions{SettleTime: time.Second}))
	r, err := svc.NewRun(RunOptions{Seed: 1, Duration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	r.Schedule(kill(time.Second))
	// Healthy from 2.0s: with 3 stable samples and a 1s settle time the
	// sample at 2.2s decides the recovery and schedules its checks for the
	// same instant. A stop queued after that sample (from 2.15s, so after
	// the observer queued it at 2.1s) ends the run before the checks.
	r.At(2150*time.Millisecond, KindPhase, func(context.Context) {
		r.At(2200*time.Millisecond, KindSample, func(context.Context) { r.Stop() })
	})
	rep, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st := svc.Stats(); st.FaultsRecovered != 1 {
		t.Errorf("stats recovered = %d, want 1 (the outcome must reach the service)", st.FaultsRecovered)
	}
	if f := rep.Faults[0]; !f.Recovered || len(f.Checks) != 1 {
		t.Errorf("fault = %+v, want recovered with the end-of-run check as its own", f)
	}
}

// TestFaultRecoveredAtEndCarriesEndChecks: a violation left by a fault that
// recovers only at the run's end still becomes a proposal.
func TestFaultRecoveredAtEndCarriesEndChecks(t *testing.T) {
	clock := NewVirtualClock(time.Time{})
	stub := newStub(clock, time.Second)
	evo := &evoRec{}
	svc := NewService(NewInjector(stub, nil), nil, nil, WithClock(clock), WithProbe(stub.probe), WithEvolution(evo),
		WithChecks(Check{Name: "ledger", Run: func(context.Context) error { return errors.New("3 tasks lost") }}))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 8 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; !f.Recovered || len(f.Checks) != 1 || f.Checks[0].Passed {
		t.Fatalf("fault = %+v, want recovered at the end with the failed end check", f)
	}
	if len(evo.submitted) != 1 || evo.submitted[0].FailedChecks[0] != "ledger" {
		t.Errorf("proposals = %+v, want one for the lost tasks", evo.submitted)
	}
}

// hangRuntime's kills block until their context ends.
type hangRuntime struct{ *stubRuntime }

func (h hangRuntime) StopAgent(ctx context.Context, _ string) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestHungProviderCallIsCancelledAfterGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := newStub(RealClock{}, 0)
		svc := NewService(NewInjector(hangRuntime{stub}, nil), nil, nil, WithProbe(stub.probe))
		start := time.Now()
		rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second}, kill(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 5*time.Second+DefaultGrace {
			t.Errorf("run returned after %s, want 10s (5s + the grace)", d)
		}
		if len(rep.InjectionErrors) != 1 && len(rep.Faults) != 0 {
			t.Errorf("report = %d faults, %d injection errors", len(rep.Faults), len(rep.InjectionErrors))
		}
	})
}

func TestOneVirtualRunPerClock(t *testing.T) {
	svc, _ := virtualService(time.Second)
	a, err := svc.NewRun(RunOptions{Seed: 1, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.NewRun(RunOptions{Seed: 2, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var inner error
	a.At(time.Second, KindPhase, func(ctx context.Context) {
		_, inner = b.Play(ctx) // while a drives the clock
	})
	wg.Go(func() {
		if _, err := a.Play(context.Background()); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	if !errors.Is(inner, ErrRunActive) { // the service refuses before the clock is looked at
		t.Errorf("second concurrent Play = %v, want ErrRunActive", inner)
	}
	if _, err := b.Play(context.Background()); !errors.Is(err, ErrClockBusy) {
		t.Errorf("Play after the clock moved = %v, want ErrClockBusy", err)
	}
}
