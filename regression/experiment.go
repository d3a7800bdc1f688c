package regression

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
)

// A System is a strategy that builds the system it stands for, fresh for
// every trial: NewService returns a service over a new system seeded with
// seed, on a clock of its own, its probe and checks wired. fakes.Strategy
// is one (the fake cluster with a strategy's healing knobs). String names
// it in errors: `strategy "retries"`.
type System interface {
	NewService(seed uint64) (*engine.Service, error)
	String() string
}

// Experiment runs one seeded experiment against svc, a service over a
// fresh system, and returns the report it is scored by. Every random
// choice of the experiment must come from seed (pass it as
// engine.RunOptions.Seed), so that the only noise between runs is the seed.
type Experiment func(ctx context.Context, svc *engine.Service, seed uint64) (*engine.Report, error)

// ScheduleExperiment is the Experiment that plays a code-defined chaos
// schedule for d with engine.RunSchedule, seeded with the run's seed (which
// also picks the targets of selectors like "type:worker").
func ScheduleExperiment(d time.Duration, steps ...engine.Step) Experiment {
	steps = append([]engine.Step(nil), steps...)
	return func(ctx context.Context, svc *engine.Service, seed uint64) (*engine.Report, error) {
		return engine.RunSchedule(ctx, svc, engine.RunOptions{Seed: seed, Duration: d}, steps...)
	}
}

// ScenarioExperiment is the Experiment that plays a scenario (for example a
// built-in one from scenarios.Load) with scenario.Run, its config.seed
// replaced by the run's seed, and scores the run's observation. The
// scenario's own gate is not consulted: the A/B test compares scores. A
// run that did not complete (cancelled, timed out) is an error.
func ScenarioExperiment(sc *scenario.Scenario) Experiment {
	if sc == nil {
		panic("arena: regression.ScenarioExperiment: nil scenario")
	}
	return func(ctx context.Context, svc *engine.Service, seed uint64) (*engine.Report, error) {
		run := *sc // a copy per run: runs may be concurrent
		run.Config.Seed = seed
		rep, err := scenario.Run(ctx, svc, &run)
		if err != nil {
			return nil, err
		}
		if rep.Outcome != scenario.OutcomeCompleted && rep.Outcome != scenario.OutcomeStopped {
			return nil, fmt.Errorf("scenario %q: run %s", sc.Name, rep.Outcome)
		}
		return rep.Report, nil
	}
}

// SurvivalExperiment is the Experiment that makes a survival run
// (engine.Service.RunSurvival) with cfg, seeded with the run's seed, and
// scores its report.
func SurvivalExperiment(cfg engine.SurvivalConfig) Experiment {
	return func(ctx context.Context, svc *engine.Service, seed uint64) (*engine.Report, error) {
		c := cfg
		c.Seed = seed
		rep, err := svc.RunSurvival(ctx, c)
		if err != nil {
			return nil, err
		}
		return rep.Report, nil
	}
}

// ExperimentScorer is a ContextScorer that scores a strategy by
// experiment: for each Trial whose Strategy is a System it builds a fresh
// system seeded with Trial.Seed (System.NewService), runs the experiment
// and returns the report's total score. The two arms of a pair share a
// seed, so they face the same workload and the same targets.
//
// Runs share nothing, so a Tester may score them in parallel.
type ExperimentScorer struct {
	experiment Experiment
}

var _ ContextScorer = (*ExperimentScorer)(nil)

// NewExperimentScorer returns a scorer that runs exp for every trial. A
// nil exp panics.
func NewExperimentScorer(exp Experiment) *ExperimentScorer {
	if exp == nil {
		panic("arena: regression.NewExperimentScorer: nil experiment")
	}
	return &ExperimentScorer{experiment: exp}
}

// ErrNotMeasured: the experiment's report has no score (it measured
// nothing), so there is nothing to compare.
var ErrNotMeasured = errors.New("run measured nothing")

// Score is ScoreContext with context.Background().
func (s *ExperimentScorer) Score(input any) (float64, error) {
	return s.ScoreContext(context.Background(), input)
}

// ScoreContext scores one trial: input must be a Trial (or *Trial) whose
// Strategy is a System.
func (s *ExperimentScorer) ScoreContext(ctx context.Context, input any) (float64, error) {
	var tr Trial
	switch v := input.(type) {
	case Trial:
		tr = v
	case *Trial:
		if v == nil {
			return 0, errors.New("regression: experiment scorer: nil trial")
		}
		tr = *v
	default:
		return 0, fmt.Errorf("regression: experiment scorer: input is %T, want regression.Trial", input)
	}
	sys, ok := AsSystem(tr.Strategy)
	if !ok {
		if _, typed := tr.Strategy.(System); typed { // a nil pointer: AsSystem refuses it
			return 0, fmt.Errorf("regression: experiment scorer: nil %s strategy", tr.Arm)
		}
		return 0, fmt.Errorf("regression: experiment scorer: %s strategy is %T, want a regression.System such as fakes.Strategy", tr.Arm, tr.Strategy)
	}
	rep, err := s.Report(ctx, sys, tr.Seed)
	if err != nil {
		return 0, err
	}
	return rep.Score.Total, nil
}

// AsSystem returns v as a System when it is one that can build services:
// a nil pointer in the interface has the methods but nothing to call them
// on, and is not.
func AsSystem(v any) (System, bool) {
	sys, ok := v.(System)
	if !ok {
		return nil, false
	}
	if rv := reflect.ValueOf(sys); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, false
	}
	return sys, true
}

// Report runs the experiment once on the system with seed and returns the
// whole report: the way to look into one run of an A/B test, whose seed
// the test's result and errors name.
func (s *ExperimentScorer) Report(ctx context.Context, sys System, seed uint64) (*engine.Report, error) {
	svc, err := sys.NewService(seed)
	if err != nil {
		return nil, err
	}
	rep, err := s.experiment(ctx, svc, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: seed %d: %w", sys, seed, err)
	}
	if rep == nil || !rep.Score.Measured {
		return nil, fmt.Errorf("%s: seed %d: %w", sys, seed, ErrNotMeasured)
	}
	return rep, nil
}
