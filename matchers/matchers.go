// Package matchers holds Gomega matchers for arena's results: the grade,
// score, recovery and consistency of a run, a scenario's expectations, and
// A/B tests of strategies.
//
//	It("survives a day of chaos", func() {
//		rep := arenatest.Survive(GinkgoT(), engine.SurvivalConfig{Duration: 24 * time.Hour, Seed: 7},
//			arenatest.Virtual())
//		Expect(rep).To(matchers.SurviveWithGrade("B"))
//	})
//
//	Expect(retryWithBackoff).To(matchers.SignificantlyBetterThan(noRetry))
//
// The report matchers take a *scenario.Report, *engine.SurvivalReport
// or *engine.Report (MeetExpectations: a scenario report). Any other value
// is an error from Match, which fails the assertion either way, as is a run
// that measured nothing the matcher could judge: a run without a grade has
// no grade at least B, and none below it either.
//
// Messages name the run, its seed and what it did, never a dump of the
// report:
//
//	Expected
//	    <string>: survival run (seed 7): grade F, score 33.6
//	to survive with grade at least
//	    <engine.Grade>: B
//
// # Index
//
//   - Reports: SurviveWithGrade, HaveScoreAtLeast, RecoverWithin,
//     MeetExpectations, BeConsistent.
//   - A/B tests: SignificantlyBetterThan and its options WithExperiment,
//     WithScorer, WithAlpha, WithMaxRuns, WithSeed, SaveResult.
package matchers

import (
	"time"

	"github.com/onsi/gomega/types"
)

// SurviveWithGrade succeeds when the run's grade is min or better. min is
// a grade letter ("B", "A+", case-insensitive) or an engine.Grade:
//
//	Expect(rep).To(matchers.SurviveWithGrade("B"))
//	Expect(rep).To(matchers.SurviveWithGrade(engine.GradeA))
//
// An unknown letter, or a run with no grade (nothing measured), is an error.
func SurviveWithGrade[G ~string](min G) types.GomegaMatcher {
	return &SurviveWithGradeMatcher{MinGrade: string(min)}
}

// HaveScoreAtLeast succeeds when the run's total score (0–100) is at least
// min:
//
//	Expect(rep).To(matchers.HaveScoreAtLeast(90))
//
// A run with no score (nothing measured) is an error.
func HaveScoreAtLeast(min float64) types.GomegaMatcher {
	return &HaveScoreAtLeastMatcher{MinScore: min}
}

// RecoverWithin succeeds when every fault that landed recovered, each
// within d (its time to recover, see engine.FaultOutcome):
//
//	Expect(rep).To(matchers.RecoverWithin(2 * time.Second))
//
// A run whose recovery was not measured (no probe, or no fault landed) is
// an error.
func RecoverWithin(d time.Duration) types.GomegaMatcher {
	return &RecoverWithinMatcher{Within: d}
}

// MeetExpectations succeeds when a scenario run passed its gate: every step
// met its expectation (landed, or failed with expect_failure), the run
// completed, and the scenario's expect block holds:
//
//	rep := arenatest.Run(GinkgoT(), "leader-failover")
//	Expect(rep).To(matchers.MeetExpectations())
//
// Its actual value must be a *scenario.Report.
func MeetExpectations() types.GomegaMatcher {
	return &MeetExpectationsMatcher{}
}

// BeConsistent succeeds when every consistency check of the run passed
// (no task lost, memory matches its checkpoint, DAG restored, or your own
// fault.Check):
//
//	Expect(rep).To(matchers.BeConsistent())
//
// A run in which no check ran is an error.
func BeConsistent() types.GomegaMatcher {
	return &BeConsistentMatcher{}
}

// SignificantlyBetterThan succeeds when an A/B test finds actual
// significantly better (higher scoring) than baseline: verdict
// regression.VerdictBetter. Both are either score samples ([]float64, compared with
// Welch's one-sided t-test, regression.CompareScores) or strategies, which the
// matcher runs in pairs, sequentially, until the anytime-valid test has a
// verdict or reaches its cap (regression.ModeSequential):
//
//	retryWithBackoff := fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
//	noRetry := fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
//	Expect(retryWithBackoff).To(matchers.SignificantlyBetterThan(noRetry))
//	Expect([]float64{78, 74, 80, 72, 79}).To(matchers.SignificantlyBetterThan([]float64{71, 64, 69, 75, 62}))
//
// Strategies that build their own system (regression.System, such as
// fakes.Strategy) are scored by regression.ExperimentScorer over the
// experiment (WithExperiment; default arenatest.DefaultExperiment, the
// built-in scenario everything-at-once), each run a fresh system (for
// fakes.Strategy a fake cluster in virtual time); strategies of any other
// kind need WithScorer. WithAlpha,
// WithMaxRuns and WithSeed tune the test; the seed is -arena.seed or
// ARENA_SEED when set (see arenatest), and is shown on failure. SaveResult
// keeps the test's result, to report it.
//
// "Not significantly better" (Not, ShouldNot) holds for every other
// verdict: worse, no difference, inconclusive.
func SignificantlyBetterThan(baseline any, opts ...Option) types.GomegaMatcher {
	m := &SignificantlyBetterThanMatcher{Baseline: baseline}
	for _, o := range opts {
		if o != nil {
			o.apply(m)
		}
	}
	return m
}
