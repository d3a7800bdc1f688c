package regression

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/internal/stats"
)

// The simulations of the A/B tester's statistical targets: 10,000 experiments
// per row, capped at 130 runs per arm unless a row says otherwise. With
// running sums a run and its look cost 0.1–0.7µs (BenchmarkSequentialLook
// in internal/stats: the likelihood ratio is O(n) when a look cannot rule
// it out in O(1)), so the table takes ~2–4s, ~10–15s under the race
// detector, as it did with the rule before: no need to shrink it there.
const (
	calibrationExperiments = 10000
	calibrationCap         = 130
)

// calibrationRow is one simulated population of A/B tests.
type calibrationRow struct {
	name     string
	aa       bool // the arms are the same population: every rejection is a false positive
	twoSided bool
	d        float64 // true standardised effect (power rows)
	draw     func(r *rand.Rand) (base, cand float64)
	cap      int           // runs per arm at most; 0: calibrationCap
	g        float64       // > 0: the N(0, g) mixture rule (Config.G) instead of the default
	prior    []stats.Point // non-nil: this prior instead of the default one (no config asks for it)
}

// calibrationStats is what a row measured.
type calibrationStats struct {
	better, worse, inconclusive int
	naive                       int // the naive rule claimed a difference
	runs                        int // runs per arm, summed over experiments
}

func normal(r *rand.Rand, mu, sd float64) float64 { return mu + sd*r.NormFloat64() }

// bimodal looks like chaos scores: most runs recover (≈ 90), some do not (≈ 50).
func bimodal(r *rand.Rand) float64 {
	if r.Float64() < 0.7 {
		return normal(r, 90, 3)
	}
	return normal(r, 50, 5)
}

func shift(d float64) func(r *rand.Rand) (float64, float64) {
	return func(r *rand.Rand) (float64, float64) { return normal(r, 0, 1), normal(r, d, 1) }
}

var calibrationRows = []calibrationRow{
	{name: "A/A normal", aa: true, draw: shift(0)},
	{name: "A/A lognormal (skewed)", aa: true, draw: func(r *rand.Rand) (float64, float64) {
		return math.Exp(r.NormFloat64()), math.Exp(r.NormFloat64())
	}},
	{name: "A/A exponential (skewed)", aa: true, draw: func(r *rand.Rand) (float64, float64) { return r.ExpFloat64(), r.ExpFloat64() }},
	{name: "A/A bimodal 70% N(90,3) + 30% N(50,5)", aa: true, draw: func(r *rand.Rand) (float64, float64) { return bimodal(r), bimodal(r) }},
	{name: "A/A unequal variance (sd 1 vs 3)", aa: true, draw: func(r *rand.Rand) (float64, float64) { return normal(r, 0, 1), normal(r, 0, 3) }},
	{name: "A/A normal, two-sided", aa: true, twoSided: true, draw: shift(0)},
	{name: "d = 0.2", d: 0.2, draw: shift(0.2)},
	{name: "d = 0.5", d: 0.5, draw: shift(0.5)},
	{name: "d = 0.8", d: 0.8, draw: shift(0.8)},
	{name: "d = −0.5 (candidate worse)", d: -0.5, draw: shift(-0.5)},
	// The rule before issue 27 (Config.G), in the same harness.
	{name: "d = 0.5, mixture g 0.25 (G)", d: 0.5, g: 0.25, draw: shift(0.5)},
	// More rules, effects and caps: BenchmarkSequentialRunsPerArm.
}

