package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// virtualService returns a service over a stub whose faults cause the given
// outage, on a fresh virtual clock.
func virtualService(outage time.Duration, opts ...Option) (*Service, *stubRuntime) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, outage)
	opts = append([]Option{WithClock(clk), WithProbe(stub.probe)}, opts...)
	return NewService(fault.NewInjector(stub, stub), nil, nil, opts...), stub
}

func kill(at time.Duration) Step {
	return Step{At: at, Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-1"}}
}

func TestTTRIsFromLandingToFirstStableHealthySample(t *testing.T) {
	// Outage of 2s from a kill at 1s: samples at 1.0 … 2.9 are unhealthy,
	// 3.0, 3.1, 3.2 healthy ⇒ recovered at 3.0, TTR = 3.0 − 1.0 = 2s.
	svc, _ := virtualService(2 * time.Second)
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Faults) != 1 {
		t.Fatalf("faults = %d, want 1", len(rep.Faults))
	}
	f := rep.Faults[0]
	if !f.Recovered || !f.Degraded || f.TTR.D() != 2*time.Second {
		t.Errorf("fault = recovered %v degraded %v TTR %s, want true true 2s", f.Recovered, f.Degraded, f.TTR)
	}
	if rep.Samples != 101 || rep.HealthySamples != 81 {
		t.Errorf("samples = %d healthy %d, want 101 and 81 (20 unhealthy from 1.0 to 2.9)", rep.Samples, rep.HealthySamples)
	}
	if rep.Downtime.D() != 2*time.Second {
		t.Errorf("downtime = %s, want 2s", rep.Downtime)
	}
	if rep.MTTR.D() != 2*time.Second || rep.MaxTTR.D() != 2*time.Second || rep.P95TTR.D() != 2*time.Second {
		t.Errorf("MTTR/p95/max = %s/%s/%s, want 2s each", rep.MTTR, rep.P95TTR, rep.MaxTTR)
	}
	// A = 81/101·100; R = 0.7 + 0.3·(10−2)/9; C unmeasured (no checks).
	wantA := 100 * 81.0 / 101
	wantR := 100 * (0.7 + 0.3*8.0/9.0)
	wantTotal := (0.4*wantA + 0.3*wantR) / 0.7
	if !near(rep.Score.Availability.Score, wantA) || !near(rep.Score.Recovery.Score, wantR) || !near(rep.Score.Total, wantTotal) {
		t.Errorf("score = %+v, want A %.4f R %.4f total %.4f", rep.Score, wantA, wantR, wantTotal)
	}
	if rep.Score.Consistency.Measured {
		t.Error("consistency measured without checks")
	}
	wantTimeline := []Transition{{At: 0, Healthy: true}, {At: clock.Duration(time.Second), Reason: "stub down"}, {At: clock.Duration(3 * time.Second), Healthy: true}}
	if len(rep.Timeline) != len(wantTimeline) {
		t.Fatalf("timeline = %+v, want %+v", rep.Timeline, wantTimeline)
	}
	for i := range wantTimeline {
		if rep.Timeline[i] != wantTimeline[i] {
			t.Errorf("timeline[%d] = %+v, want %+v", i, rep.Timeline[i], wantTimeline[i])
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestTTROffGridLanding(t *testing.T) {
	// Landed at 1.05s, outage 2s ⇒ healthy from 3.05, first sample 3.1.
	svc, _ := virtualService(2 * time.Second)
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second}, kill(1050*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Faults[0].TTR.D(); got != 2050*time.Millisecond {
		t.Errorf("TTR = %s, want 2.05s", got)
	}
}

func TestNeverDegradedFaultHasTTRZero(t *testing.T) {
	svc, _ := virtualService(0)
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second}, kill(1050*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Faults[0]
	if !f.Recovered || f.Degraded || f.TTR != 0 {
		t.Errorf("fault = %+v, want recovered, not degraded, TTR 0", f)
	}
	if rep.Score.Recovery.Score != 100 || rep.Score.Availability.Score != 100 {
		t.Errorf("score = %+v, want 100 availability and recovery", rep.Score)
	}
}

func TestUnrecoveredFault(t *testing.T) {
	svc, _ := virtualService(-1)
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Faults[0]
	if f.Recovered || !f.Degraded {
		t.Errorf("fault = %+v, want unrecovered and degraded", f)
	}
	if rep.Unrecovered != 1 || rep.Recovered != 0 || rep.MTTR != 0 {
		t.Errorf("recovered/unrecovered/MTTR = %d/%d/%s, want 0/1/0s", rep.Recovered, rep.Unrecovered, rep.MTTR)
	}
	if rep.Score.Recovery.Score != 0 || !rep.Score.Recovery.Measured {
		t.Errorf("recovery = %+v, want measured 0", rep.Score.Recovery)
	}
}

func TestRecoveryDeadlineIsInclusive(t *testing.T) {
	for _, tc := range []struct {
		outage time.Duration
		want   bool
	}{{5 * time.Second, true}, {5*time.Second + 100*time.Millisecond, false}} {
		svc, _ := virtualService(tc.outage)
		opts := RunOptions{Seed: 1, Duration: 20 * time.Second, Observe: ObserveOptions{RecoveryDeadline: 5 * time.Second}}
		rep, err := RunSchedule(context.Background(), svc, opts, kill(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Faults[0].Recovered; got != tc.want {
			t.Errorf("outage %s with a 5s deadline: recovered = %v, want %v", tc.outage, got, tc.want)
		}
	}
}

// TestLaggingEffectIsNotNoImpact: a fault whose effect shows only after a
// while (an error rate, a timeout) is not "no impact" just because the first
// samples after it were healthy.
func TestLaggingEffectIsNotNoImpact(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	t0 := clk.Now()
	probe := func(context.Context) error {
		if d := clk.Now().Sub(t0); d >= 6*time.Second && d < 9*time.Second {
			return errors.New("error rate 0.40 above 0.20")
		}
		return nil
	}
	svc := NewService(fault.NewInjector(newStub(clk, 0), nil), nil, nil, WithClock(clk), WithProbe(probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 30 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; !f.Recovered || !f.Degraded || f.TTR.D() != 8*time.Second {
		t.Errorf("fault = %+v, want degraded and recovered after 8s (healthy again at 9s)", f)
	}
	rep, err = RunSchedule(context.Background(), NewService(fault.NewInjector(newStub(clk, 0), nil), nil, nil, WithClock(clk), WithProbe(probe)),
		RunOptions{Seed: 1, Duration: 30 * time.Second, Observe: ObserveOptions{SettleTime: 300 * time.Millisecond}}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; !f.Recovered || f.Degraded {
		t.Errorf("with a 300ms settle time: fault = %+v, want no impact (the lagging effect is missed)", f)
	}
}

func TestFaultSettledByRunEnd(t *testing.T) {
	svc, _ := virtualService(time.Second)
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; !f.Recovered || f.TTR.D() != time.Second {
		t.Errorf("fault = %+v, want recovered in 1s though the run ended within the settle time", f)
	}
	// Only 2 healthy samples (4.9s, 5.0s) by the end: the run watches on
	// for one more sample, and the fault is recovered (it used to be
	// reported unrecovered on a healthy system).
	svc, _ = virtualService(3900 * time.Millisecond)
	rep, err = RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; !f.Recovered || f.TTR.D() != 3900*time.Millisecond || rep.Overtime.D() != 100*time.Millisecond {
		t.Errorf("fault = %+v overtime %s, want recovered in 3.9s after 100ms of overtime", f, rep.Overtime)
	}
	if rep.Samples != 52 || rep.Undecided != 0 {
		t.Errorf("samples %d undecided %d, want 52 (0s…5.1s) and 0", rep.Samples, rep.Undecided)
	}
}

// A fault still down when the run's schedule ends is watched until it
// recovers or its deadline passes, at most RecoveryDeadline + SettleTime +
// StableSamples intervals past the end.
func TestOvertimeDecidesTheLastFault(t *testing.T) {
	for _, tc := range []struct {
		name          string
		outage        time.Duration
		wantRecovered bool
		wantOvertime  time.Duration
	}{
		// Down 4.0…13.9, up from 14.0: stable at 14.2.
		{"recovers after the end", 10 * time.Second, true, 9200 * time.Millisecond},
		// Never up again: decided at the first sample past 4s + 30s.
		{"never recovers", time.Hour, false, 29100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, _ := virtualService(tc.outage)
			rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second}, kill(4*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			f := rep.Faults[0]
			if f.Recovered != tc.wantRecovered || f.Undecided || rep.Overtime.D() != tc.wantOvertime {
				t.Errorf("fault recovered %v undecided %v, overtime %s; want recovered %v after %s of overtime",
					f.Recovered, f.Undecided, rep.Overtime, tc.wantRecovered, tc.wantOvertime)
			}
			if limit := (ObserveOptions{}).overtimeLimit(); rep.Overtime.D() > limit {
				t.Errorf("overtime %s past its limit %s", rep.Overtime, limit)
			}
		})
	}
}

// A run stopped or cancelled before its faults are decided reports them
// undecided, and leaves them out of the recovery score.
func TestStoppedRunLeavesFaultsUndecided(t *testing.T) {
	svc, _ := virtualService(time.Hour)
	r, err := svc.NewRun(RunOptions{Seed: 1, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r.Schedule(kill(time.Second))
	r.At(5*time.Second, KindPhase, func(context.Context) { r.Stop() })
	rep, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Faults[0]
	if !f.Undecided || f.Recovered || rep.Undecided != 1 || rep.Unrecovered != 0 || rep.Overtime != 0 {
		t.Errorf("fault %+v; report undecided %d unrecovered %d overtime %s; want undecided, 1, 0, 0", f, rep.Undecided, rep.Unrecovered, rep.Overtime)
	}
	if rep.Score.Recovery.Measured {
		t.Errorf("recovery measured (%v) with its only fault undecided", rep.Score.Recovery)
	}
	if st := svc.Stats(); st.FaultsUndecided != 1 || st.FaultsUnrecovered != 0 {
		t.Errorf("stats undecided %d unrecovered %d, want 1 and 0", st.FaultsUndecided, st.FaultsUnrecovered)
	}
	if !strings.Contains(rep.String(), "undecided: not observed long enough") {
		t.Errorf("text does not say undecided:\n%s", rep)
	}
}

func TestRecoveryNeedsStableSamples(t *testing.T) {
	// A probe that flaps: down 1.0–2.0, up 2.0–2.2 (two samples), down
	// 2.2–3.0, then up. With 3 stable samples the blip does not count.
	clk := clock.NewVirtual(time.Time{})
	t0 := clk.Now()
	probe := func(context.Context) error {
		d := clk.Now().Sub(t0)
		if (d >= time.Second && d < 2*time.Second) || (d >= 2200*time.Millisecond && d < 3*time.Second) {
			return errors.New("down")
		}
		return nil
	}
	stub := newStub(clk, 0)
	svc := NewService(fault.NewInjector(stub, nil), nil, nil, WithClock(clk), WithProbe(probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Faults[0].TTR.D(); got != 2*time.Second {
		t.Errorf("TTR = %s, want 2s (the 2-sample blip at 2.0s is not stable)", got)
	}
}

// TestRealTimeSlowProbeNeverGivesNegativeTTR: samples that started before a
// fault landed are not fed to it, however late the executor runs.
func TestRealTimeSlowProbeNeverGivesNegativeTTR(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := newStub(clock.Real{}, 2*time.Second)
		probe := func(ctx context.Context) error {
			time.Sleep(300 * time.Millisecond) // slower than the 100ms interval
			return stub.probe(ctx)
		}
		svc := NewService(fault.NewInjector(stub, nil), nil, nil, WithProbe(probe))
		rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 20 * time.Second}, kill(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.Faults[0]; !f.Recovered || f.TTR < 0 || f.TTR.D() > 3*time.Second {
			t.Errorf("fault = %+v, want recovered with a TTR in [0, 3s]", f)
		}
	})
}

func TestInjectionErrorsAreListedNotScored(t *testing.T) {
	svc, stub := virtualService(2 * time.Second)
	stub.failOn = "PauseAgent"
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second},
		Step{At: 500 * time.Millisecond, Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1"}},
		kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.InjectionErrors) != 1 || rep.InjectionErrors[0].Action.Type != fault.PauseAgent {
		t.Fatalf("injection errors = %+v, want the pause", rep.InjectionErrors)
	}
	if len(rep.Faults) != 1 {
		t.Errorf("faults = %d, want 1 (the failed pause is not a fault)", len(rep.Faults))
	}
	clean, _ := virtualService(2 * time.Second)
	want, err := RunSchedule(context.Background(), clean, RunOptions{Seed: 1, Duration: 10 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Score != want.Score {
		t.Errorf("score with an injection error = %+v, want %+v (the same as without it)", rep.Score, want.Score)
	}
}

func TestChecksRunAfterRecoveryAndAtEnd(t *testing.T) {
	calls := 0
	var at []clock.Duration
	check := fault.Check{Name: "ledger", Run: func(context.Context) error {
		calls++
		if calls == 1 {
			return errors.New("2 tasks lost")
		}
		return nil
	}}
	svc, _ := virtualService(2*time.Second, WithChecks(check))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 20 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		at = append(at, c.At)
	}
	// Recovered at 3s (TTR 2s), judged once the 10s settle time has passed.
	if len(rep.Checks) != 2 || at[0].D() != 11*time.Second || at[1].D() != 20*time.Second {
		t.Fatalf("checks at %v, want [11s 20s] (after the settle time, and at the end)", at)
	}
	if rep.Checks[0].Passed || rep.Checks[0].FaultID == "" || rep.Checks[0].Error != "2 tasks lost" {
		t.Errorf("first check = %+v, want failed for the fault", rep.Checks[0])
	}
	if len(rep.Faults[0].Checks) != 1 {
		t.Errorf("fault checks = %+v, want the one after recovery", rep.Faults[0].Checks)
	}
	if c := rep.Score.Consistency; !c.Measured || c.Score != 50 {
		t.Errorf("consistency = %+v, want measured 50", c)
	}
}

func TestTimedFaultIsLifted(t *testing.T) {
	svc, stub := virtualService(-1) // the fault would last for ever
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second},
		Step{At: time.Second, Action: fault.Action{Type: fault.NetworkPartition, TargetID: "worker-1", Metadata: map[string]any{"duration": "1.5s"}}})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Faults[0]
	if f.Lifted == nil || f.Lifted.D() != 2500*time.Millisecond {
		t.Fatalf("lifted = %v, want at 2.5s", f.Lifted)
	}
	if !f.Recovered || f.TTR.D() != 1500*time.Millisecond {
		t.Errorf("fault = %+v, want recovered in 1.5s", f)
	}
	calls := stub.Calls()
	if len(calls) != 2 || calls[1] != "Lift(network_partition,worker-1)" {
		t.Errorf("calls = %v, want the partition then its lift", calls)
	}
}

func TestKillsAreNeverLifted(t *testing.T) {
	svc, stub := virtualService(-1)
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second},
		Step{At: time.Second, Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-2"}},
		Step{At: 2 * time.Second, Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1"}}) // no duration
	if err != nil {
		t.Fatal(err)
	}
	// The pause has no duration: it stays for the whole run and is rolled
	// back at its end; the kill is the system's to heal.
	want := []string{"StopAgent(worker-2)", "PauseAgent(worker-1)", "Lift(pause_agent,worker-1)"}
	if calls := stub.Calls(); !slices.Equal(calls, want) {
		t.Errorf("calls = %v, want %v", calls, want)
	}
	if f := rep.Faults[1]; f.Lifted != nil {
		t.Errorf("pause lifted at %v during the run, want only the rollback at its end", *f.Lifted)
	}
	var got []string
	for _, rb := range rep.Rollback {
		got = append(got, rb.ActionID+" "+rb.Outcome+" "+rb.Detail)
	}
	wantRB := []string{rep.Faults[1].Action.ID + " lifted lifted at end", rep.Faults[0].Action.ID + " left_to_system left to the system's healing"}
	if !slices.Equal(got, wantRB) {
		t.Errorf("rollback = %q, want %q", got, wantRB)
	}
}

func TestNothingMeasuredHasNoGrade(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	svc := NewService(fault.NewInjector(newStub(clk, 0), nil), nil, nil, WithClock(clk)) // no probe, no checks
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Score.Measured || rep.Score.Grade != GradeNone || rep.Samples != 0 {
		t.Errorf("score = %+v samples %d, want unmeasured, no grade, no samples", rep.Score, rep.Samples)
	}
}

func TestRunScheduleRejectsBadSteps(t *testing.T) {
	svc, _ := virtualService(0)
	for _, tc := range []struct {
		step Step
		want string
	}{
		{Step{At: -time.Second, Action: fault.Action{Type: fault.KillLeader}}, "steps[0].at: negative offset -1s"},
		{Step{At: time.Hour, Action: fault.Action{Type: fault.KillLeader}}, "steps[0].at: 1h0m0s is after the run's end 10s"},
		{Step{Action: fault.Action{Type: "kill_everything"}}, `steps[0].action.type: unknown action type "kill_everything"`},
	} {
		_, err := RunSchedule(context.Background(), svc, RunOptions{Duration: 10 * time.Second}, tc.step)
		if err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
			t.Errorf("RunSchedule(%+v) = %v, want an error starting %q", tc.step, err, tc.want)
		}
	}
	if _, err := RunSchedule(context.Background(), svc, RunOptions{}); err == nil || err.Error() != "duration: must be positive, got 0s" {
		t.Errorf("RunSchedule without duration = %v", err)
	}
}

func TestCancelledRunReturnsPartialReport(t *testing.T) {
	svc, _ := virtualService(2 * time.Second)
	r, err := svc.NewRun(RunOptions{Seed: 1, Duration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.At(5*time.Second, KindPhase, func(context.Context) { cancel() })
	rep, err := r.Play(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Play = %v, want context.Canceled", err)
	}
	if rep == nil || rep.Samples != 51 {
		t.Errorf("partial report samples = %v, want 51 (0s to 5s)", rep)
	}
}

func TestRunStoppedEarlyEndsThere(t *testing.T) {
	svc, _ := virtualService(time.Second, WithChecks(fault.Check{Name: "ok", Run: func(context.Context) error { return nil }}))
	r, err := svc.NewRun(RunOptions{Seed: 1, Duration: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	r.Schedule(kill(time.Second))
	r.At(4*time.Second, KindPhase, func(context.Context) { r.Stop() })
	rep, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.End.Sub(rep.Start) != 4*time.Second || rep.Samples != 41 {
		t.Errorf("run ended after %s with %d samples, want 4s and 41", rep.End.Sub(rep.Start), rep.Samples)
	}
	if len(rep.Checks) != 1 || rep.Checks[0].At.D() != 4*time.Second {
		t.Errorf("checks = %+v, want the end-of-run check at 4s", rep.Checks)
	}
	if f := rep.Faults[0]; !f.Recovered || f.TTR.D() != time.Second {
		t.Errorf("fault = %+v, want recovered in 1s (settled by the early end)", f)
	}
}

// TestStopBeforeCheckEventStillReportsTheFault: a recovery decided at the
// last sample before Stop keeps its outcome and gets the end checks.
func TestStopBeforeCheckEventStillReportsTheFault(t *testing.T) {
	svc, _ := virtualService(time.Second, WithChecks(fault.Check{Name: "ok", Run: func(context.Context) error { return nil }}),
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

// TestReportListsAreCappedTotalsAreNot: a long run lists only ListCap faults,
// checks and injection errors, while counts, percentiles and the score cover
// every fault.
func TestReportListsAreCappedTotalsAreNot(t *testing.T) {
	svc, stub := virtualService(time.Second, WithChecks(fault.Check{Name: "ok", Run: func(context.Context) error { return nil }}))
	stub.failOn = "PauseAgent"
	var steps []Step
	for i := range 20 {
		steps = append(steps, kill(time.Duration(1+12*i)*time.Second)) // TTR 1s each
	}
	steps = append(steps, Step{At: 2 * time.Second, Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1"}},
		Step{At: 3 * time.Second, Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1"}})
	opts := RunOptions{Seed: 1, Duration: 250 * time.Second, Observe: ObserveOptions{ListCap: 5}}
	rep, err := RunSchedule(context.Background(), svc, opts, steps...)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Faults) != 5 || rep.Landed != 20 || rep.Recovered != 20 {
		t.Errorf("faults listed %d, landed %d, recovered %d; want 5, 20, 20", len(rep.Faults), rep.Landed, rep.Recovered)
	}
	if len(rep.Checks) != 5 || rep.ChecksRun != 21 || rep.ChecksPassed != 21 {
		t.Errorf("checks listed %d, run %d, passed %d; want 5, 21, 21", len(rep.Checks), rep.ChecksRun, rep.ChecksPassed)
	}
	if len(rep.InjectionErrors) != 2 || rep.InjectionErrorCount != 2 {
		t.Errorf("injection errors %d/%d, want 2/2", len(rep.InjectionErrors), rep.InjectionErrorCount)
	}
	if rep.MTTR.D() != time.Second || rep.P50TTR.D() != time.Second || rep.P99TTR.D() != time.Second || rep.MaxTTR.D() != time.Second {
		t.Errorf("TTR stats = %s %s %s %s, want 1s each", rep.MTTR, rep.P50TTR, rep.P99TTR, rep.MaxTTR)
	}
	if want := 100 * (0.7 + 0.3); rep.Score.Recovery.Score != want {
		t.Errorf("recovery = %v, want %v over all 20 faults", rep.Score.Recovery.Score, want)
	}
}

func TestQuantilesNearestRank(t *testing.T) {
	s := time.Second
	hist := map[time.Duration]int{1 * s: 50, 2 * s: 40, 5 * s: 9, 9 * s: 1} // 100 values
	got := quantiles(hist, 100, 0.5, 0.9, 0.95, 0.99, 1)
	want := []clock.Duration{clock.Duration(s), clock.Duration(2 * s), clock.Duration(5 * s), clock.Duration(5 * s), clock.Duration(9 * s)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("quantiles = %v, want %v", got, want)
			break
		}
	}
}

// TestNextFaultCutsSettleTimeShort: a fault healed and stable when the next
// one lands is recovered then; the next fault's outage is not added to it.
func TestNextFaultCutsSettleTimeShort(t *testing.T) {
	svc, _ := virtualService(2*time.Second, WithChecks(fault.Check{Name: "ok", Run: func(context.Context) error { return nil }}))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 30 * time.Second}, kill(time.Second), kill(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range rep.Faults {
		if !f.Recovered || f.TTR.D() != 2*time.Second {
			t.Errorf("fault %d = %+v, want recovered in 2s", i, f)
		}
	}
	// The first fault's checks run when the second lands (5s), the second's
	// after its settle time (15s), then at the end.
	var at []time.Duration
	for _, c := range rep.Checks {
		at = append(at, c.At.D())
	}
	if len(at) != 3 || at[0] != 5*time.Second || at[1] != 15*time.Second {
		t.Errorf("checks at %v, want [5s 15s 30s]", at)
	}
}
