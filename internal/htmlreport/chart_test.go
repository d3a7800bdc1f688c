package htmlreport

import (
	"slices"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		top  float64
		want []float64
	}{
		{93, []float64{0, 20, 40, 60, 80}},
		{10, []float64{0, 2, 4, 6, 8, 10}},
		{1, []float64{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}},
		{3, []float64{0, 0.5, 1, 1.5, 2, 2.5, 3}},
		{59.5, []float64{0, 10, 20, 30, 40, 50}},
	} {
		if got := niceTicks(c.top); !slices.Equal(got, c.want) {
			t.Errorf("niceTicks(%v) = %v, want %v", c.top, got, c.want)
		}
	}
	if got := niceTicks(1e-9); len(got) < 2 || len(got) > 11 {
		t.Errorf("niceTicks(1e-9) = %v, want a few ticks", got)
	}
}

func TestTickLabel(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 20: "20", 0.6000000000000001: "0.6", 2.5: "2.5"} {
		if got := tickLabel(v); got != want {
			t.Errorf("tickLabel(%v) = %q, want %q", v, got, want)
		}
	}
}
