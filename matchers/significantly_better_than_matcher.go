package matchers

import (
	"context"
	"fmt"

	"github.com/onsi/gomega/format"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fakes"
)

// SignificantlyBetterThanMatcher is the matcher of SignificantlyBetterThan.
// Zero fields mean arena's defaults.
type SignificantlyBetterThanMatcher struct {
	Baseline   any
	Experiment fakes.Experiment
	Scorer     arena.Scorer
	Alpha      float64
	MaxRuns    int
	Seed       uint64

	save    **arena.RegressionResult
	res     *arena.RegressionResult
	samples bool
	actual  any
}

// Match runs the A/B test and reports whether its verdict is arena.VerdictBetter.
func (m *SignificantlyBetterThanMatcher) Match(actual any) (bool, error) {
	m.actual, m.res = actual, nil
	var res *arena.RegressionResult
	var err error
	cand, candOK := actual.([]float64)
	base, baseOK := m.Baseline.([]float64)
	switch {
	case candOK && baseOK:
		m.samples = true
		if res, err = arena.CompareScores(arena.RegressionConfig{Alpha: m.Alpha}, base, cand); err != nil {
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
	return res.Verdict == arena.VerdictBetter, nil
}

func (m *SignificantlyBetterThanMatcher) runStrategies(actual any) (*arena.RegressionResult, error) {
	scorer := m.Scorer
	if scorer == nil {
		for _, v := range []any{actual, m.Baseline} {
			if !isStrategy(v) {
				return nil, fmt.Errorf("SignificantlyBetterThan matcher expects []float64 scores or fakes.Strategy values (strategies of another kind need WithScorer).  Got:\n%s",
					got(v))
			}
		}
		exp := m.Experiment
		if exp == nil {
			exp = arenatest.DefaultExperiment()
		}
		scorer = fakes.NewStrategyScorer(exp)
	}
	seed, forced, err := arenatest.SeedOverride()
	switch {
	case err != nil:
		return nil, fmt.Errorf("SignificantlyBetterThan: %w", err)
	case !forced:
		seed = m.Seed
	}
	res, err := arena.NewRegressionTester(nil, scorer).Run(context.Background(), arena.RegressionConfig{
		Baseline: m.Baseline, Candidate: actual, Mode: arena.ModeSequential,
		Alpha: m.Alpha, MaxRuns: m.MaxRuns, Seed: seed,
	})
	if err != nil {
		return nil, fmt.Errorf("SignificantlyBetterThan: %w", err)
	}
	return res, nil
}

func isStrategy(v any) bool {
	switch s := v.(type) {
	case fakes.Strategy:
		return true
	case *fakes.Strategy:
		return s != nil
	}
	return false
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
//	    <string>: "no retries": mean 93.1, sd 0.2 over 4 runs
//	to be significantly better than
//	    <string>: "retries": mean 97.9, sd 0.1 over 4 runs
//	but the A/B test says worse: p=0.013 n=4+4 Δ=-4.8 g=-22.56 [-33.69, -11.42] (seed 1: replay it with -arena.seed=1)
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
func arm(v any, s arena.ArmSummary, samples bool) string {
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
