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
	return -0.5*math.Log1p(r) + (nu+1)/2*(math.Log1p(t2/nu)-math.Log1p(t2/(nu*(1+r))))
}

// BayesFactor is exp(LogBayesFactor(t, n1, n2, g)).
func BayesFactor(t float64, n1, n2 int, g float64) float64 {
	return math.Exp(LogBayesFactor(t, n1, n2, g))
}

// Sequential is the anytime-valid t-test of x − y, fed one value at a time
// with running sums and looked at as often as wanted. With TwoSided it
// rejects when BF ≥ 1/α; otherwise when BF ≥ 1/(2α), in the direction of t
// (the two one-sided claims split α between them, so "x is greater" is
// claimed falsely with probability at most α under the null's symmetry).
//
// Its p-values are always valid: the running minimum over looks of
// min(1, 1/BF) (two-sided), or of min(1, 1/(2·BF)) over the looks where t
// points the claim's way (one-sided). A rejection at level α happens
// exactly when the p-value of the claim is at most α.
type Sequential struct {
	G        float64 // prior variance of the standardised effect; > 0
	Alpha    float64
	TwoSided bool

	X, Y Running // candidate and baseline

	looks     int
	pTwo      float64
	pGreater  float64
	pLess     float64
	lastLogBF float64
	lastT     float64
}

// NewSequential returns a test with no data.
func NewSequential(g, alpha float64, twoSided bool) *Sequential {
	return &Sequential{G: g, Alpha: alpha, TwoSided: twoSided, pTwo: 1, pGreater: 1, pLess: 1}
}

// Add adds one value to each arm.
func (s *Sequential) Add(x, y float64) {
	s.X.Add(x)
	s.Y.Add(y)
}

// Look is what one look at a Sequential test sees.
type Look struct {
	N1, N2 int
	T      float64 // pooled t of x − y; ±Inf for two differing constant arms, 0 for two equal ones
	LogBF  float64
	// Reject is 0 (go on), +1 (x greater) or −1 (x less).
	Reject int
}

// Look computes the Bayes factor of the data so far, updates the running
// p-values, and reports whether the test rejects now. Looking never costs
// validity; a look with fewer than two values per arm sees nothing.
func (s *Sequential) Look() Look {
	x, y := s.X.Summary(), s.Y.Summary()
	l := Look{N1: x.N, N2: y.N, LogBF: math.Inf(-1)}
	if x.N < 2 || y.N < 2 {
		return l
	}
	s.looks++
	st, err := Student(x, y)
	if err == nil {
		l.T = st.T
	} // ErrZeroVariance: two equal constant arms, t = 0
	l.LogBF = LogBayesFactor(l.T, x.N, y.N, s.G)
	s.lastLogBF, s.lastT = l.LogBF, l.T
	inv := math.Exp(-l.LogBF) // 1/BF
	s.pTwo = min(s.pTwo, inv, 1)
	switch {
	case l.T > 0:
		s.pGreater = min(s.pGreater, inv/2, 1)
	case l.T < 0:
		s.pLess = min(s.pLess, inv/2, 1)
	}
	if s.TwoSided {
		if s.pTwo <= s.Alpha {
			l.Reject = sign(l.T)
		}
		return l
	}
	switch {
	case s.pGreater <= s.Alpha:
		l.Reject = 1
	case s.pLess <= s.Alpha:
		l.Reject = -1
	}
	return l
}

// Looks returns how many looks saw data.
func (s *Sequential) Looks() int { return s.looks }

// P returns the always-valid p-value of the claim "x differs" (two-sided)
// or, one-sided, of "x is greater" (dir > 0) or "x is less" (dir < 0).
func (s *Sequential) P(dir int) float64 {
	switch {
	case s.TwoSided:
		return s.pTwo
	case dir < 0:
		return s.pLess
	}
	return s.pGreater
}

// LastBayesFactor returns the Bayes factor at the last look (0 before one).
func (s *Sequential) LastBayesFactor() float64 { return math.Exp(s.lastLogBF) }

func sign(f float64) int {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}
