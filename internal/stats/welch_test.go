package stats

import (
	"errors"
	"math"
	"testing"
)

// linspace is numpy.linspace(a, b, n).
func linspace(a, b float64, n int) []float64 {
	xs := make([]float64, n)
	step := (b - a) / float64(n-1)
	for i := range xs {
		xs[i] = a + float64(i)*step
	}
	return xs
}

// TestWelchReference checks Welch's test against published reference
// values.
//
//   - The first four rows are SciPy's test suite,
//     scipy/stats/tests/test_stats.py, test_ttest_ind_with_uneq_var
//     (stats.ttest_ind(a, b, equal_var=False)): the first two are commented
//     there "check vs. R", the linspace rows are SciPy's own regression
//     values. All are given to 17 digits; we must match to 1e-6 (we match
//     to ~1e-12).
//   - The last row is the example of R's ?t.test, t.test(extra ~ group,
//     data = sleep): "t = -1.8608, df = 17.776, p-value = 0.07939". R
//     prints 5 significant digits, so it is checked to half a unit in the
//     last printed place.
func TestWelchReference(t *testing.T) {
	sleep1 := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleep2 := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	cases := []struct {
		name          string
		x, y          []float64
		t, df, p      float64
		tolT, tolP    float64
		tolDF         float64 // 0: df not published
		tolDFRelative bool
	}{
		{name: "scipy (1,2,3) vs (1.1,2.9,4.2)", x: []float64{1, 2, 3}, y: []float64{1.1, 2.9, 4.2},
			t: -0.68649512735572582, p: 0.53619490753126731, tolT: 1e-6, tolP: 1e-6},
		{name: "scipy (1,2,3,4) vs (1.1,2.9,4.2)", x: []float64{1, 2, 3, 4}, y: []float64{1.1, 2.9, 4.2},
			t: -0.2108663315950719, p: 0.84354139131608286, tolT: 1e-6, tolP: 1e-6},
		{name: "scipy linspace(5,105,100) vs linspace(1,100,100)", x: linspace(5, 105, 100), y: linspace(1, 100, 100),
			t: 1.0912746897927283, p: 0.27647831993021388, tolT: 1e-6, tolP: 1e-6},
		{name: "scipy linspace(5,105,100) vs linspace(1,100,25)", x: linspace(5, 105, 100), y: linspace(1, 100, 25),
			t: 0.66745638708050492, p: 0.50873585065616544, tolT: 1e-6, tolP: 1e-6},
		{name: "R ?t.test sleep", x: sleep1, y: sleep2,
			t: -1.8608, df: 17.776, p: 0.07939, tolT: 0.00005, tolDF: 0.0005, tolP: 0.000005},
	}
	for _, tc := range cases {
		got, err := Welch(Summarize(tc.x), Summarize(tc.y), TwoSided)
		if err != nil {
			t.Fatalf("%s: Welch: %v", tc.name, err)
		}
		if math.Abs(got.T-tc.t) > tc.tolT || math.Abs(got.P-tc.p) > tc.tolP {
			t.Errorf("%s: Welch = t %.17g p %.17g, want t %.17g p %.17g", tc.name, got.T, got.P, tc.t, tc.p)
		}
		if tc.tolDF > 0 && math.Abs(got.DF-tc.df) > tc.tolDF {
			t.Errorf("%s: df = %.6g, want %.6g", tc.name, got.DF, tc.df)
		}
		// One-sided p-values split the two-sided one by the sign of t.
		g, _ := Welch(Summarize(tc.x), Summarize(tc.y), Greater)
		l, _ := Welch(Summarize(tc.x), Summarize(tc.y), Less)
		small, large := g.P, l.P
		if got.T < 0 {
			small, large = l.P, g.P
		}
		if math.Abs(small-got.P/2) > 1e-12 || math.Abs(large-(1-got.P/2)) > 1e-12 {
			t.Errorf("%s: one-sided p = %v (greater) %v (less), want %v and %v", tc.name, g.P, l.P, got.P/2, 1-got.P/2)
		}
	}
}

