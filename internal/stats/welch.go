package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Alternative is the alternative hypothesis of a test about x − y.
type Alternative int

// The alternatives: x ≠ y, x > y, x < y.
const (
	TwoSided Alternative = iota
	Greater
	Less
)

func (a Alternative) String() string {
	switch a {
	case TwoSided:
		return "two-sided"
	case Greater:
		return "greater"
	case Less:
		return "less"
	}
	return fmt.Sprintf("Alternative(%d)", int(a))
}

// Errors of the tests.
var (
	// ErrTooFew: an arm has fewer than two values, so it has no variance.
	ErrTooFew = errors.New("need at least 2 values per arm")
	// ErrZeroVariance: both arms are constant; there is no t statistic, and
	// the arms must be compared exactly.
	ErrZeroVariance = errors.New("both arms have zero variance")
)

// TTest is the outcome of a t-test.
type TTest struct {
	T  float64 // statistic of x − y
	DF float64 // degrees of freedom (Welch–Satterthwaite for Welch's test)
	P  float64 // p-value under the requested alternative
}

// Welch is Welch's unequal-variance t-test of x − y:
//
//	t  = (x̄ − ȳ) / √(sx²/nx + sy²/ny)
//	df = (sx²/nx + sy²/ny)² / ((sx²/nx)²/(nx−1) + (sy²/ny)²/(ny−1))
//
// with the p-value from the t distribution with df degrees of freedom (not a
// normal approximation). It agrees with R's t.test(x, y) and SciPy's
// ttest_ind(x, y, equal_var=False).
func Welch(x, y Summary, alt Alternative) (TTest, error) {
	if x.N < 2 || y.N < 2 {
		return TTest{}, ErrTooFew
	}
	vx, vy := x.Var/float64(x.N), y.Var/float64(y.N)
	se2 := vx + vy
	if se2 == 0 {
		return TTest{}, ErrZeroVariance
	}
	t := (x.Mean - y.Mean) / math.Sqrt(se2)
	df := welchDF(vx, vy, x.N, y.N)
	return TTest{T: t, DF: df, P: PValue(t, df, alt)}, nil
}

// welchDF is the Welch–Satterthwaite df with both variance terms divided by
// the larger first: the ratio does not depend on the scale, and squaring
// terms near 1 neither overflows (scores beyond ~1e±77 squared to Inf or 0
// and gave a NaN df) nor underflows.
func welchDF(vx, vy float64, nx, ny int) float64 {
	m := max(vx, vy)
	a, b := vx/m, vy/m
	return (a + b) * (a + b) / (a*a/float64(nx-1) + b*b/float64(ny-1))
}

// Student is the pooled-variance two-sample t statistic of x − y with
// ν = nx + ny − 2 degrees of freedom: the statistic the sequential test's
// likelihood ratios and Bayes factors are written in. With nx = ny it equals Welch's t. Its P is
// left zero: arena never tests with it.
func Student(x, y Summary) (TTest, error) {
	if x.N < 2 || y.N < 2 {
		return TTest{}, ErrTooFew
	}
	nu := float64(x.N + y.N - 2)
	sp2 := (float64(x.N-1)*x.Var + float64(y.N-1)*y.Var) / nu
	diff := x.Mean - y.Mean
	if sp2 == 0 {
		if diff == 0 {
			return TTest{}, ErrZeroVariance
		}
		return TTest{T: math.Copysign(math.Inf(1), diff), DF: nu}, nil
	}
	return TTest{T: diff / math.Sqrt(sp2*(1/float64(x.N)+1/float64(y.N))), DF: nu}, nil
}

// PValue returns the p-value of a t statistic with df degrees of freedom
// under alt, from gonum's Student's t distribution. The upper tail is
// computed directly (Survival), not as 1 − CDF, so tiny p-values keep their
// precision.
func PValue(t, df float64, alt Alternative) float64 {
	if math.IsNaN(t) {
		return 1
	}
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	switch alt {
	case Greater:
		return dist.Survival(t)
	case Less:
		return dist.CDF(t)
	}
	return min(1, 2*dist.Survival(math.Abs(t)))
}
