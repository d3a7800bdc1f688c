package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestLikelihoodRatioIsNoncentralTOverCentralT checks LogLikelihoodRatio
// against gonum's densities: t′(ν, λ) over t(ν), λ = ±δ·√n_δ with the sign
// of t. gonum's noncentral density is a difference of two CDFs, which loses
// digits where t is far below λ (2e-8 relatively at t = 1, λ = 5.5; the
// quadrature below agrees with LogLikelihoodRatio there to 1e-15), so the
// tolerance is 1e-7 and t stays moderate.
func TestLikelihoodRatioIsNoncentralTOverCentralT(t *testing.T) {
	for _, n := range [][2]int{{2, 2}, {3, 5}, {10, 10}, {20, 35}, {60, 60}} {
		for _, delta := range []float64{0.2, 0.5, 1} {
			for _, tt := range []float64{0.3, 1, 2, 3, -0.7, -2.5} {
				nu := float64(n[0] + n[1] - 2)
				lambda := math.Copysign(delta*math.Sqrt(float64(n[0]*n[1])/float64(n[0]+n[1])), tt)
				want := distuv.NoncentralT{Nu: nu, Mu: lambda}.Prob(tt) / distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Prob(tt)
				got := math.Exp(LogLikelihoodRatio(tt, n[0], n[1], delta))
				if math.Abs(got-want) > 1e-7*want {
					t.Errorf("LR(t=%v, n=%v, δ=%v) = %.12g, gonum's density ratio %.12g", tt, n, delta, got, want)
				}
			}
		}
	}
}

// logHByQuadrature is log ∫₀^∞ y^ν e^(−y²/2 + a·y) dy by gonum's
// Gauss–Legendre quadrature over ±40 standard widths around the mode: an
// independent check of the recurrence where gonum's density is not exact
// (large t, large ν).
func logHByQuadrature(nu int, a float64) float64 {
	v := float64(nu)
	mode := (a + math.Sqrt(a*a+4*v)) / 2
	phi := func(y float64) float64 { return v*math.Log(y) - y*y/2 + a*y }
	width := 1 / math.Sqrt(v/(mode*mode)+1)
	lo, hi := max(0, mode-40*width), mode+40*width
	top := phi(mode)
	integral := quad.Fixed(func(y float64) float64 {
		if y <= 0 {
			return 0
		}
		return math.Exp(phi(y) - top)
	}, lo, hi, 4000, nil, 0)
	return top + math.Log(integral)
}

func TestLikelihoodRatioMatchesQuadrature(t *testing.T) {
	cases := []struct {
		t     float64
		n     int
		delta float64
	}{
		{3, 50, 0.5}, {2.5, 130, 0.5}, {5, 130, 0.5}, {40, 20, 0.5}, {math.Inf(1), 6, 0.5},
		{math.Inf(-1), 130, 0.8}, {-4, 1000, 0.2}, {3, 5000, 0.05}, {12, 400, 2}, {0.1, 2, 0.5}, {1, 60, 1}, {-0.7, 60, 1},
	}
	for _, c := range cases {
		nu := 2*c.n - 2
		lambda := c.delta * math.Sqrt(float64(c.n)/2)
		x := 1.0
		if !math.IsInf(c.t, 0) {
			x = math.Abs(c.t) / math.Sqrt(float64(nu)+c.t*c.t)
		}
		want := -lambda*lambda/2 + logHByQuadrature(nu, lambda*x) - logHByQuadrature(nu, 0)
		got := LogLikelihoodRatio(c.t, c.n, c.n, c.delta)
		if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("log LR(t=%v, n=%d, δ=%v) = %.14g, by quadrature %.14g", c.t, c.n, c.delta, got, want)
		}
	}
}

