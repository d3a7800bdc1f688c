package arena

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// realTimeGrace is how long past its end a real-time scenario run waits for
// injections still in flight before their context is cancelled.
const realTimeGrace = 5 * time.Second

var errScenarioTimeout = errors.New("scenario timeout")

// RunScenarioReport validates sc and plays it as one observed run on svc:
//
//   - The run starts with the warmup; probe samples, fault tracking and
//     checks cover the whole run (warmup, steps, cooldown), as in any Run.
//   - Steps run in list order, each Delay after the previous one completed.
//     With parallel_actions they form a DAG: a step is ready when all of its
//     depends_on have completed (landed or not), starts Delay later, and at
//     most max_concurrent injections are in flight (see scheduler).
//   - A step passes when its injection meets its expectation (landed, or
//     refused with expect_failure). With stop_on_error the first failed step
//     stops new starts; steps not started are skipped.
//   - The run ends Cooldown after the last step completed, or at the
//     timeout, or when ctx ends; steps not started then are skipped.
//   - Selectors draw from the run's seed (config.seed; 0 draws one, which the
//     report shows), so a virtual run is reproducible.
//
// The report covers this run only. The gate passes when every step passed,
// the run completed, and the scenario's expect block holds. If ctx ends
// first, RunScenarioReport returns the partial report (gate inconclusive)
// with ctx's error. An invalid scenario is an error (ScenarioErrors,
// checked by svc.ValidateScenario: the service's own fault types are known,
// and a step the runtime cannot land is a problem of that step), as is a
// step that needs a provider the service lacks (ErrNoRuntime, ErrNoDAG).
func RunScenarioReport(ctx context.Context, svc *Service, sc *Scenario) (*ScenarioReport, error) {
	if err := svc.ValidateScenario(sc); err != nil {
		return nil, err
	}
	for i, st := range sc.Actions {
		if err := svc.injector.Unsupported(st.Action.Type); err != nil {
			return nil, fmt.Errorf("scenario %q: actions[%d]: %s: %w", sc.Name, i, st.Action.Type, err)
		}
	}
	r, err := svc.NewRun(RunOptions{Seed: sc.Config.Seed, Duration: sc.runLimit(), Observe: sc.Config.observeOptions()})
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
	}
	r.origin, r.name, r.planned = OriginScenario, sc.Name, sc.PlannedLength()
	r.overtimeAtEnd, r.bound = false, r.End() // reaching the limit is the timeout: no overtime past it
	r.abortWhen(sc.Config.AbortWhen)
	if !sc.Config.AllowUnhealthyStart {
		r.startGate(sc.Config.Warmup.D(), fmt.Sprintf("the end of the warmup (%s)", trimDuration(sc.Config.Warmup.D())))
	}
	playCtx := ctx
	if !r.ex.Virtual() {
		// A provider call that hangs must not hold the run past its end.
		var cancel context.CancelFunc
		playCtx, cancel = context.WithTimeoutCause(ctx, r.End().Sub(r.Start())+realTimeGrace, errScenarioTimeout)
		defer cancel()
	}
	s := newScheduler(playCtx, r, sc)
	s.start()
	rep, playErr := r.Play(playCtx)

	cancelErr := ctx.Err()
	if playErr != nil && cancelErr == nil && !errors.Is(context.Cause(playCtx), errScenarioTimeout) {
		return nil, fmt.Errorf("scenario %q: %w", sc.Name, playErr) // not expected: Play fails only with its context
	}
	outcome := s.outcome()
	switch {
	case rep.Aborted != "":
		outcome = OutcomeAborted
		s.finish("aborted: " + rep.Aborted)
	case cancelErr != nil:
		outcome = OutcomeCancelled
		s.finish(fmt.Sprintf("cancelled: %v", cancelErr))
	case outcome == OutcomeTimedOut:
		s.finish(fmt.Sprintf("not started by the end of the run (%s)", trimDuration(r.End().Sub(r.Start()))))
	}
	out := s.report(rep, outcome)
	out.Gate = judge(sc, out, cancelErr)
	if cancelErr != nil {
		return out, cancelErr
	}
	return out, nil
}

// report builds the scenario report from the schedule and the run's report.
func (s *scheduler) report(rep *Report, outcome RunOutcome) *ScenarioReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.sc
	out := &ScenarioReport{
		Scenario: sc.Name, Description: sc.Description, Tags: sc.Tags, Source: sc.Source(),
		Seed: s.r.Seed(), Virtual: s.r.ex.Virtual(), Start: s.r.Start(), End: rep.End,
		Outcome: outcome, Steps: make([]StepReport, len(sc.Actions)), Report: rep,
	}
	for i, st := range sc.Actions {
		run := s.steps[i]
		sr := StepReport{
			Index: i, Label: st.Label, Type: st.Action.Type, Target: st.Action.TargetID, Source: st.Action.SourceID,
			DependsOn: st.DependsOn, Expect: ExpectSuccess, Reason: run.reason,
		}
		if st.ExpectFailure {
			sr.Expect = ExpectFailure
		}
		if !run.ready.IsZero() {
			sr.Ready = durationPtr(run.ready.Sub(s.r.Start()))
		}
		switch run.phase {
		case phaseDone:
			res := run.result
			sr.Result, sr.Started = &res, durationPtr(res.StartedAt.Sub(s.r.Start())) // the fault's time, as in the fault table
			if run.met {
				sr.Status = StepPassed
				out.Passed++
			} else {
				sr.Status = StepFailed
				out.Failed++
			}
		default:
			sr.Status = StepSkipped
			out.Skipped++
		}
		out.Steps[i] = sr
	}
	return out
}

func durationPtr(d time.Duration) *Duration {
	v := Duration(d)
	return &v
}
