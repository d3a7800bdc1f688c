package regression

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/stats"
)

// Verdict is the answer of an A/B test. It is a string type so
// that more answers can be added; VerdictInconclusive is an answer, not an error.
type Verdict string

// The verdicts.
const (
	// VerdictBetter: the candidate scores significantly higher than the baseline.
	VerdictBetter Verdict = "better"
	// VerdictWorse: the candidate scores significantly lower. A one-sided test
	// (the default) reports it too, at the same level, so that a
	// regression is never hidden as VerdictNoDifference.
	VerdictWorse Verdict = "worse"
	// VerdictNoDifference: a fixed test found no significant difference, or both
	// arms scored one and the same constant. Without enough runs (see the
	// ErrTooFewRuns warning) it is not evidence that the arms are equal.
	VerdictNoDifference Verdict = "no_difference"
	// VerdictInconclusive: a sequential test reached MaxRuns without a
	// significant answer. It stops for evidence only, never for its
	// absence (never on "p > 0.5").
	VerdictInconclusive Verdict = "inconclusive"
)

// Warnings of a Result wrap these, for errors.Is.
var (
	// ErrTooFewRuns: a fixed test found no difference with fewer runs than
	// it needs for 80% power at the MDE.
	ErrTooFewRuns = errors.New("too few runs")
	// ErrZeroVariance: every run of both arms scored the same; the arms
	// were compared exactly, without a t-test.
	ErrZeroVariance = errors.New("zero variance")
)

// Result is the answer of an A/B test and what it was made of.
// Its JSON form is stable: the field names below, Warnings as strings.
type Result struct {
	Verdict  Verdict `json:"verdict"`
	Mode     Mode    `json:"mode"`
	TwoSided bool    `json:"two_sided"`
	Alpha    float64 `json:"alpha"`
	// P is the p-value of the verdict's claim: "better" for VerdictBetter, "worse"
	// for VerdictWorse, and otherwise the question asked ("better", or "differ"
	// when two-sided). In sequential mode it is always valid, however
	// often the test looked: the running minimum over looks of min(1, 1/E)
	// (one-sided) or min(1, 2/E) (two-sided), E the likelihood ratio of the
	// claim the t statistic pointed to (with G set, E = 2·BF). Arms
	// compared exactly have P 0 (they differ) or 1 (equal).
	P float64 `json:"p"`
	// T and DF are the t statistic of candidate − baseline and its degrees
	// of freedom: Welch's in fixed mode, the pooled one at the last look in
	// sequential mode (where DF = n₁+n₂−2). Both are 0 when there is no t
	// statistic (both arms constant).
	T  float64 `json:"t"`
	DF float64 `json:"df"`
	// BayesFactor is the sequential test's evidence at its last look, for
	// the claim the t statistic pointed to: the likelihood ratio of its
	// prior, which is that prior's Bayes factor (with G set, the N(0, G)
	// Bayes factor). It saturates at the largest float64; 0 in fixed mode.
	BayesFactor float64 `json:"bayes_factor,omitempty"`
	Looks       int     `json:"looks,omitempty"` // sequential: looks that saw data

	Baseline  ArmSummary `json:"baseline"`
	Candidate ArmSummary `json:"candidate"`
	Delta     float64    `json:"delta"` // candidate mean − baseline mean
	// Effect is Hedges' g of candidate − baseline with its 95% confidence
	// interval; nil when both arms are constant. After a sequential test
	// stops early it overstates the effect (the test stops when the
	// estimate happens to be high): read it as a description of the runs.
	Effect *EffectSize `json:"effect"`
	// Wins, Ties and Losses count the pairs (runs with the same index and
	// seed) where the candidate scored higher, the same, or lower. Ties are
	// not wins. All zero when the arms have different numbers of runs.
	Wins   int `json:"wins"`
	Ties   int `json:"ties"`
	Losses int `json:"losses"`

	Seed     uint64         `json:"seed"` // the seed the runs' seeds came from; 0 for CompareScores
	Warnings []error        `json:"-"`    // written to JSON as "warnings": [strings]
	WallTime clock.Duration `json:"wall_time"`
}

