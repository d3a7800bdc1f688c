package stats

import (
	"math"
)

// LogLikelihoodRatio is the logarithm of the likelihood ratio of a pooled
// two-sample t statistic t (ν = n1 + n2 − 2) at a standardised effect of
// size delta ≥ 0 in the direction t points, against no effect: the density
// of t under the noncentral t distribution t′(ν, λ), λ = ±delta·√n_δ, over
// its density under the central t distribution. With n_δ = n1·n2/(n1+n2),
//
//	x  = |t| / √(ν + t²),   a = delta·√n_δ·x,
//	LR = e^(−λ²/2) · H_ν(a) / H_ν(0),   H_ν(a) = ∫₀^∞ y^ν e^(−y²/2 + a·y) dy.
//
// It is also the Bayes factor of the right-Haar prior on σ with a point
// prior at ±delta, so it is the likelihood ratio of the scale-invariant
// part of the data, and a nonnegative martingale under δ = 0: by Ville's
// inequality P(LR ever reaches 1/α) ≤ α, however often it is looked at
// (when the scores are normal with one variance in both arms: the pooled
// t statistic's model). Rejecting when it reaches 1/α is the rejection
// boundary of Wald's SPRT for the invariant data, without the boundary
// that accepts no effect. The SPRT's optimality (Wald–Wolfowitz: fewest
// observations on average among tests with its error rates) is proven for
// independent observations and two boundaries, so what this rule costs in
// runs is measured (docs/sequential-test.md), not claimed.
//
// An infinite t (two constant arms that differ) gives x = 1, the finite
// supremum over t. Fewer than two values in an arm, or a NaN t, give −Inf.
//
// The cost is O(ν): H_ν is computed by the recurrence
// H_{k+1}(a) = a·H_k(a) + k·H_{k−1}(a) (integration by parts), which is
// stable for a ≥ 0, the only case "the direction t points" needs, from
// H₀(a) = √(2π)·e^(a²/2)·Φ(a) and H₁(a) = 1 + a·H₀(a); H_ν(0) =
// 2^((ν−1)/2)·Γ((ν+1)/2).
func LogLikelihoodRatio(t float64, n1, n2 int, delta float64) float64 {
	sh, ok := shapeOf(t, n1, n2)
	if !ok {
		return math.Inf(-1)
	}
	return sh.logLR(delta)
}

// tShape is what the likelihood ratios of one t statistic at different
// effect sizes share.
type tShape struct {
	nu     int
	sqrtND float64 // √n_δ: λ = δ·√n_δ
	x      float64 // |t|/√(ν+t²); 1 for an infinite t
}

// shapeOf returns the shape of t, or false when there is no t statistic
// (an arm with fewer than two values, or a NaN t).
func shapeOf(t float64, n1, n2 int) (tShape, bool) {
	if n1 < 2 || n2 < 2 || math.IsNaN(t) {
		return tShape{}, false
	}
	sh := tShape{nu: n1 + n2 - 2, sqrtND: math.Sqrt(float64(n1) * float64(n2) / float64(n1+n2)), x: 1}
	if !math.IsInf(t, 0) {
		sh.x = math.Abs(t) / math.Hypot(math.Sqrt(float64(sh.nu)), t) // t² may overflow
	}
	return sh, true
}

func (sh tShape) logLR(delta float64) float64 {
	lambda := delta * sh.sqrtND
	return -lambda*lambda/2 + logHRatio(sh.nu, lambda*sh.x)
}

// logLRBound is an upper bound of logLR in O(1): with Y ~ χ(ν+1),
// H_ν(a)/H_ν(0) = E[e^(aY)] ≤ e^(a·E[Y] + a²/2), because Y is a 1-Lipschitz
// function (the norm) of a standard normal vector and so sub-Gaussian with
// variance proxy 1 about its mean (Tsirelson–Ibragimov–Sudakov), and
// E[Y] ≤ √(E[Y²]) = √(ν+1). A look whose bound cannot beat the evidence
// seen already need not compute the exact ratio.
func (sh tShape) logLRBound(delta float64) float64 {
	lambda := delta * sh.sqrtND
	a := lambda * sh.x
	return -lambda*lambda/2 + a*math.Sqrt(float64(sh.nu+1)) + a*a/2
}

