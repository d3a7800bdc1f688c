package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Effect is a standardised effect size with a confidence interval.
type Effect struct {
	G, Low, High float64
	Level        float64 // e.g. 0.95
}

// HedgesG returns Hedges' g of x − y, the pooled-SD standardised mean
// difference with the small-sample correction
//
//	d = (x̄ − ȳ)/s_p,  J(ν) = Γ(ν/2) / (√(ν/2)·Γ((ν−1)/2)),  g = J(ν)·d,  ν = nx+ny−2,
//
// and its confidence interval at level from the large-sample variance of
// Hedges & Olkin (1985), eq. 5.15:
//
//	SE² = (nx+ny)/(nx·ny) + g²/(2(nx+ny)),   g ± z·SE.
//
// Both arms constant (s_p = 0) is ErrZeroVariance: no standardised effect
// exists.
func HedgesG(x, y Summary, level float64) (Effect, error) {
	if x.N < 2 || y.N < 2 {
		return Effect{}, ErrTooFew
	}
	nu := float64(x.N + y.N - 2)
	sp2 := (float64(x.N-1)*x.Var + float64(y.N-1)*y.Var) / nu
	if sp2 == 0 {
		return Effect{}, ErrZeroVariance
	}
	d := (x.Mean - y.Mean) / math.Sqrt(sp2)
	g := correction(nu) * d
	nx, ny := float64(x.N), float64(y.N)
	se := math.Sqrt((nx+ny)/(nx*ny) + g*g/(2*(nx+ny)))
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	return Effect{G: g, Low: g - z*se, High: g + z*se, Level: level}, nil
}

// correction is Hedges' exact small-sample factor J(ν), through log-gamma
// so that it stays finite for large ν (where it tends to 1).
func correction(nu float64) float64 {
	if nu <= 1 {
		return math.NaN()
	}
	a, _ := math.Lgamma(nu / 2)
	b, _ := math.Lgamma((nu - 1) / 2)
	return math.Exp(a - b - 0.5*math.Log(nu/2))
}
