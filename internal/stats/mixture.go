package stats

import (
	"math"
)

// LogBayesFactor is the logarithm of the Bayes factor of a two-sample t
// statistic t (pooled, with ν = n1 + n2 − 2) under a right-Haar prior on σ
// and a N(0, g) prior on the standardised effect δ, against δ = 0:
//
//	n_δ = n1·n2/(n1+n2)
//	BF  = (1 + n_δ·g)^(−½) · [(1 + t²/ν) / (1 + t²/(ν(1 + n_δ·g)))]^((ν+1)/2)
//
// Because the prior on σ is the right-Haar measure of the scale group, BF
// is a nonnegative martingale under the null in the filtration of the
// scale-invariant statistics; by Ville's inequality
// P(BF ever reaches 1/α) ≤ α, however often it is looked at. An infinite t
// (two constant arms that differ) gives the limit (1 + n_δ·g)^(ν/2).
// It is the evidence of NewMixtureSequential (arena's regression.Config.G),
// the rule of arena's sequential mode before issue 27.
func LogBayesFactor(t float64, n1, n2 int, g float64) float64 {
	if n1 < 2 || n2 < 2 || math.IsNaN(t) {
		return math.Inf(-1)
	}
	nu := float64(n1 + n2 - 2)
	nd := float64(n1) * float64(n2) / float64(n1+n2)
	r := nd * g
	if math.IsInf(t, 0) {
		return nu / 2 * math.Log1p(r)
	}
	t2 := t * t
	if math.IsInf(t2, 0) { // |t| beyond ~1e154: the limit, not Inf − Inf
		return nu / 2 * math.Log1p(r)
	}
	return -0.5*math.Log1p(r) + (nu+1)/2*(math.Log1p(t2/nu)-math.Log1p(t2/(nu*(1+r))))
}

// BayesFactor is exp(LogBayesFactor(t, n1, n2, g)).
func BayesFactor(t float64, n1, n2 int, g float64) float64 {
	return math.Exp(LogBayesFactor(t, n1, n2, g))
}
