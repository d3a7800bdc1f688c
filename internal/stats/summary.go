package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// Summary is what the tests need of one arm: its size, mean and sample
// variance.
type Summary struct {
	N    int
	Mean float64
	Var  float64 // sample variance, n−1 in the denominator; 0 when N < 2
}

// Summarize returns the summary of xs.
func Summarize(xs []float64) Summary {
	switch len(xs) {
	case 0:
		return Summary{}
	case 1:
		return Summary{N: 1, Mean: xs[0]}
	}
	m, v := stat.MeanVariance(xs, nil)
	return Summary{N: len(xs), Mean: m, Var: v}
}

// SD returns the sample standard deviation.
func (s Summary) SD() float64 { return math.Sqrt(s.Var) }

// Running accumulates a summary one value at a time (Welford's update), so a
// sequential test costs O(1) per look.
type Running struct {
	n    int
	mean float64
	m2   float64 // sum of squared deviations from the running mean
}

// Add adds one value.
func (r *Running) Add(v float64) {
	r.n++
	d := v - r.mean
	r.mean += d / float64(r.n)
	r.m2 += d * (v - r.mean)
}

// Summary returns the summary of the values added so far.
func (r *Running) Summary() Summary {
	s := Summary{N: r.n, Mean: r.mean}
	if r.n > 1 {
		s.Var = max(r.m2, 0) / float64(r.n-1)
	}
	return s
}

// Constant reports whether every value added was the same. Welford's update
// keeps m2 exactly 0 for identical values, so the test is exact.
func (r *Running) Constant() bool { return r.m2 == 0 }
