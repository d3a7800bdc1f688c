package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// point is a prior with all its weight at one size; arenaPrior is the one
// arena's sequential mode uses at its default MDE of 0.5.
func point(delta float64) []Point { return []Point{{Delta: delta, Weight: 1}} }

var arenaPrior = []Point{{Delta: 0.5, Weight: 0.95}, {Delta: 3, Weight: 0.05}}

func TestSequentialRejectsAndPValues(t *testing.T) {
	s := NewSequential(point(0.5), 0.05, false)
	rng := rand.New(rand.NewPCG(7, 7))
	var l Look
	for n := 1; n <= 200 && l.Reject == 0; n++ {
		s.Add(rng.NormFloat64()+1, rng.NormFloat64())
		l = s.Look()
	}
	if l.Reject != 1 {
		t.Fatalf("d=1: Reject = %d after %d pairs, want +1", l.Reject, l.N1)
	}
	lr := math.Exp(LogLikelihoodRatio(l.T, l.N1, l.N2, 0.5))
	if p := s.P(1); !(p <= 0.05) || math.Abs(p-1/lr) > 1e-12 {
		t.Errorf("one-sided p = %v at rejection, want 1/LR = %v ≤ α", p, 1/lr)
	}
	if bf := s.LastBayesFactor(); math.Abs(bf-lr) > 1e-9*lr {
		t.Errorf("LastBayesFactor = %v, want the likelihood ratio %v", bf, lr)
	}
	if s.P(-1) != 1 || s.Looks() != l.N1-1 {
		t.Errorf("P(less) = %v, looks = %d: want 1 and %d", s.P(-1), s.Looks(), l.N1-1)
	}

	// Worse is found the same way; two-sided, each direction needs 2/α.
	w := NewSequential(point(0.5), 0.05, true)
	for n := 1; n <= 200; n++ {
		w.Add(rng.NormFloat64()-1, rng.NormFloat64())
		if l = w.Look(); l.Reject != 0 {
			break
		}
	}
	lr = math.Exp(LogLikelihoodRatio(l.T, l.N1, l.N2, 0.5))
	if l.Reject != -1 || w.P(-1) > 0.05 || w.P(1) != w.P(-1) || math.Abs(w.P(-1)-2/lr) > 1e-12 {
		t.Errorf("two-sided d=−1: Reject %d p %v/%v, want −1 and p = 2/LR = %v ≤ 0.05", l.Reject, w.P(-1), w.P(1), 2/lr)
	}

	// Two equal constant arms never reject; two differing ones do, at the
	// first n where the supremum of the evidence reaches 1/α: 7 with all
	// the weight at 0.5, 4 with arena's 5% at 3.
	for _, c := range []struct {
		prior []Point
		want  int
	}{{point(0.5), 7}, {arenaPrior, 4}} {
		if got := NewSequential(c.prior, 0.05, false).MinRejectable(100); got != c.want ||
			LogMixtureLikelihoodRatio(math.Inf(1), got-1, got-1, c.prior) >= math.Log(20) ||
			LogMixtureLikelihoodRatio(math.Inf(1), got, got, c.prior) < math.Log(20) {
			t.Errorf("MinRejectable(%v) = %d, want %d: the first n whose supremum reaches 20", c.prior, got, c.want)
		}
	}
	eq, ne := NewSequential(arenaPrior, 0.05, false), NewSequential(arenaPrior, 0.05, false)
	first := ne.MinRejectable(100)
	for n := 1; n <= 100; n++ {
		eq.Add(90, 90)
		ne.Add(95, 90)
		if l := eq.Look(); l.Reject != 0 || l.T != 0 {
			t.Fatalf("equal constants rejected at n=%d: %+v", n, l)
		}
		if l := ne.Look(); l.Reject != 0 {
			if n != first || l.Reject != 1 {
				t.Errorf("differing constants: Reject %d at n=%d, want +1 at %d", l.Reject, n, first)
			}
			break
		}
	}
	if got := NewSequential(arenaPrior, 0.05, false).MinRejectable(first - 1); got != first {
		t.Errorf("MinRejectable(limit %d) = %d, want limit+1", first-1, got)
	}
}

func TestNewSequentialRejectsBadPriors(t *testing.T) {
	for _, prior := range [][]Point{
		nil, {{Delta: 0.5, Weight: 0.9}}, {{Delta: 0, Weight: 1}}, {{Delta: math.Inf(1), Weight: 1}},
		{{Delta: 0.5, Weight: 1.5}, {Delta: 1, Weight: -0.5}}, {{Delta: math.NaN(), Weight: 1}},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "arena: stats.NewSequential: prior") {
					t.Errorf("NewSequential(%v) recovered %v, want an arena: panic naming the prior", prior, r)
				}
			}()
			NewSequential(prior, 0.05, false)
		}()
	}
}

