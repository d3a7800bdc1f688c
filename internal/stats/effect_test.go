package stats

import (
	"errors"
	"math"
	"testing"
)

func TestHedgesG(t *testing.T) {
	x := Summarize([]float64{1, 2, 3, 4, 5}) // mean 3, var 2.5
	y := Summarize([]float64{3, 4, 5, 6, 7}) // mean 5, var 2.5
	e, err := HedgesG(x, y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	// d = −2/√2.5; J(8) = Γ(4)/(√4·Γ(3.5)) = 6/(2 · 15√π/8).
	j := 6 / (2 * 15 * math.Sqrt(math.Pi) / 8)
	g := j * -2 / math.Sqrt(2.5)
	se := math.Sqrt(10.0/25 + g*g/20)
	want := Effect{G: g, Low: g - 1.959963984540054*se, High: g + 1.959963984540054*se, Level: 0.95}
	if math.Abs(e.G-want.G) > 1e-12 || math.Abs(e.Low-want.Low) > 1e-9 || math.Abs(e.High-want.High) > 1e-9 || e.Level != 0.95 {
		t.Errorf("HedgesG = %+v, want %+v", e, want)
	}
	// J tends to 1 and stays finite for large ν (exact form via log-gamma).
	if c := correction(1e6); math.Abs(c-1) > 1e-6 {
		t.Errorf("J(1e6) = %v, want ≈ 1", c)
	}
	if _, err := HedgesG(Summarize([]float64{2, 2}), Summarize([]float64{1, 1}), 0.95); !errors.Is(err, ErrZeroVariance) {
		t.Errorf("constant arms: err = %v, want ErrZeroVariance", err)
	}
}