func TestWelchDegenerate(t *testing.T) {
	if _, err := Welch(Summarize([]float64{1}), Summarize([]float64{1, 2}), TwoSided); !errors.Is(err, ErrTooFew) {
		t.Errorf("one value: err = %v, want ErrTooFew", err)
	}
	if _, err := Welch(Summarize([]float64{1, 1}), Summarize([]float64{2, 2}), TwoSided); !errors.Is(err, ErrZeroVariance) {
		t.Errorf("constant arms: err = %v, want ErrZeroVariance", err)
	}
	// One constant arm is fine: df = n−1 of the other.
	w, err := Welch(Summarize([]float64{5, 5, 5}), Summarize([]float64{1, 2, 3, 4}), Greater)
	if err != nil || w.DF != 3 || !(w.P < 0.05) {
		t.Errorf("one constant arm: %+v, %v; want df 3 and a small p", w, err)
	}
	// Tiny p-values keep their precision (upper tail computed directly).
	if p := PValue(40, 100, Greater); !(p > 0 && p < 1e-60) {
		t.Errorf("PValue(40, 100, Greater) = %v, want a tiny positive number", p)
	}
	if p := PValue(math.Inf(1), 10, Greater); p != 0 {
		t.Errorf("PValue(+Inf) = %v, want 0", p)
	}
}

func TestStudentEqualsWelchForEqualN(t *testing.T) {
	x, y := Summarize([]float64{3, 1, 4, 1, 5}), Summarize([]float64{9, 2, 6, 5, 3})
	w, _ := Welch(x, y, TwoSided)
	s, _ := Student(x, y)
	if math.Abs(w.T-s.T) > 1e-12 || s.DF != 8 {
		t.Errorf("Student = %+v, Welch = %+v: want the same t and df 8", s, w)
	}
	if s, _ := Student(Summarize([]float64{2, 2}), Summarize([]float64{1, 1})); !math.IsInf(s.T, 1) {
		t.Errorf("Student of differing constants: t = %v, want +Inf", s.T)
	}
}

func TestRunningMatchesSummarize(t *testing.T) {
	xs := []float64{90.5, 88, 97.25, 100, 61, 75.5, 99.9}
	var r Running
	for _, x := range xs {
		r.Add(x)
	}
	got, want := r.Summary(), Summarize(xs)
	if got.N != want.N || math.Abs(got.Mean-want.Mean) > 1e-12 || math.Abs(got.Var-want.Var) > 1e-9 {
		t.Errorf("Running = %+v, Summarize = %+v", got, want)
	}
	var c Running
	for range 5 {
		c.Add(0.1)
	}
	if !c.Constant() || c.Summary().Var != 0 || r.Constant() {
		t.Errorf("Constant: %v (var %v) for five 0.1s, %v for varied values", c.Constant(), c.Summary().Var, r.Constant())
	}
}

// Issue 14 (8b): Welch's test is scale-invariant: the sleep data scaled by
// 1e±150 gives R's t, df and p (the df once overflowed beyond ~1e±77).
func TestWelchIsScaleInvariant(t *testing.T) {
	sleep1 := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleep2 := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	want, err := Welch(Summarize(sleep1), Summarize(sleep2), TwoSided)
	if err != nil {
		t.Fatal(err)
	}
	for _, scale := range []float64{1e150, 1e-150, 1e100, 1e-100} {
		x, y := make([]float64, len(sleep1)), make([]float64, len(sleep2))
		for i := range sleep1 {
			x[i], y[i] = sleep1[i]*scale, sleep2[i]*scale
		}
		got, err := Welch(Summarize(x), Summarize(y), TwoSided)
		if err != nil || math.Abs(got.T-want.T) > 1e-9 || math.Abs(got.DF-want.DF) > 1e-9 || math.Abs(got.P-want.P) > 1e-9 {
			t.Errorf("Welch(sleep × %g) = %+v, %v; want %+v", scale, got, err, want)
		}
	}
}
