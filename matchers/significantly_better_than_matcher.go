package matchers

import (
	"context"
	"fmt"

	"github.com/onsi/gomega/format"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/regression"
)

// SignificantlyBetterThanMatcher is the matcher of SignificantlyBetterThan.
// Zero fields mean arena's defaults.
type SignificantlyBetterThanMatcher struct {
	Baseline   any
	Experiment regression.Experiment
	Scorer     regression.Scorer
	Alpha      float64
	MaxRuns    int
	Seed       uint64

	save    **regression.Result
	res     *regression.Result
	samples bool
	actual  any
}

// Match runs the A/B test and reports whether its verdict is regression.VerdictBetter.
func (m *SignificantlyBetterThanMatcher) Match(actual any) (bool, error) {
	m.actual, m.res = actual, nil
	var res *regression.Result
	var err error
	cand, candOK := actual.([]float64)
	base, baseOK := m.Baseline.([]float64)
	switch {
	case candOK && baseOK:
		m.samples = true
		if res, err = regression.CompareScores(regression.Config{Alpha: m.Alpha}, base, cand); err != nil {
			err = fmt.Errorf("SignificantlyBetterThan: %w", err)
		}
	case candOK || baseOK:
		return false, fmt.Errorf("SignificantlyBetterThan matcher compares scores with scores or strategies with strategies.  Got:\n%s\nand baseline\n%s",
			got(actual), got(m.Baseline))
	default:
		res, err = m.runStrategies(actual)
	}
	if err != nil {
		return false, err
	}
	m.res = res
	if m.save != nil {
		*m.save = res
	}
	return res.Verdict == regression.VerdictBetter, nil
}

func (m *SignificantlyBetterThanMatcher) runStrategies(actual any) (*regression.Result, error) {
	scorer := m.Scorer
	if scorer == nil {
		for _, v := range []any{actual, m.Baseline} {
			if !isStrategy(v) {
				return nil, fmt.Errorf("SignificantlyBetterThan matcher expects []float64 scores or regression.System values such as fakes.Strategy (strategies of another kind need WithScorer).  Got:\n%s",
					got(v))
			}
		}
		exp := m.Experiment
		if exp == nil {
			exp = arenatest.DefaultExperiment()
		}
		scorer = regression.NewExperimentScorer(exp)
	}
	seed, forced, err := arenatest.SeedOverride()
	switch {
	case err != nil:
		return nil, fmt.Errorf("SignificantlyBetterThan: %w", err)
	case !forced:
		seed = m.Seed
	}
	res, err := regression.NewTester(nil, scorer).Run(context.Background(), regression.Config{
		Baseline: m.Baseline, Candidate: actual, Mode: regression.ModeSequential,
		Alpha: m.Alpha, MaxRuns: m.MaxRuns, Seed: seed,
	})
	if err != nil {
		return nil, fmt.Errorf("SignificantlyBetterThan: %w", err)
	}
	return res, nil
}

// isStrategy reports whether v is a system the matcher can score by
// experiment: a regression.System such as fakes.Strategy.
func isStrategy(v any) bool {
	_, ok := regression.AsSystem(v)
	return ok
}

// FailureMessage shows both arms and the test's answer.
func (m *SignificantlyBetterThanMatcher) FailureMessage(any) string {
	return m.message("to be significantly better than")
}

// NegatedFailureMessage shows both arms and the test's answer.
func (m *SignificantlyBetterThanMatcher) NegatedFailureMessage(any) string {
	return m.message("not to be significantly better than")
}

// message:
//
//	Expected
//	    <string>: "no retries": mean 92.3, sd 0.7 over 4 runs
//	to be significantly better than
//	    <string>: "retries": mean 97.9, sd 0.1 over 4 runs
//	but the A/B test says worse: p=0.015 n=4+4 Δ=-5.7 g=-10.16 [-15.33, -4.99] (seed 1: replay it with -arena.seed=1)
func (m *SignificantlyBetterThanMatcher) message(what string) string {
	r := m.res
	msg := format.Message(arm(m.actual, r.Candidate, m.samples), what, arm(m.Baseline, r.Baseline, m.samples))
	msg += "\nbut the A/B test says " + r.String()
	if !m.samples {
		msg += fmt.Sprintf(" (seed %d: replay it with -%s=%d)", r.Seed, arenatest.SeedFlag, r.Seed)
	}
	return msg
}

// arm: `"retries": mean 97.9, sd 0.1 over 4 runs`, or for samples
// `scores: mean 77.5, sd 3.3 over 10 runs`.
func arm(v any, s regression.ArmSummary, samples bool) string {
	name := "scores"
	if !samples {
		name = strategyName(v)
	}
	return fmt.Sprintf("%s: mean %.1f, sd %.1f over %d runs", name, s.Mean, s.SD, s.Runs)
}

func strategyName(v any) string {
	switch s := v.(type) {
	case fakes.Strategy:
		return fmt.Sprintf("%q", s.Name)
	case *fakes.Strategy:
		return fmt.Sprintf("%q", s.Name)
	case fmt.Stringer:
		return fmt.Sprintf("%q", s.String())
	case string:
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}