// ArmSummary is one arm's runs: how many were used, their mean and sample
// standard deviation, and every score by run index.
type ArmSummary struct {
	Runs   int       `json:"runs"`
	Mean   float64   `json:"mean"`
	SD     float64   `json:"sd"`
	Scores []float64 `json:"scores"`
}

// EffectSize is a standardised effect with a confidence interval.
type EffectSize struct {
	G     float64 `json:"g"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Level float64 `json:"level"` // 0.95
}

// String reads like benchstat: "better: p=0.012 n=18+18 Δ=+4.1 g=0.83 [0.21, 1.45]".
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: p=%.2g n=%d+%d Δ=%+.2g", strings.ReplaceAll(string(r.Verdict), "_", " "),
		r.P, r.Baseline.Runs, r.Candidate.Runs, r.Delta)
	if e := r.Effect; e != nil {
		fmt.Fprintf(&b, " g=%.2f [%.2f, %.2f]", e.G, e.Low, e.High)
	}
	return b.String()
}

// regressionJSON is Result with its warnings as text.
type regressionJSON struct {
	plainResult
	Warnings []string `json:"warnings"`
}

type plainResult Result // without the methods, so no recursion

// MarshalJSON writes the result with its warnings as strings.
func (r Result) MarshalJSON() ([]byte, error) {
	w := make([]string, len(r.Warnings))
	for i, e := range r.Warnings {
		w[i] = e.Error()
	}
	return json.Marshal(regressionJSON{plainResult(r), w})
}

// UnmarshalJSON reads what MarshalJSON writes; warnings come back as
// errors with the same text (not wrapping the sentinels).
func (r *Result) UnmarshalJSON(b []byte) error {
	var v regressionJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Result(v.plainResult)
	r.Warnings = nil
	for _, s := range v.Warnings {
		r.Warnings = append(r.Warnings, errors.New(s))
	}
	return nil
}

// CompareScores tests scores that were collected already, baseline and
// candidate in run order, as Run would have: in fixed mode all of them
// with Welch's t-test (the arms may differ in length); in sequential mode
// pair by pair with the same looks, stopping at the first significant one
// (the arms must have equal length, which is the cap). cfg.Runs and
// cfg.MaxRuns are ignored.
func CompareScores(cfg Config, baseline, candidate []float64) (*Result, error) {
	cfg.Runs, cfg.MaxRuns, cfg.Parallelism = max(len(baseline), 2), max(len(baseline), 2), 1
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("regression: %w", err)
	}
	for _, arm := range []struct {
		name string
		s    []float64
	}{{"baseline", baseline}, {"candidate", candidate}} {
		if len(arm.s) < 2 {
			return nil, fmt.Errorf("regression: %s: need at least 2 scores, got %d", arm.name, len(arm.s))
		}
		for i, v := range arm.s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("regression: %s[%d]: score %v is not a finite number", arm.name, i, v)
			}
		}
	}
	if cfg.Mode == ModeFixed {
		return fixedResult(cfg, baseline, candidate), nil
	}
	if len(baseline) != len(candidate) {
		return nil, fmt.Errorf("regression: sequential mode needs paired scores, got %d baseline and %d candidate", len(baseline), len(candidate))
	}
	s := newSeqTest(cfg)
	n := 0
	for n < len(baseline) {
		n++
		if s.add(baseline[n-1], candidate[n-1]) {
			break
		}
	}
	return s.result(baseline[:n], candidate[:n]), nil
}

// baseResult fills in what both modes report alike.
func baseResult(cfg Config, base, cand []float64) *Result {
	bs, cs := stats.Summarize(base), stats.Summarize(cand)
	r := &Result{
		Mode: cfg.Mode, TwoSided: cfg.TwoSided, Alpha: cfg.Alpha, Seed: cfg.Seed,
		Baseline:  ArmSummary{Runs: bs.N, Mean: bs.Mean, SD: bs.SD(), Scores: append([]float64{}, base...)},
		Candidate: ArmSummary{Runs: cs.N, Mean: cs.Mean, SD: cs.SD(), Scores: append([]float64{}, cand...)},
		Delta:     cs.Mean - bs.Mean,
	}
	if len(base) == len(cand) {
		for i := range base {
			switch {
			case cand[i] > base[i]:
				r.Wins++
			case cand[i] < base[i]:
				r.Losses++
			default:
				r.Ties++
			}
		}
	}
	if e, err := stats.HedgesG(cs, bs, 0.95); err == nil {
		r.Effect = &EffectSize{G: e.G, Low: e.Low, High: e.High, Level: e.Level}
	}
	return r
}

// compareExactly decides between two constant arms without a t-test.
func compareExactly(r *Result, base, cand []float64) {
	b, c := base[0], cand[0]
	switch {
	case c > b:
		r.Verdict, r.P = VerdictBetter, 0
	case c < b:
		r.Verdict, r.P = VerdictWorse, 0
	default:
		r.Verdict, r.P = VerdictNoDifference, 1
	}
	r.T, r.DF = 0, 0
	r.Warnings = append(r.Warnings, zeroVarianceWarning(b, c))
}

func zeroVarianceWarning(b, c float64) error {
	return fmt.Errorf("%w: every baseline run scored %v and every candidate run %v; compared exactly", ErrZeroVariance, b, c)
}

func constant(xs []float64) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// fixedResult is the fixed-mode analysis: Welch's t-test over all runs.
func fixedResult(cfg Config, base, cand []float64) *Result {
	r := baseResult(cfg, base, cand)
	if constant(base) && constant(cand) {
		compareExactly(r, base, cand)
		return r
	}
	bs, cs := stats.Summarize(base), stats.Summarize(cand)
	w, _ := stats.Welch(cs, bs, stats.TwoSided) // both arms have ≥ 2 runs and one varies
	r.T, r.DF = w.T, w.DF
	r.Verdict, r.P = VerdictNoDifference, w.P
	if cfg.TwoSided {
		if w.P < cfg.Alpha {
			r.Verdict = directional(w.T)
		}
	} else {
		pg, pl := stats.PValue(w.T, w.DF, stats.Greater), stats.PValue(w.T, w.DF, stats.Less)
		switch {
		case pg < cfg.Alpha:
			r.Verdict, r.P = VerdictBetter, pg
		case pl < cfg.Alpha:
			r.Verdict, r.P = VerdictWorse, pl
		default:
			r.P = pg
		}
	}
	if r.Verdict == VerdictNoDifference {
		if need, err := stats.SampleSize(cfg.MDE, cfg.Alpha, DefaultPower, cfg.TwoSided); err == nil &&
			min(len(base), len(cand)) < need {
			r.Warnings = append(r.Warnings, fmt.Errorf(
				"%w: need ≥ %d runs per arm for %.0f%% power at effect size %v, have %d; no difference is not evidence of equivalence",
				ErrTooFewRuns, need, 100*DefaultPower, cfg.MDE, min(len(base), len(cand))))
		}
	}
	return r
}

func directional(t float64) Verdict {
	if t > 0 {
		return VerdictBetter
	}
	return VerdictWorse
}

// seqTest is the sequential analysis, fed one pair at a time: the
// anytime-valid t-test of internal/stats, looked at after MinRuns pairs and
// then every Batch pairs and at the cap. Its evidence is the likelihood
// ratio of sequentialPrior, or with G set the N(0, G) Bayes factor.
type seqTest struct {
	cfg    Config
	st     *stats.Sequential
	n      int
	reject int // +1 better, −1 worse, 0 not (yet)
	last   stats.Look
}

func newSeqTest(cfg Config) *seqTest {
	st := stats.NewSequential(sequentialPrior(cfg.MDE), cfg.Alpha, cfg.TwoSided)
	if cfg.G > 0 {
		st = stats.NewMixtureSequential(cfg.G, cfg.Alpha, cfg.TwoSided)
	}
	return &seqTest{cfg: cfg, st: st}
}

// The sequential test's prior on the size of the effect, in the direction
// the data point: most of its weight at the MDE, the effect it plans for,
// and the rest at a gross effect, sequentialGrossFactor × MDE (3 standard
// deviations at the default MDE, where the arms barely overlap). The gross
// point costs about half a run per arm at the MDE (50.8 on average against
// 50.2 with all the weight there, at a true effect of 0.5) and lets
// differences that large stop sooner (5.7 runs per arm against 8.8 at a
// true effect of 3; 4 against 7 when the arms are constant and differ):
// BenchmarkSequentialRunsPerArm, docs/sequential-test.md.
const (
	sequentialPlannedWeight = 0.95
	sequentialGrossFactor   = 6
)

// sequentialPrior is the sequential test's prior at a minimum detectable
// effect mde.
func sequentialPrior(mde float64) []stats.Point {
	return []stats.Point{
		{Delta: mde, Weight: sequentialPlannedWeight},
		{Delta: sequentialGrossFactor * mde, Weight: 1 - sequentialPlannedWeight},
	}
}

// add adds pair n and reports whether the test rejects at this look.
func (s *seqTest) add(base, cand float64) bool {
	s.st.Add(cand, base)
	s.n++
	if s.n < s.cfg.MinRuns || (s.n%s.cfg.Batch != 0 && s.n != s.cfg.MaxRuns) {
		return false
	}
	s.last = s.st.Look()
	s.reject = s.last.Reject
	return s.reject != 0
}

// result is the sequential verdict over the pairs that were added.
func (s *seqTest) result(base, cand []float64) *Result {
	r := baseResult(s.cfg, base, cand)
	r.Looks = s.st.Looks()
	if s.last.N1 > 0 {
		r.BayesFactor = min(s.st.LastBayesFactor(), math.MaxFloat64)
		if !math.IsInf(s.last.T, 0) {
			r.T, r.DF = s.last.T, float64(s.last.N1+s.last.N2-2)
		}
	}
	both := constant(base) && constant(cand)
	switch {
	case s.reject != 0:
		r.Verdict, r.P = directional(float64(s.reject)), s.st.P(s.reject)
		if both {
			r.Warnings = append(r.Warnings, zeroVarianceWarning(base[0], cand[0]))
		}
	case both:
		compareExactly(r, base, cand)
	default:
		r.Verdict, r.P = VerdictInconclusive, s.st.P(1)
		if need := s.st.MinRejectable(1 << 20); s.cfg.MaxRuns < need {
			r.Warnings = append(r.Warnings, fmt.Errorf(
				"%w: a sequential test capped at %d runs per arm can never be significant at α %v; it needs ≥ %d",
				ErrTooFewRuns, s.cfg.MaxRuns, s.cfg.Alpha, need))
		}
	}
	return r
}

// SampleSize returns the runs per arm a fixed two-sided test at level alpha
// needs to detect a standardised effect d (Cohen's d) with the given power,
// from the noncentral t distribution (the formula of R's power.t.test):
// 64 per arm at d = 0.5, α = 0.05 and 80% power.
func SampleSize(d, alpha, power float64) (int, error) {
	return stats.SampleSize(d, alpha, power, true)
}

// OneSidedSampleSize is SampleSize for a one-sided test, Tester's
// default: 51 per arm at d = 0.5, α = 0.05 and 80% power.
func OneSidedSampleSize(d, alpha, power float64) (int, error) {
	return stats.SampleSize(d, alpha, power, false)
}