func TestLikelihoodRatioShape(t *testing.T) {
	// At t = 0 the data favour no effect: LR = e^(−λ²/2).
	if l := LogLikelihoodRatio(0, 30, 30, 0.5); math.Abs(l-(-0.25*15/2)) > 1e-12 {
		t.Errorf("log LR at t=0 = %v, want −λ²/2 = %v", l, -0.25*15/2)
	}
	if l := LogLikelihoodRatio(2, 30, 30, 0); l != 0 {
		t.Errorf("log LR at δ=0 = %v, want 0", l)
	}
	if LogLikelihoodRatio(2, 30, 30, 0.5) != LogLikelihoodRatio(-2, 30, 30, 0.5) {
		t.Error("LR of the direction t points is not symmetric in t")
	}
	prev := math.Inf(-1)
	for _, tt := range []float64{0, 0.5, 1, 2, 3, 5, 10, 1e3, math.Inf(1)} {
		l := LogLikelihoodRatio(tt, 30, 30, 0.5)
		if !(l > prev) || math.IsInf(l, 0) {
			t.Errorf("log LR not finite and increasing in |t|: %v at t=%v after %v", l, tt, prev)
		}
		prev = l
	}
	// A t so large that t² overflows is the limit, not 0.
	if l, lim := LogLikelihoodRatio(1e200, 30, 30, 0.5), LogLikelihoodRatio(math.Inf(1), 30, 30, 0.5); !(math.Abs(l-lim) <= 1e-12) {
		t.Errorf("log LR at t=1e200 = %v, want the limit %v", l, lim)
	}
	// The supremum over t grows with n: more runs, more evidence possible.
	prev = math.Inf(-1)
	for n := 2; n <= 300; n++ {
		l := LogLikelihoodRatio(math.Inf(1), n, n, 0.5)
		if !(l > prev) {
			t.Fatalf("sup log LR at n=%d is %v, not above %v at n−1", n, l, prev)
		}
		prev = l
	}
	for _, c := range []struct {
		t      float64
		n1, n2 int
	}{{1, 1, 5}, {1, 5, 1}, {math.NaN(), 5, 5}} {
		if l := LogLikelihoodRatio(c.t, c.n1, c.n2, 0.5); !math.IsInf(l, -1) {
			t.Errorf("LogLikelihoodRatio(%v, %d, %d) = %v, want −Inf", c.t, c.n1, c.n2, l)
		}
	}
}

// TestLikelihoodRatioBound: the O(1) bound that lets a look skip the exact
// ratio is an upper bound everywhere, and close enough to skip most looks
// under the null (|t| ≲ 1.2 at n = 50).
func TestLikelihoodRatioBound(t *testing.T) {
	for _, n := range []int{2, 3, 5, 10, 30, 100, 300, 2000} {
		for _, delta := range []float64{0.05, 0.2, 0.5, 1, 3} {
			for _, tt := range []float64{0, 0.1, 0.5, 1, 1.5, 2, 3, 5, 10, 100, math.Inf(1)} {
				exact := LogLikelihoodRatio(tt, n, n, delta)
				sh, _ := shapeOf(tt, n, n)
				if b := sh.logLRBound(delta); b < exact-1e-9*math.Abs(exact) {
					t.Errorf("bound(t=%v, n=%d, δ=%v) = %v < exact %v", tt, n, delta, b, exact)
				}
			}
		}
	}
	if sh, _ := shapeOf(1.2, 50, 50); sh.logLRBound(0.5) > 0 {
		t.Errorf("bound at t=1.2, n=50 = %v, want ≤ 0 (a look there is skipped)", sh.logLRBound(0.5))
	}
}

// TestMixtureLikelihoodRatio: the log of Σ wᵢ·LRᵢ, to rounding, also where
// the bound leaves a point out.
func TestMixtureLikelihoodRatio(t *testing.T) {
	prior := []Point{{Delta: 0.5, Weight: 0.95}, {Delta: 3, Weight: 0.05}}
	left := 0
	for _, n := range []int{2, 4, 7, 30, 130, 1000} {
		for _, tt := range []float64{0, 0.5, 2, 4, 8, 30, math.Inf(1), -3} {
			want := math.Log(0.95*math.Exp(LogLikelihoodRatio(tt, n, n, 0.5)) + 0.05*math.Exp(LogLikelihoodRatio(tt, n, n, 3)))
			if math.IsInf(want, 0) { // e^(log LR) overflowed: add in logs
				want = logAddExp(math.Log(0.95)+LogLikelihoodRatio(tt, n, n, 0.5), math.Log(0.05)+LogLikelihoodRatio(tt, n, n, 3))
			}
			got := LogMixtureLikelihoodRatio(tt, n, n, prior)
			if math.Abs(got-want) > 1e-13*max(1, math.Abs(want)) {
				t.Errorf("log mixture LR(t=%v, n=%d) = %.15g, want %.15g", tt, n, got, want)
			}
			sh, _ := shapeOf(tt, n, n)
			if b := newLogPrior(prior).logLRBound(sh); b < got {
				t.Errorf("bound(t=%v, n=%d) = %v < %v", tt, n, b, got)
			}
			if math.Log(0.05)+sh.logLRBound(3) < math.Log(0.95)+LogLikelihoodRatio(tt, n, n, 0.5)-54*math.Ln2 {
				left++
			}
		}
	}
	if left == 0 {
		t.Error("no case left the gross point out: the shortcut is untested")
	}
}
