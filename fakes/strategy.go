package fakes

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/regression"
	"github.com/ares-arena/arena/scenario"
)

// Strategy is one way of running the fake cluster, under a name: its
// self-healing mechanisms and knobs, workload and health options. It is
// what an A/B test compares, as a regression.System that
// regression.ExperimentScorer builds afresh for every trial:
//
//	retries := fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
//	none := fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
//
// WithSeed and WithClock do not belong in a strategy: every run's cluster
// is seeded by the run and follows its own virtual clock.
type Strategy struct {
	Name    string
	Options []Option
}

var _ regression.System = Strategy{}

// NewService builds a fresh Cluster with the strategy's options, seeded
// with seed, on a new virtual clock, and a service over it: probe and
// checks wired, selectors seeded with seed. Options that would take the
// run's seed or clock away, and invalid ones, are an error naming the
// strategy.
func (st Strategy) NewService(seed uint64) (*engine.Service, error) {
	if err := st.validate(); err != nil {
		return nil, err
	}
	clk := clock.NewVirtual(time.Time{})
	c, err := newStrategyCluster(st, clk, seed)
	if err != nil {
		return nil, err
	}
	return engine.NewService(fault.NewInjector(c, c), nil, nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...), engine.WithSeed(seed)), nil
}

// String names the strategy in errors: strategy "retries".
func (st Strategy) String() string { return "strategy " + strconv.Quote(st.Name) }

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
func newStrategyCluster(st Strategy, clk clock.Clock, seed uint64) (c *Cluster, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("strategy %q: %v", st.Name, p)
		}
	}()
	opts := append([]Option{WithClock(clk), WithSeed(seed)}, st.Options...)
	return NewCluster(opts...), nil
}

// The A/B harness that lived here is package regression's now: these are
// its names as they were in package fakes, kept for one release.

// Experiment is regression.Experiment.
//
// Deprecated: use regression.Experiment.
type Experiment = regression.Experiment

// StrategyScorer is regression.ExperimentScorer.
//
// Deprecated: use regression.ExperimentScorer.
type StrategyScorer = regression.ExperimentScorer

// ErrNotMeasured is regression.ErrNotMeasured.
//
// Deprecated: use regression.ErrNotMeasured.
var ErrNotMeasured = regression.ErrNotMeasured

// ScheduleExperiment is regression.ScheduleExperiment.
//
// Deprecated: use regression.ScheduleExperiment.
func ScheduleExperiment(d time.Duration, steps ...engine.Step) Experiment {
	return regression.ScheduleExperiment(d, steps...)
}

// ScenarioExperiment is regression.ScenarioExperiment.
//
// Deprecated: use regression.ScenarioExperiment.
func ScenarioExperiment(sc *scenario.Scenario) Experiment { return regression.ScenarioExperiment(sc) }

// SurvivalExperiment is regression.SurvivalExperiment.
//
// Deprecated: use regression.SurvivalExperiment.
func SurvivalExperiment(cfg engine.SurvivalConfig) Experiment {
	return regression.SurvivalExperiment(cfg)
}

// NewStrategyScorer is regression.NewExperimentScorer.
//
// Deprecated: use regression.NewExperimentScorer.
func NewStrategyScorer(exp Experiment) *StrategyScorer { return regression.NewExperimentScorer(exp) }
