package scenario

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/internal/bound"
)

// realTimeGrace is how long past its end a real-time scenario run waits for
// injections still in flight before their context is cancelled.
const realTimeGrace = 5 * time.Second

var errScenarioTimeout = errors.New("scenario timeout")

// Run validates sc and plays it as one observed run on svc:
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
// first, Run returns the partial report (gate inconclusive)
// with ctx's error. An invalid scenario is an error (Errors,
// checked by ValidateFor: the service's own fault types are known,
// and a step the runtime cannot land is a problem of that step), as is a
// step that needs a provider the service lacks (ErrNoRuntime, ErrNoDAG),
// and a step whose target the system does not list (fault.Targets): an
// agent's ID, a selector no agent fits (type:worker where there are no
// workers), a DAG node or edge; the error names the step, the target, what
// the system lists and the fix. Such a run never starts. A role nobody
// holds before the run (no leader elected yet) is checked again at the end
// of the warmup: if nobody holds it then, the run stops before its first
// fault with the same kind of error.
func Run(ctx context.Context, svc *engine.Service, sc *Scenario) (*Report, error) {
	if err := ValidateFor(svc, sc); err != nil {
		return nil, err
	}
	for i, st := range sc.Actions {
		if err := svc.Injector().Unsupported(st.Action.Type); err != nil {
			return nil, fmt.Errorf("scenario %q: actions[%d]: %s: %w", sc.Name, i, st.Action.Type, err)
		}
	}
	var later []int
	if ctx.Err() == nil { // cancelled already: the run ends at once, inconclusive
		var err error
		if later, err = checkTargets(ctx, svc.Injector(), sc); err != nil {
			return nil, err
		}
	}
	r, err := svc.NewRun(engine.RunOptions{
		Seed: sc.Config.Seed, Duration: sc.runLimit(), Observe: sc.Config.ObserveOptions(),
		Origin: engine.OriginScenario, Name: sc.Name, Planned: sc.PlannedLength(), Limit: true,
	})
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
	}
	if err := r.AbortWhen(sc.Config.AbortWhen); err != nil { // validated above: only a programming error
		return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
	}
	if !sc.Config.AllowUnhealthyStart {
		r.StartGate(sc.Config.Warmup.D(), fmt.Sprintf("the end of the warmup (%s)", bound.FormatDuration(sc.Config.Warmup.D())))
	}
	var refused atomic.Pointer[Errors]
	if len(later) > 0 {
		// Roles nobody held before the run (no leader elected yet) must be
		// held once the warmup is over, before the first fault.
		warmup := sc.Config.Warmup.D()
		r.At(warmup, engine.KindInject, func(ctx context.Context) {
			if errs := recheckRoles(ctx, svc.Injector(), sc, later, warmup); len(errs) > 0 {
				refused.Store(&errs)
				r.Stop()
			}
		})
	}
	playCtx := ctx
	if !r.Virtual() {
		// A provider call that hangs must not hold the run past its end.
		var cancel context.CancelFunc
		playCtx, cancel = context.WithTimeoutCause(ctx, r.End().Sub(r.Start())+realTimeGrace, errScenarioTimeout)
		defer cancel()
	}
	s := newScheduler(playCtx, r, sc)
	s.start()
	rep, playErr := r.Play(playCtx)

	if errs := refused.Load(); errs != nil {
		return nil, *errs
	}
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
		s.finish(fmt.Sprintf("not started by the end of the run (%s)", bound.FormatDuration(r.End().Sub(r.Start()))))
	}
	out := s.report(rep, outcome)
	out.Gate = judge(sc, out, cancelErr)
	if cancelErr != nil {
		return out, cancelErr
	}
	return out, nil
}

// report builds the scenario report from the schedule and the run's report.
func (s *scheduler) report(rep *engine.Report, outcome Outcome) *Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.sc
	out := &Report{
		Scenario: sc.Name, Description: sc.Description, Tags: sc.Tags, Source: sc.Source(),
		Seed: s.r.Seed(), Virtual: s.r.Virtual(), Start: s.r.Start(), End: rep.End,
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

func durationPtr(d time.Duration) *clock.Duration {
	v := clock.Duration(d)
	return &v
}
