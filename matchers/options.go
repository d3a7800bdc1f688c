package matchers

import (
	"github.com/ares-arena/arena/regression"
)

// Option tunes SignificantlyBetterThan's A/B test.
type Option interface {
	apply(*SignificantlyBetterThanMatcher)
}

type experimentOption struct{ exp regression.Experiment }

func (o experimentOption) apply(m *SignificantlyBetterThanMatcher) { m.Experiment = o.exp }

// WithExperiment sets what each run of a fakes.Strategy does (default
// arenatest.DefaultExperiment: the built-in scenario everything-at-once).
func WithExperiment(exp regression.Experiment) Option { return experimentOption{exp} }

type scorerOption struct{ s regression.Scorer }

func (o scorerOption) apply(m *SignificantlyBetterThanMatcher) { m.Scorer = o.s }

// WithScorer scores the strategies' runs: each gets a regression.Trial with
// the strategy and the run's seed. With it, strategies may be of any kind.
func WithScorer(s regression.Scorer) Option { return scorerOption{s} }

type alphaOption float64

func (o alphaOption) apply(m *SignificantlyBetterThanMatcher) { m.Alpha = float64(o) }

// WithAlpha sets the significance level (default 0.05).
func WithAlpha(alpha float64) Option { return alphaOption(alpha) }

type maxRunsOption int

func (o maxRunsOption) apply(m *SignificantlyBetterThanMatcher) { m.MaxRuns = int(o) }

// WithMaxRuns caps the runs per strategy (default: arena's, 129 at the
// default minimum detectable effect). Strategies that do not differ run to
// the cap, and the verdict is inconclusive.
func WithMaxRuns(n int) Option { return maxRunsOption(n) }

type seedOption uint64

func (o seedOption) apply(m *SignificantlyBetterThanMatcher) { m.Seed = uint64(o) }

// WithSeed seeds the runs of strategies (default: drawn, and shown on
// failure). -arena.seed and ARENA_SEED override it, as in arenatest.
func WithSeed(seed uint64) Option { return seedOption(seed) }

type saveOption struct{ p **regression.Result }

func (o saveOption) apply(m *SignificantlyBetterThanMatcher) { m.save = o.p }

// SaveResult stores the A/B test's result in *p when Match has one, to
// report it (arenaginkgo.AddReportEntries, a log line).
func SaveResult(p **regression.Result) Option { return saveOption{p} }