// logHRatio is log(H_ν(a)/H_ν(0)) for a ≥ 0, the log of the moment
// generating function at a of the χ distribution with ν+1 degrees of
// freedom (whose density is ∝ y^ν e^(−y²/2)).
func logHRatio(nu int, a float64) float64 {
	if a == 0 {
		return 0
	}
	// Scaled by e^s so that H₀ is 1; rescaled when the values grow large.
	s := 0.5*math.Log(2*math.Pi) + a*a/2 + math.Log(0.5*math.Erfc(-a/math.Sqrt2))
	h0, h1 := 1.0, math.Exp(-s)+a
	if nu == 0 {
		h1 = h0
	}
	// Two steps a round, so that the check for rescaling is made half as
	// often; the fused multiply-add keeps the chain from h1 to h1 short.
	k := 1.0
	for ; k+1 < float64(nu); k += 2 {
		h0 = math.FMA(a, h1, k*h0)
		h1 = math.FMA(a, h0, (k+1)*h1)
		if h1 > 1e200 {
			h0, h1 = h0*1e-200, h1*1e-200
			s += 200 * math.Ln10
		}
	}
	if k < float64(nu) {
		h0, h1 = h1, math.FMA(a, h1, k*h0)
	}
	lg, _ := math.Lgamma(float64(nu+1) / 2)
	return s + math.Log(h1) - (float64(nu-1)/2*math.Ln2 + lg)
}

// Point is one point of a discrete prior on the size of the standardised
// effect: Weight at ±Delta, with the sign of the t statistic.
type Point struct{ Delta, Weight float64 }

// LogMixtureLikelihoodRatio is the logarithm of Σ wᵢ·LR(t; δᵢ), the
// likelihood ratio of a discrete prior on the effect's size (weights
// summing to 1) against no effect: a mixture of nonnegative martingales
// under the null with weights summing to 1, so a nonnegative martingale
// (and the Bayes factor of that prior, with the right-Haar prior on σ).
//
// A point whose bound (tShape.logLRBound) puts its term below 2⁻⁵⁴ of
// the sum so far is left out: adding it could change the float64 sum by no
// more than its rounding. Points of large weight first make that common.
func LogMixtureLikelihoodRatio(t float64, n1, n2 int, prior []Point) float64 {
	sh, ok := shapeOf(t, n1, n2)
	if !ok {
		return math.Inf(-1)
	}
	return newLogPrior(prior).logLR(sh)
}

// logPrior is a prior with its weights' logarithms.
type logPrior struct {
	delta, logW []float64
}

func newLogPrior(prior []Point) logPrior {
	p := logPrior{delta: make([]float64, len(prior)), logW: make([]float64, len(prior))}
	for i, pt := range prior {
		p.delta[i], p.logW[i] = pt.Delta, math.Log(pt.Weight)
	}
	return p
}

func (p logPrior) logLR(sh tShape) float64 {
	sum := math.Inf(-1) // log of the sum so far
	for i, d := range p.delta {
		if p.logW[i]+sh.logLRBound(d) < sum-54*math.Ln2 {
			continue
		}
		sum = logAddExp(sum, p.logW[i]+sh.logLR(d))
	}
	return sum
}

// logLRBound is an upper bound of logLR in O(len(prior)) without a
// logarithm: Σ wᵢ·LRᵢ ≤ maxᵢ LRᵢ since the weights sum to 1.
func (p logPrior) logLRBound(sh tShape) float64 {
	b := math.Inf(-1)
	for _, d := range p.delta {
		b = max(b, sh.logLRBound(d))
	}
	return b
}

// logAddExp is log(eᵃ + eᵇ) without overflow.
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}
