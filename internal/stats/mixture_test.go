package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// TestBayesFactorIsAMixtureOfNoncentralTs checks the closed form of the
// sequential test's Bayes factor independently: the Bayes factor of the t statistic is the density of t
// under δ ~ N(0, g) — a mixture of noncentral t densities with
// noncentrality δ·√n_δ — over its density under δ = 0, integrated here
// numerically with gonum's quadrature.
func TestBayesFactorIsAMixtureOfNoncentralTs(t *testing.T) {
	cases := []struct {
		t      float64
		n1, n2 int
		g      float64
	}{
		{0, 10, 10, 0.25}, {1.5, 10, 10, 0.25}, {-2.5, 20, 20, 0.25}, {3.2, 40, 40, 0.25},
		{2, 5, 12, 1}, {4, 60, 60, 0.04}, {-1, 3, 3, 0.25},
	}
	for _, c := range cases {
		nu := float64(c.n1 + c.n2 - 2)
		nd := float64(c.n1*c.n2) / float64(c.n1+c.n2)
		sd := math.Sqrt(c.g)
		prior := distuv.Normal{Mu: 0, Sigma: sd}
		mix := quad.Fixed(func(d float64) float64 {
			return distuv.NoncentralT{Nu: nu, Mu: d * math.Sqrt(nd)}.Prob(c.t) * prior.Prob(d)
		}, -10*sd, 10*sd, 400, nil, 0)
		want := mix / distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Prob(c.t)
		got := BayesFactor(c.t, c.n1, c.n2, c.g)
		if math.Abs(got-want) > 1e-6*max(1, want) {
			t.Errorf("BayesFactor(%v, %d, %d, %v) = %.10g, numerical integral %.10g", c.t, c.n1, c.n2, c.g, got, want)
		}
	}
}

func TestBayesFactorShape(t *testing.T) {
	if bf := BayesFactor(0, 30, 30, 0.25); !(bf < 1) {
		t.Errorf("BF at t=0 = %v, want < 1 (no difference favours the null)", bf)
	}
	if BayesFactor(2, 30, 30, 0.25) != BayesFactor(-2, 30, 30, 0.25) {
		t.Error("BF is not symmetric in t")
	}
	prev := 0.0
	for _, tt := range []float64{0, 0.5, 1, 2, 3, 5, 10} {
		bf := BayesFactor(tt, 30, 30, 0.25)
		if bf <= prev {
			t.Errorf("BF not increasing in |t|: %v at t=%v after %v", bf, tt, prev)
		}
		prev = bf
	}
	// t → ∞ (two constant arms that differ) is the finite limit (1 + n_δ g)^(ν/2).
	lim := LogBayesFactor(math.Inf(1), 6, 6, 0.25)
	if want := 5 * math.Log1p(0.75); math.Abs(lim-want) > 1e-12 || LogBayesFactor(1e8, 6, 6, 0.25) > lim+1e-9 {
		t.Errorf("log BF at +Inf = %v, want %v, the supremum", lim, want)
	}
	if l := LogBayesFactor(1e200, 6, 6, 0.25); !(math.Abs(l-lim) <= 1e-12) {
		t.Errorf("log BF at t=1e200 = %v, want the limit %v", l, lim)
	}
	if l := LogBayesFactor(1, 1, 5, 0.25); !math.IsInf(l, -1) {
		t.Errorf("log BF with one value in an arm = %v, want -Inf", l)
	}
}
