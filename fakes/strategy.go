package fakes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ares-arena/arena"
)

// Strategy is one way of running the fake cluster, under a name: its
// self-healing mechanisms and knobs, workload and health options. It is
// what an A/B test compares:
//
//	retries := fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
//	none := fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
//
// WithSeed and WithClock do not belong in a strategy: every run's cluster
// is seeded by the run and follows its own virtual clock.
//
// An Experiment says what each run does to the cluster: a code-defined
// schedule (ScheduleExperiment), a scenario such as a built-in one
// (ScenarioExperiment), a survival run (SurvivalExperiment), or any
// function of the service and the seed.
type Strategy struct {
	Name    string
	Options []Option
}

// Experiment runs one seeded experiment against svc, a service over a
// fresh cluster on a virtual clock, and returns the report it is scored by.
// Every random choice of the experiment must come from seed (pass it as
// arena.RunOptions.Seed), so that the only noise between runs is the seed.
type Experiment func(ctx context.Context, svc *arena.Service, seed uint64) (*arena.Report, error)

// ScheduleExperiment is the Experiment that plays a code-defined chaos
// schedule for d with arena.RunSchedule, seeded with the run's seed (which
// also picks the targets of selectors like "type:worker").
func ScheduleExperiment(d time.Duration, steps ...arena.Step) Experiment {
	steps = append([]arena.Step(nil), steps...)
	return func(ctx context.Context, svc *arena.Service, seed uint64) (*arena.Report, error) {
		return arena.RunSchedule(ctx, svc, arena.RunOptions{Seed: seed, Duration: d}, steps...)
	}
}

// ScenarioExperiment is the Experiment that plays a scenario (for example a
// built-in one from scenarios.Load) with arena.RunScenarioReport, its
// config.seed replaced by the run's seed, and scores the run's observation.
// The scenario's own gate is not consulted: the A/B test compares scores.
// A run that did not complete (cancelled, timed out) is an error.
func ScenarioExperiment(sc *arena.Scenario) Experiment {
	if sc == nil {
		panic("fakes: ScenarioExperiment: nil scenario")
	}
	return func(ctx context.Context, svc *arena.Service, seed uint64) (*arena.Report, error) {
		run := *sc // a copy per run: runs may be concurrent
		run.Config.Seed = seed
		rep, err := arena.RunScenarioReport(ctx, svc, &run)
		if err != nil {
			return nil, err
		}
		if rep.Outcome != arena.OutcomeCompleted && rep.Outcome != arena.OutcomeStopped {
			return nil, fmt.Errorf("scenario %q: run %s", sc.Name, rep.Outcome)
		}
		return rep.Report, nil
	}
}

// SurvivalExperiment is the Experiment that makes a survival run
// (Service.RunSurvival) with cfg, seeded with the run's seed, and scores
// its report.
func SurvivalExperiment(cfg arena.SurvivalConfig) Experiment {
	return func(ctx context.Context, svc *arena.Service, seed uint64) (*arena.Report, error) {
		c := cfg
		c.Seed = seed
		rep, err := svc.RunSurvival(ctx, c)
		if err != nil {
			return nil, err
		}
		return rep.Report, nil
	}
}

// StrategyScorer is an arena.ContextScorer that scores a strategy by
// experiment: for each arena.Trial whose Strategy is a Strategy (or a
// *Strategy) it builds a fresh Cluster with the strategy's options, seeded
// with Trial.Seed, on a new virtual clock, and a service over it (probe and
// checks wired, selectors seeded with Trial.Seed), runs the experiment and
// returns the report's total score. The two arms of a pair share a seed,
// so they face the same workload and the same targets.
//
// Runs share nothing, so a RegressionTester may score them in parallel.
type StrategyScorer struct {
	experiment Experiment
}

var _ arena.ContextScorer = (*StrategyScorer)(nil)

// NewStrategyScorer returns a scorer that runs exp for every trial. A nil
// exp panics.
func NewStrategyScorer(exp Experiment) *StrategyScorer {
	if exp == nil {
		panic("fakes: NewStrategyScorer: nil experiment")
	}
	return &StrategyScorer{experiment: exp}
}

// ErrNotMeasured: the experiment's report has no score (it measured
// nothing), so there is nothing to compare.
var ErrNotMeasured = errors.New("run measured nothing")

// Score is ScoreContext with context.Background().
func (s *StrategyScorer) Score(input any) (float64, error) {
	return s.ScoreContext(context.Background(), input)
}

// ScoreContext scores one trial: input must be an arena.Trial (or
// *arena.Trial) whose Strategy is a Strategy (or *Strategy).
func (s *StrategyScorer) ScoreContext(ctx context.Context, input any) (float64, error) {
	var tr arena.Trial
	switch v := input.(type) {
	case arena.Trial:
		tr = v
	case *arena.Trial:
		if v == nil {
			return 0, errors.New("fakes: strategy scorer: nil trial")
		}
		tr = *v
	default:
		return 0, fmt.Errorf("fakes: strategy scorer: input is %T, want arena.Trial", input)
	}
	var st Strategy
	switch v := tr.Strategy.(type) {
	case Strategy:
		st = v
	case *Strategy:
		if v == nil {
			return 0, errors.New("fakes: strategy scorer: nil strategy")
		}
		st = *v
	default:
		return 0, fmt.Errorf("fakes: strategy scorer: %s strategy is %T, want fakes.Strategy", tr.Arm, tr.Strategy)
	}
	rep, err := s.Report(ctx, st, tr.Seed)
	if err != nil {
		return 0, err
	}
	return rep.Score.Total, nil
}

// Report runs the experiment once for strategy with seed and returns the
// whole report: the way to look into one run of an A/B test, whose seed
// the test's result and errors name.
func (s *StrategyScorer) Report(ctx context.Context, strategy Strategy, seed uint64) (*arena.Report, error) {
	if err := strategy.validate(); err != nil {
		return nil, err
	}
	clock := arena.NewVirtualClock(time.Time{})
	c, err := newStrategyCluster(strategy, clock, seed)
	if err != nil {
		return nil, err
	}
	svc := arena.NewService(arena.NewInjector(c, c), nil, nil,
		arena.WithClock(clock), arena.WithProbe(c.Probe), arena.WithChecks(c.Checks()...), arena.WithSeed(seed))
	rep, err := s.experiment(ctx, svc, seed)
	if err != nil {
		return nil, fmt.Errorf("strategy %q: seed %d: %w", strategy.Name, seed, err)
	}
	if rep == nil || !rep.Score.Measured {
		return nil, fmt.Errorf("strategy %q: seed %d: %w", strategy.Name, seed, ErrNotMeasured)
	}
	return rep, nil
}

// validate rejects options that would take the run's seed or clock away.
func (st Strategy) validate() error {
	for i, o := range st.Options {
		switch o.(type) {
		case nil:
			return fmt.Errorf("strategy %q: options[%d]: nil option", st.Name, i)
		case seedOption:
			return fmt.Errorf("strategy %q: options[%d]: WithSeed: each run is seeded by its trial", st.Name, i)
		case clockOption:
			return fmt.Errorf("strategy %q: options[%d]: WithClock: each run has its own virtual clock", st.Name, i)
		}
	}
	return nil
}

// newStrategyCluster builds the run's cluster; invalid options, which make
// NewCluster panic, become an error naming the strategy.
func newStrategyCluster(st Strategy, clock arena.Clock, seed uint64) (c *Cluster, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("strategy %q: %v", st.Name, p)
		}
	}()
	opts := append([]Option{WithClock(clock), WithSeed(seed)}, st.Options...)
	return NewCluster(opts...), nil
}
