package regression

import (
	"cmp"
	"fmt"
	"testing"

	"github.com/ares-arena/arena/internal/stats"
)

// BenchmarkSequentialRunsPerArm measures what a sequential A/B test costs in
// runs: each iteration simulates the same 10,000 seeded experiments of the
// calibration harness (simulate) and reports
//
//   - runs/arm: the mean runs per arm (the figure of issue 27),
//   - power-%: the share of experiments that found the candidate better,
//   - x-fixed-n: runs/arm over the runs per arm of the fixed test with that
//     power (≤ 0.65 at d = 0.5 is issue 27's target),
//   - max-runs: the cap, the runs per arm a test may need at worst (and
//     nearly always needs when the arms do not differ).
//
// The metrics are the same in every iteration, so make bench-compare shows
// them with no spread; ns/op is the simulation's own cost. Sub-benchmarks:
// the default rule (lr: the likelihood ratio of 95% at ±MDE and 5% at
// ±6·MDE) against the rule before issue 27 (mixture: the N(0, 0.25) Bayes
// factor, Config.G) at true effects 0.5, 0.8 and 3; the default
// prior's alternative with all the weight at ±MDE (point), which no config
// asks for; and the default rule at other caps (the trade between maximum
// and expected runs) and two-sided.
func BenchmarkSequentialRunsPerArm(b *testing.B) {
	type bench struct {
		name string
		row  calibrationRow
	}
	var benches []bench
	for _, rule := range []struct {
		name  string
		g     float64
		prior []stats.Point
	}{{"lr", 0, nil}, {"point", 0, []stats.Point{{Delta: DefaultMDE, Weight: 1}}}, {"mixture", 0.25, nil}} {
		for _, d := range []float64{0.5, 0.8, 3} {
			row := calibrationRow{d: d, g: rule.g, prior: rule.prior, draw: shift(d)}
			benches = append(benches, bench{fmt.Sprintf("rule=%s/d=%v", rule.name, d), row})
		}
	}
	for _, capN := range []int{50, 70, 90, 200} {
		benches = append(benches, bench{fmt.Sprintf("rule=lr/d=0.5/cap=%d", capN), calibrationRow{d: 0.5, cap: capN, draw: shift(0.5)}})
	}
	benches = append(benches, bench{"rule=lr/d=0.5/two-sided", calibrationRow{d: 0.5, twoSided: true, draw: shift(0.5)}})

	for i, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			var st calibrationStats
			for b.Loop() {
				st = simulate(bb.row, 20260101+uint64(i), calibrationExperiments)
			}
			e := float64(calibrationExperiments)
			power := float64(st.better) / e
			runs := float64(st.runs) / e
			b.ReportMetric(runs, "runs/arm")
			b.ReportMetric(100*power, "power-%")
			if n, ok := fixedEquivalent(bb.row, power, calibrationExperiments); ok {
				b.ReportMetric(runs/float64(n), "x-fixed-n")
			}
			b.ReportMetric(float64(cmp.Or(bb.row.cap, calibrationCap)), "max-runs")
		})
	}
}
