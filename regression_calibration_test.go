package arena

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/internal/stats"
)

// The simulations of the A/B tester's statistical targets: 10,000 experiments
// per row, capped at 130 runs per arm. With running sums a run and its look
// cost ~110ns (BenchmarkSequentialLook in internal/stats), so the table
// takes ~1.5s, ~10s under the race detector: no need to shrink it there.
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

var calibrationRows = []calibrationRow{
	{name: "A/A normal", aa: true, draw: func(r *rand.Rand) (float64, float64) { return normal(r, 0, 1), normal(r, 0, 1) }},
	{name: "A/A lognormal (skewed)", aa: true, draw: func(r *rand.Rand) (float64, float64) {
		return math.Exp(r.NormFloat64()), math.Exp(r.NormFloat64())
	}},
	{name: "A/A exponential (skewed)", aa: true, draw: func(r *rand.Rand) (float64, float64) { return r.ExpFloat64(), r.ExpFloat64() }},
	{name: "A/A bimodal 70% N(90,3) + 30% N(50,5)", aa: true, draw: func(r *rand.Rand) (float64, float64) { return bimodal(r), bimodal(r) }},
	{name: "A/A unequal variance (sd 1 vs 3)", aa: true, draw: func(r *rand.Rand) (float64, float64) { return normal(r, 0, 1), normal(r, 0, 3) }},
	{name: "A/A normal, two-sided", aa: true, twoSided: true, draw: func(r *rand.Rand) (float64, float64) { return normal(r, 0, 1), normal(r, 0, 1) }},
	{name: "d = 0.2", d: 0.2, draw: func(r *rand.Rand) (float64, float64) { return normal(r, 0, 1), normal(r, 0.2, 1) }},
	{name: "d = 0.5", d: 0.5, draw: func(r *rand.Rand) (float64, float64) { return normal(r, 0, 1), normal(r, 0.5, 1) }},
	{name: "d = 0.8", d: 0.8, draw: func(r *rand.Rand) (float64, float64) { return normal(r, 0, 1), normal(r, 0.8, 1) }},
	{name: "d = −0.5 (candidate worse)", d: -0.5, draw: func(r *rand.Rand) (float64, float64) { return normal(r, 0, 1), normal(r, -0.5, 1) }},
}

// simulate runs experiments sequential A/B tests of one row with a look
// after every run, through the same seqTest that RegressionTester.Run and
// CompareScores use (the defaults: α 0.05, MDE 0.5, g = MDE² = 0.25,
// first look at 2 runs per arm, cap 130). On the A/A rows the same data
// also feed the naive rule: Welch's test after every run, stopping at the
// first p < α, up to the same cap.
func simulate(row calibrationRow, seed uint64, experiments int) calibrationStats {
	cfg, err := RegressionConfig{Mode: ModeSequential, MaxRuns: calibrationCap, TwoSided: row.twoSided}.withDefaults()
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
		var x, y stats.Running // naive rule's running sums: candidate, baseline
		seqDone, naiveDone := false, !row.aa
		for n := 1; n <= calibrationCap && !(seqDone && naiveDone); n++ {
			base, cand := row.draw(rng)
			if !seqDone && (s.add(base, cand) || n == calibrationCap) {
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

// TestRegressionCalibration checks the A/B tester's statistical targets (false
// alarms, power, runs per arm) by simulation with a fixed seed, and prints
// the table.
func TestRegressionCalibration(t *testing.T) {
	start := time.Now()
	e := calibrationExperiments
	// A false-positive rate of 5% measured on 10,000 experiments has a
	// standard error of 0.22%: 5.56% is α plus 2.6 standard errors.
	const maxFP, minNaive = 0.0556, 0.15
	var table strings.Builder
	fmt.Fprintf(&table, "sequential t-test, look after every run, α 0.05, g 0.25, cap %d, %d experiments per row\n", calibrationCap, e)
	fmt.Fprintf(&table, "%-40s %8s %8s %8s %10s %10s %12s\n", "row", "better", "worse", "inconcl.", "runs/arm", "naive FP", "fixed n eq.")
	for i, row := range calibrationRows {
		st := simulate(row, 20250101+uint64(i), e)
		rate := func(k int) float64 { return float64(k) / float64(e) }
		meanRuns := float64(st.runs) / float64(e)
		naive, fixedN := "", ""
		if row.aa {
			naive = fmt.Sprintf("%.2f%%", 100*rate(st.naive))
		}
		if row.d > 0 {
			// The fixed one-sided test's runs per arm for the power the
			// sequential test reached.
			if n, err := OneSidedSampleSize(row.d, 0.05, rate(st.better)); err == nil && rate(st.better) < 0.999 {
				fixedN = fmt.Sprint(n)
			}
		}
		fmt.Fprintf(&table, "%-40s %7.2f%% %7.2f%% %7.2f%% %10.1f %10s %12s\n", row.name,
			100*rate(st.better), 100*rate(st.worse), 100*rate(st.inconclusive), meanRuns, naive, fixedN)

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
		switch row.d {
		case 0.5:
			if p := rate(st.better); p < 0.90 || meanRuns > 62 {
				t.Errorf("%s: power %.2f%% with %.1f runs per arm on average, want ≥ 90%% and ≤ 62", row.name, 100*p, meanRuns)
			}
		case 0.8:
			if meanRuns > 30 {
				t.Errorf("%s: %.1f runs per arm on average, want ≤ 30", row.name, meanRuns)
			}
		case -0.5:
			if p := rate(st.better); p > 0.001 {
				t.Errorf("%s: \"better\" in %.2f%% of experiments, want ≈ 0", row.name, 100*p)
			}
		}
	}
	fmt.Fprintf(&table, "(%s)", time.Since(start).Round(time.Millisecond))
	t.Log("\n" + table.String())
}
