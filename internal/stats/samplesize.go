package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MaxSampleSize bounds SampleSize: an effect so small that it needs more
// runs per arm than this is reported as an error, not a number.
const MaxSampleSize = 1 << 30

// Power is the power of the fixed two-sample t-test with n runs per arm at
// standardised effect d and level alpha: with ν = 2n − 2 and the
// noncentrality λ = d·√(n/2), from gonum's noncentral t distribution,
//
//	two-sided: P(T′ > t₁₋α/₂) + P(T′ < −t₁₋α/₂)
//	one-sided: P(T′ > t₁₋α)
//
// where T′ ~ t′(ν, λ) and t_q is the Student's t quantile with ν degrees of
// freedom. These are the formulas of R's power.t.test and pwr.t.test.
func Power(n int, d, alpha float64, twoSided bool) float64 {
	if n < 2 {
		return math.NaN()
	}
	nu := float64(2*n - 2)
	lambda := d * math.Sqrt(float64(n)/2)
	nct := distuv.NoncentralT{Nu: nu, Mu: lambda}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}
	if !twoSided {
		return 1 - nct.CDF(t.Quantile(1-alpha))
	}
	crit := t.Quantile(1 - alpha/2)
	return 1 - nct.CDF(crit) + nct.CDF(-crit)
}

// SampleSize returns the smallest number of runs per arm at which the fixed
// two-sample t-test at level alpha has at least the given power against a
// standardised effect d (Power). The sign of d does not matter.
func SampleSize(d, alpha, power float64, twoSided bool) (int, error) {
	d = math.Abs(d)
	switch {
	case math.IsNaN(d) || math.IsInf(d, 0) || d == 0:
		return 0, fmt.Errorf("effect size: want a finite non-zero d, got %v", d)
	case !(alpha > 0 && alpha < 1):
		return 0, fmt.Errorf("alpha: want a level in (0, 1), got %v", alpha)
	case !(power > 0 && power < 1):
		return 0, fmt.Errorf("power: want a probability in (0, 1), got %v", power)
	}
	reach := func(n int) bool { return Power(n, d, alpha, twoSided) >= power }
	if reach(2) {
		return 2, nil
	}
	// Power grows with n: double to bracket, then bisect to the smallest n.
	lo, hi := 2, 4
	for !reach(hi) {
		if hi >= MaxSampleSize {
			return 0, fmt.Errorf("effect size %v: needs more than %d runs per arm", d, MaxSampleSize)
		}
		lo, hi = hi, min(2*hi, MaxSampleSize)
	}
	for hi-lo > 1 { // reach(hi) and !reach(lo)
		mid := lo + (hi-lo)/2
		if reach(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}
