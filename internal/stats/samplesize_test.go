package stats

import (
	"math"
	"testing"
)

// TestSampleSize: the per-arm sizes of a fixed test (two-sided, α 0.05), which
// are also what R's pwr.t.test(d, sig.level = 0.05, power) gives, rounded
// up; and the one-sided sizes of pwr.t.test(..., alternative = "greater").
func TestSampleSize(t *testing.T) {
	cases := []struct {
		d, power float64
		twoSided bool
		want     int
	}{
		{0.5, 0.8, true, 64}, {0.5, 0.9, true, 86},
		{0.2, 0.8, true, 394}, {0.2, 0.9, true, 527},
		{0.8, 0.8, true, 26}, {0.8, 0.9, true, 34},
		{0.5, 0.8, false, 51}, {0.5, 0.9, false, 70},
		{-0.5, 0.8, true, 64}, // the sign of d does not matter
		{5, 0.8, true, 3},     // a huge effect needs the least runs
	}
	for _, c := range cases {
		got, err := SampleSize(c.d, 0.05, c.power, c.twoSided)
		if err != nil || got != c.want {
			t.Errorf("SampleSize(%v, 0.05, %v, twoSided=%v) = %d, %v; want %d", c.d, c.power, c.twoSided, got, err, c.want)
		}
		// Smallest: one run fewer falls short.
		if got > 2 && Power(got-1, c.d, 0.05, c.twoSided) >= c.power {
			t.Errorf("SampleSize(%v, …, %v) = %d is not the smallest", c.d, c.power, got)
		}
	}
}

func TestSampleSizeErrors(t *testing.T) {
	for _, c := range []struct{ d, alpha, power float64 }{
		{0, 0.05, 0.8}, {math.NaN(), 0.05, 0.8}, {math.Inf(1), 0.05, 0.8},
		{0.5, 0, 0.8}, {0.5, 1, 0.8}, {0.5, 0.05, 1}, {0.5, 0.05, 0}, {0.5, 0.05, math.NaN()},
		{1e-6, 0.05, 0.9}, // needs ~2·10¹³ runs: beyond MaxSampleSize
	} {
		if n, err := SampleSize(c.d, c.alpha, c.power, true); err == nil {
			t.Errorf("SampleSize(%v, %v, %v) = %d, want an error", c.d, c.alpha, c.power, n)
		}
	}
}

// TestPowerMatchesR: the examples of R's ?power.t.test (stats package):
// power.t.test(n = 20, delta = 1) prints "power = 0.8689528";
// power.t.test(power = .90, delta = 1) "n = 22.02110"; and with
// alternative = "one.sided", "n = 17.84713". R counts only the upper tail
// (strict = FALSE); the lower tail adds about 1e-7 here.
func TestPowerMatchesR(t *testing.T) {
	if p := Power(20, 1, 0.05, true); math.Abs(p-0.8689528) > 1e-6 {
		t.Errorf("Power(20, 1, 0.05, two-sided) = %.7f, want 0.8689528", p)
	}
	for _, c := range []struct {
		twoSided bool
		want     int
	}{{true, 23}, {false, 18}} {
		if n, err := SampleSize(1, 0.05, 0.9, c.twoSided); n != c.want || err != nil {
			t.Errorf("SampleSize(1, 0.05, 0.9, twoSided=%v) = %d, %v; want %d", c.twoSided, n, err, c.want)
		}
	}
}
