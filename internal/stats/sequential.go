package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Sequential is the anytime-valid t-test of x − y, fed one value at a time
// with running sums and looked at as often as wanted. At each look it weighs
// the claim that the t statistic points to ("x is greater" for t > 0, "x is
// less" for t < 0) by its evidence E, such that under the null
// P(E ever reaches 1/α) ≤ α for each claim:
//
//   - NewSequential: the likelihood ratio of a discrete prior on the
//     effect's size at the claim's sign, E = Σ wᵢ·LR(δᵢ)
//     (LogMixtureLikelihoodRatio), a nonnegative martingale under the null,
//     so Ville's inequality gives the bound (at looks where t points the
//     other way it is below 1 and cannot reach 1/α). With all its weight at
//     one δ it is the rejection boundary of Wald's SPRT for the
//     scale-invariant data, planned for an effect of δ (see
//     LogLikelihoodRatio for what that does and does not promise); arena's
//     sequential mode puts most of the weight at the effect it plans for
//     and a little at a gross one.
//   - NewMixtureSequential: the Bayes factor of a N(0, G) prior on the
//     effect, E = 2·BF (LogBayesFactor). BF is a martingale symmetric in t:
//     it reaches 1/(2α) with probability at most 2α, split evenly between
//     the signs of t by the null's symmetry. Slower at any one effect, but
//     it does not need one planned.
//
// One-sided, a direction is claimed when its evidence reaches 1/α, so each
// of "x is greater" and "x is less" is claimed falsely with probability at
// most α. Two-sided, each direction needs 2/α (Bonferroni), so "x differs"
// is claimed falsely with probability at most α.
//
// Its p-values are always valid: the running minimum over looks of
// min(1, 1/E) for a one-sided claim, and min(1, 2/E) over both directions
// for "x differs". A rejection at level α happens exactly when the p-value
// of the claim is at most α.
type Sequential struct {
	Alpha    float64
	TwoSided bool

	X, Y Running // candidate and baseline

	ev    evidence
	looks int
	best  [2]float64 // running maximum of log E: "greater", "less"; ≥ 0
	// deferred holds, per direction, looks whose bound beat best but not
	// the threshold: they cannot reject, so their exact evidence waits
	// until a p-value is asked for (resolve).
	deferred [2][]deferredLook
	last     Look
}

// deferredLook is a look whose exact evidence was not computed yet.
type deferredLook struct {
	t      float64
	n1, n2 int
	bound  float64
}

// maxDeferred bounds the deferred looks per direction: past it they are
// resolved, so memory does not grow with MaxRuns.
const maxDeferred = 256

// evidence is a rule's log evidence for the claim t points to, exactly and
// as an upper bound that is cheap to compute, or exactly only (bound nil)
// when that is cheap already.
type evidence struct {
	exact, bound func(t float64, n1, n2 int) float64
	// logSplit is log(E/BF): 0 for the point rule, log 2 for the mixture.
	logSplit float64
}

// NewSequential returns a test with no data whose evidence is the
// likelihood ratio of prior, a discrete prior on the effect's size against
// no effect. A prior whose weights are not positive or do not sum to 1, or
// whose sizes are not finite and positive, is a programmer error and
// panics.
func NewSequential(prior []Point, alpha float64, twoSided bool) *Sequential {
	sum := 0.0
	for _, p := range prior {
		if !(p.Weight > 0) || !(p.Delta > 0) || math.IsInf(p.Delta, 0) {
			panic(fmt.Sprintf("arena: stats.NewSequential: prior point %+v: want a positive weight and a finite positive size", p))
		}
		sum += p.Weight
	}
	if math.Abs(sum-1) > 1e-12 {
		panic(fmt.Sprintf("arena: stats.NewSequential: prior weights sum to %v, want 1", sum))
	}
	lp := newLogPrior(prior)
	shaped := func(f func(tShape) float64) func(float64, int, int) float64 {
		return func(t float64, n1, n2 int) float64 {
			sh, ok := shapeOf(t, n1, n2)
			if !ok {
				return math.Inf(-1)
			}
			return f(sh)
		}
	}
	return &Sequential{Alpha: alpha, TwoSided: twoSided, ev: evidence{exact: shaped(lp.logLR), bound: shaped(lp.logLRBound)}}
}

// NewMixtureSequential returns a test with no data whose evidence is twice
// the Bayes factor of a N(0, g) prior (g > 0) on the standardised effect.
func NewMixtureSequential(g, alpha float64, twoSided bool) *Sequential {
	bf := func(t float64, n1, n2 int) float64 { return math.Ln2 + LogBayesFactor(t, n1, n2, g) }
	return &Sequential{Alpha: alpha, TwoSided: twoSided, ev: evidence{exact: bf, logSplit: math.Ln2}}
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
	// Reject is 0 (go on), +1 (x greater) or −1 (x less).
	Reject int
}

