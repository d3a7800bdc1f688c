package stats

import (
	"math"
	"math/rand/v2"
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
	if l := LogBayesFactor(1, 1, 5, 0.25); !math.IsInf(l, -1) {
		t.Errorf("log BF with one value in an arm = %v, want -Inf", l)
	}
}

func TestSequentialRejectsAndPValues(t *testing.T) {
	s := NewSequential(0.25, 0.05, false)
	rng := rand.New(rand.NewPCG(7, 7))
	var l Look
	for n := 1; n <= 200 && l.Reject == 0; n++ {
		s.Add(rng.NormFloat64()+1, rng.NormFloat64())
		l = s.Look()
	}
	if l.Reject != 1 {
		t.Fatalf("d=1: Reject = %d after %d pairs, want +1", l.Reject, l.N1)
	}
	if p := s.P(1); !(p <= 0.05) || math.Abs(p-math.Exp(-l.LogBF)/2) > 1e-12 {
		t.Errorf("one-sided p = %v at rejection, want 1/(2·BF) = %v ≤ α", p, math.Exp(-l.LogBF)/2)
	}
	if s.P(-1) <= 0.05 || s.Looks() != l.N1-1 {
		t.Errorf("P(less) = %v, looks = %d: want > 0.05 and %d", s.P(-1), s.Looks(), l.N1-1)
	}

	// Worse is found the same way.
	w := NewSequential(0.25, 0.05, true)
	for n := 1; n <= 200; n++ {
		w.Add(rng.NormFloat64()-1, rng.NormFloat64())
		if l = w.Look(); l.Reject != 0 {
			break
		}
	}
	if l.Reject != -1 || w.P(-1) > 0.05 {
		t.Errorf("two-sided d=−1: Reject %d p %v, want −1 and p ≤ 0.05", l.Reject, w.P(-1))
	}

	// Two equal constant arms never reject; two differing ones do, once
	// the limit (1 + n_δ g)^(ν/2) passes 1/(2α) = 10 (at n = 6).
	eq, ne := NewSequential(0.25, 0.05, false), NewSequential(0.25, 0.05, false)
	for n := 1; n <= 100; n++ {
		eq.Add(90, 90)
		ne.Add(95, 90)
		if l := eq.Look(); l.Reject != 0 || l.T != 0 {
			t.Fatalf("equal constants rejected at n=%d: %+v", n, l)
		}
		if l := ne.Look(); l.Reject != 0 {
			if n != 6 || l.Reject != 1 {
				t.Errorf("differing constants: Reject %d at n=%d, want +1 at 6", l.Reject, n)
			}
			break
		}
	}
}

// BenchmarkSequentialLook is the cost of one run in a sequential test and
// in the calibration simulations.
func BenchmarkSequentialLook(b *testing.B) {
	s := NewSequential(0.25, 0.05, false)
	rng := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		s.Add(rng.NormFloat64(), rng.NormFloat64())
		s.Look()
	}
}

func BenchmarkWelch(b *testing.B) {
	x, y := Summarize(linspace(5, 105, 100)), Summarize(linspace(1, 100, 25))
	for b.Loop() {
		_, _ = Welch(x, y, Greater)
	}
}

func BenchmarkSampleSize(b *testing.B) {
	for b.Loop() {
		_, _ = SampleSize(0.5, 0.05, 0.9, true)
	}
}