// TestSequentialMixtureKeepsItsRule: NewMixtureSequential is the rule arena
// used before issue 27: one-sided p = 1/(2·BF), two-sided 1/BF.
func TestSequentialMixtureKeepsItsRule(t *testing.T) {
	for _, two := range []bool{false, true} {
		s := NewMixtureSequential(0.25, 0.05, two)
		rng := rand.New(rand.NewPCG(7, 7))
		var l Look
		for n := 1; n <= 200 && l.Reject == 0; n++ {
			s.Add(rng.NormFloat64()+1, rng.NormFloat64())
			l = s.Look()
		}
		bf := BayesFactor(l.T, l.N1, l.N2, 0.25)
		want := 1 / (2 * bf)
		if two {
			want = 1 / bf
		}
		if l.Reject != 1 || math.Abs(s.P(1)-want) > 1e-12 || math.Abs(s.LastBayesFactor()-bf) > 1e-9*bf {
			t.Errorf("two-sided=%v: Reject %d, p %v, BF %v; want +1, p %v, BF %v", two, l.Reject, s.P(1), s.LastBayesFactor(), want, bf)
		}
	}
	// Differing constants: the limit (1 + n_δ g)^(ν/2) passes 1/(2α) = 10 at n = 6.
	if n := NewMixtureSequential(0.25, 0.05, false).MinRejectable(100); n != 6 {
		t.Errorf("mixture MinRejectable = %d, want 6", n)
	}
}

// TestSequentialSkipsOnlyWhatCannotCount: a look skips the exact ratio when
// its bound cannot beat the evidence seen already, and defers it when it
// cannot reach the threshold; the p-values, asked for at every look or
// only at the end, must be those of computing it at every look.
func TestSequentialSkipsOnlyWhatCannotCount(t *testing.T) {
	for _, c := range []struct{ d, alpha float64 }{{0, 0.05}, {0.1, 0.05}, {-0.1, 0.05}, {3, 0.05}, {0.2, 1e-12}} {
		d := c.d
		rng := rand.New(rand.NewPCG(11, uint64(100*d+50)))
		every, end := NewSequential(arenaPrior, c.alpha, false), NewSequential(arenaPrior, c.alpha, false)
		var x, y Running
		best := [2]float64{} // log LR, brute force
		overflows := 0
		const looks = 1000
		for n := 1; n <= looks; n++ {
			a, b := rng.NormFloat64()+d, rng.NormFloat64()
			every.Add(a, b)
			end.Add(a, b)
			x.Add(a)
			y.Add(b)
			every.Look()
			before := len(end.deferred[0]) + len(end.deferred[1])
			end.Look()
			if after := len(end.deferred[0]) + len(end.deferred[1]); after < before {
				overflows++ // maxDeferred reached: resolved without a P
			}
			if n < 2 {
				continue
			}
			st, _ := Student(x.Summary(), y.Summary())
			i := 0
			if st.T < 0 {
				i = 1
			}
			best[i] = max(best[i], logAddExp(math.Log(0.95)+LogLikelihoodRatio(st.T, n, n, 0.5), math.Log(0.05)+LogLikelihoodRatio(st.T, n, n, 3)))
			if g, l := every.P(1), every.P(-1); math.Abs(g-math.Exp(-best[0])) > 1e-12 || math.Abs(l-math.Exp(-best[1])) > 1e-12 {
				t.Fatalf("d=%v n=%d: P = %v/%v, brute force %v/%v", d, n, g, l, math.Exp(-best[0]), math.Exp(-best[1]))
			}
		}
		if g, l := end.P(1), end.P(-1); math.Abs(g-math.Exp(-best[0])) > 1e-12 || math.Abs(l-math.Exp(-best[1])) > 1e-12 {
			t.Errorf("d=%v: P at the end = %v/%v, brute force %v/%v", d, g, l, math.Exp(-best[0]), math.Exp(-best[1]))
		}
		// Evidence that grows but never reaches the threshold defers
		// nearly every look.
		if c.alpha < 1e-6 && overflows == 0 {
			t.Errorf("d=%v α=%v: %d looks never filled the deferred looks (max %d): that path is untested", d, c.alpha, looks, maxDeferred)
		}
	}
}

// BenchmarkSequentialLook is the cost of one run in a sequential test and
// in the calibration simulations: experiments of up to 130 pairs at a true
// effect d, each look after a pair, a new experiment after a rejection.
func BenchmarkSequentialLook(b *testing.B) {
	for _, rule := range []struct {
		name string
		new  func() *Sequential
	}{
		{"rule=lr", func() *Sequential { return NewSequential(arenaPrior, 0.05, false) }},
		{"rule=mixture", func() *Sequential { return NewMixtureSequential(0.25, 0.05, false) }},
	} {
		for _, d := range []float64{0, 0.5} {
			b.Run(fmt.Sprintf("%s/d=%v", rule.name, d), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				s := rule.new()
				for b.Loop() {
					s.Add(rng.NormFloat64()+d, rng.NormFloat64())
					if s.Look().Reject != 0 || s.X.Summary().N == 130 {
						s = rule.new()
					}
				}
			})
		}
	}
}

// BenchmarkLikelihoodRatio is the exact ratio at the default cap's size,
// of one point and of arena's prior (where the gross point's term is
// negligible and skipped).
func BenchmarkLikelihoodRatio(b *testing.B) {
	b.Run("point", func(b *testing.B) {
		for b.Loop() {
			LogLikelihoodRatio(2.5, 130, 130, 0.5)
		}
	})
	b.Run("prior", func(b *testing.B) {
		for b.Loop() {
			LogMixtureLikelihoodRatio(2.5, 130, 130, arenaPrior)
		}
	})
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