// Look updates the running evidence with the data so far and reports
// whether the test rejects now. Looking never costs validity; a look with
// fewer than two values per arm sees nothing.
//
// A look costs O(1) unless the data could reach the threshold: then
// NewSequential's rule computes its likelihood ratio in O(n). A look that
// could beat the evidence seen so far, but not reach the threshold, only
// matters to the p-values, and is evaluated when one is asked for.
func (s *Sequential) Look() Look {
	x, y := s.X.Summary(), s.Y.Summary()
	l := Look{N1: x.N, N2: y.N}
	if x.N < 2 || y.N < 2 {
		return l
	}
	s.looks++
	st, err := Student(x, y)
	if err == nil {
		l.T = st.T
	} // ErrZeroVariance: two equal constant arms, t = 0
	s.last = l
	// pDir(i) ≤ α, without an exponential per look.
	threshold := s.logThreshold()
	// At t = 0 neither direction gains: the evidence is below 1 there.
	if dir := sign(l.T); dir != 0 {
		i := (1 - dir) / 2 // 0 for "greater", 1 for "less"
		if s.ev.bound == nil {
			s.best[i] = max(s.best[i], s.ev.exact(l.T, x.N, y.N))
		} else if b := s.ev.bound(l.T, x.N, y.N); b <= s.best[i] {
			// cannot beat the evidence seen already
		} else if b >= threshold {
			s.best[i] = max(s.best[i], s.ev.exact(l.T, x.N, y.N))
		} else {
			s.deferred[i] = append(s.deferred[i], deferredLook{t: l.T, n1: x.N, n2: y.N, bound: b})
			if len(s.deferred[i]) >= maxDeferred {
				s.resolve(i)
			}
		}
	}
	switch {
	case s.best[0] >= threshold:
		l.Reject = 1
	case s.best[1] >= threshold:
		l.Reject = -1
	}
	s.last.Reject = l.Reject
	return l
}

// logThreshold is the log evidence a direction needs: log(1/α) one-sided,
// log(2/α) two-sided.
func (s *Sequential) logThreshold() float64 {
	if s.TwoSided {
		return math.Log(2 / s.Alpha)
	}
	return math.Log(1 / s.Alpha)
}

// resolve computes the exact evidence of direction i's deferred looks, the
// largest bound first, until no bound can beat the running maximum.
func (s *Sequential) resolve(i int) {
	d := s.deferred[i]
	slices.SortFunc(d, func(a, b deferredLook) int { return cmp.Compare(b.bound, a.bound) })
	for _, l := range d {
		if l.bound <= s.best[i] {
			break
		}
		s.best[i] = max(s.best[i], s.ev.exact(l.t, l.n1, l.n2))
	}
	s.deferred[i] = d[:0]
}

// pDir is the p-value of one direction (0 "greater", 1 "less") at the
// test's sidedness: min(1, 1/E) one-sided, min(1, 2/E) two-sided.
func (s *Sequential) pDir(i int) float64 {
	s.resolve(i)
	p := math.Exp(-s.best[i])
	if s.TwoSided {
		p = min(1, 2*p)
	}
	return p
}

// Looks returns how many looks saw data.
func (s *Sequential) Looks() int { return s.looks }

// P returns the always-valid p-value of the claim "x differs" (two-sided,
// whatever dir) or, one-sided, of "x is greater" (dir > 0) or "x is less"
// (dir < 0). Two-sided, P(dir) with dir ≠ 0 is also the p-value of "x
// differs", since the test claims a difference only in the direction the
// data show.
func (s *Sequential) P(dir int) float64 {
	switch {
	case s.TwoSided:
		return min(s.pDir(0), s.pDir(1))
	case dir < 0:
		return s.pDir(1)
	}
	return s.pDir(0)
}

// LastBayesFactor returns the Bayes factor of the claim t pointed to at the
// last look: the likelihood ratio for NewSequential, BF for
// NewMixtureSequential (whose one-sided evidence is 2·BF); 0 before a
// look. For NewSequential it costs O(n).
func (s *Sequential) LastBayesFactor() float64 {
	if s.looks == 0 {
		return 0
	}
	return math.Exp(s.ev.exact(s.last.T, s.last.N1, s.last.N2) - s.ev.logSplit)
}

// MinRejectable returns the fewest values per arm (equal arms) at which the
// evidence can reach the test's threshold at all: its supremum over t, at
// t = ±∞ (two constant arms that differ), grows with n. It searches up to
// limit and returns limit+1 when even that is too few.
func (s *Sequential) MinRejectable(limit int) int {
	threshold := s.logThreshold()
	inf := math.Inf(1)
	for n := 2; n <= limit; n++ {
		if (s.ev.bound == nil || s.ev.bound(inf, n, n) >= threshold) && s.ev.exact(inf, n, n) >= threshold {
			return n
		}
	}
	return limit + 1
}

func sign(f float64) int {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}