// simulate runs experiments sequential A/B tests of one row with a look
// after every run, through the same seqTest that Tester.Run and
// CompareScores use (the defaults: α 0.05, MDE 0.5, so the likelihood ratio
// of an effect of ±0.5; first look at 2 runs per arm; cap 130 unless the
// row sets one). On the A/A rows the same data also feed the naive rule:
// Welch's test after every run, stopping at the first p < α, up to the
// same cap.
func simulate(row calibrationRow, seed uint64, experiments int) calibrationStats {
	capN := cmp.Or(row.cap, calibrationCap)
	cfg, err := Config{Mode: ModeSequential, MaxRuns: capN, TwoSided: row.twoSided, G: row.g}.withDefaults()
	if err != nil {
		panic(err)
	}
	alt := stats.Greater
	if row.twoSided {
		alt = stats.TwoSided
	}
	// p < α needs |t| above the normal quantile: a cheap filter before the t CDF.
	zcrit := 1.6448536269514722
	if row.twoSided {
		zcrit = 1.959963984540054
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var out calibrationStats
	for range experiments {
		s := newSeqTest(cfg)
		if row.prior != nil {
			s.st = stats.NewSequential(row.prior, cfg.Alpha, cfg.TwoSided)
		}
		var x, y stats.Running // naive rule's running sums: candidate, baseline
		seqDone, naiveDone := false, !row.aa
		for n := 1; n <= capN && !(seqDone && naiveDone); n++ {
			base, cand := row.draw(rng)
			if !seqDone && (s.add(base, cand) || n == capN) {
				seqDone = true
				out.runs += n
				switch s.reject {
				case 1:
					out.better++
				case -1:
					out.worse++
				default:
					out.inconclusive++
				}
			}
			if naiveDone {
				continue
			}
			x.Add(cand)
			y.Add(base)
			if n < cfg.MinRuns {
				continue
			}
			xs, ys := x.Summary(), y.Summary()
			t := (xs.Mean - ys.Mean) / math.Sqrt(xs.Var/float64(n)+ys.Var/float64(n))
			if (row.twoSided && math.Abs(t) > zcrit) || (!row.twoSided && t > zcrit) {
				if w, err := stats.Welch(xs, ys, alt); err == nil && w.P < cfg.Alpha {
					out.naive++
					naiveDone = true
				}
			}
		}
	}
	return out
}

// fixedEquivalent is the runs per arm of the fixed test with the power the
// sequential test reached in experiments (a two-sided row against the
// fixed two-sided test). A power of 100% is taken as 1 − 3/experiments, its
// 95% lower confidence bound (the rule of three).
func fixedEquivalent(row calibrationRow, power float64, experiments int) (int, bool) {
	power = min(power, 1-3/float64(experiments))
	n, err := stats.SampleSize(row.d, 0.05, power, row.twoSided)
	return n, err == nil
}

// TestRegressionCalibration checks the A/B tester's statistical targets (false
// alarms, power, runs per arm against the fixed test of equal power) by
// simulation with a fixed seed, and prints the table.
func TestRegressionCalibration(t *testing.T) {
	start := time.Now()
	e := calibrationExperiments
	// A false-positive rate of 5% measured on 10,000 experiments has a
	// standard error of 0.22%: 5.56% is α plus 2.6 standard errors.
	const maxFP, minNaive, maxRatio = 0.0556, 0.15, 0.65
	var table strings.Builder
	fmt.Fprintf(&table, "sequential t-test: likelihood ratio of 95%% at ±MDE 0.5 and 5%% at ±3, look after every run, α 0.05, cap %d, %d experiments per row\n", calibrationCap, e)
	fmt.Fprintf(&table, "%-40s %8s %8s %8s %9s %9s %7s %6s\n", "row", "better", "worse", "inconcl.", "runs/arm", "naive FP", "fixed n", "ratio")
	power, meanRuns := make([]float64, len(calibrationRows)), make([]float64, len(calibrationRows))
	for i, row := range calibrationRows {
		st := simulate(row, 20250101+uint64(i), e)
		rate := func(k int) float64 { return float64(k) / float64(e) }
		power[i], meanRuns[i] = rate(st.better), float64(st.runs)/float64(e)
		naive, fixedN, ratio := "", "", math.NaN()
		if row.aa {
			naive = fmt.Sprintf("%.2f%%", 100*rate(st.naive))
		}
		if row.d > 0 {
			if n, ok := fixedEquivalent(row, power[i], e); ok {
				fixedN, ratio = fmt.Sprint(n), meanRuns[i]/float64(n)
			}
		}
		ratioText := ""
		if !math.IsNaN(ratio) {
			ratioText = fmt.Sprintf("%.3f", ratio)
		}
		fmt.Fprintf(&table, "%-40s %7.2f%% %7.2f%% %7.2f%% %9.1f %9s %7s %6s\n", row.name,
			100*rate(st.better), 100*rate(st.worse), 100*rate(st.inconclusive), meanRuns[i], naive, fixedN, ratioText)

		switch {
		case row.aa && row.twoSided:
			if fp := rate(st.better + st.worse); fp > maxFP {
				t.Errorf("%s: false-positive rate %.2f%%, want ≤ %.2f%%", row.name, 100*fp, 100*maxFP)
			}
		case row.aa:
			if fp := rate(st.better); fp > maxFP {
				t.Errorf("%s: false \"better\" rate %.2f%%, want ≤ %.2f%%", row.name, 100*fp, 100*maxFP)
			}
		}
		if row.aa && rate(st.naive) < minNaive {
			t.Errorf("%s: naive rule's false-positive rate %.2f%%, want ≥ %.0f%% (peeking must be seen to hurt)", row.name, 100*rate(st.naive), 100*minNaive)
		}
		if row.g > 0 {
			continue // for comparison: checked below
		}
		switch row.d {
		case 0.5:
			if power[i] < 0.90 || !(ratio <= maxRatio) {
				t.Errorf("%s: power %.2f%% with %.1f runs per arm on average, %.3f× the fixed test's; want ≥ 90%% and ≤ %v×",
					row.name, 100*power[i], meanRuns[i], ratio, maxRatio)
			}
		case 0.8:
			if meanRuns[i] > 30 || !(ratio <= maxRatio) {
				t.Errorf("%s: %.1f runs per arm on average, %.3f× the fixed test's; want ≤ 30 and ≤ %v×", row.name, meanRuns[i], ratio, maxRatio)
			}
		case -0.5:
			if p := rate(st.better); p > 0.001 {
				t.Errorf("%s: \"better\" in %.2f%% of experiments, want ≈ 0", row.name, 100*p)
			}
		}
	}
	// The rule before issue 27 needed more runs for less power.
	byName := func(name string) int {
		return slices.IndexFunc(calibrationRows, func(r calibrationRow) bool { return r.name == name })
	}
	lr, mix := byName("d = 0.5"), byName("d = 0.5, mixture g 0.25 (G)")
	if !(meanRuns[lr] < meanRuns[mix] && power[lr] >= power[mix]) {
		t.Errorf("d = 0.5: the likelihood ratio took %.1f runs per arm for %.4f power, the mixture %.1f for %.4f; want fewer for as much",
			meanRuns[lr], power[lr], meanRuns[mix], power[mix])
	}
	fmt.Fprintf(&table, "(%s)", time.Since(start).Round(time.Millisecond))
	t.Log("\n" + table.String())
}
