package regression_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ares-arena/arena/regression"
)

func constScorer(v float64) regression.Scorer {
	return regression.ScorerFunc(func(any) (float64, error) { return v, nil })
}

func TestEnsembleScorerWeightedMean(t *testing.T) {
	e, err := regression.NewEnsembleScorer([]regression.Scorer{constScorer(90), constScorer(60), constScorer(100)}, []float64{1, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	// (1·90 + 2·60) / 3 = 70: 0–100 scores stay 0–100, nothing clamped to [0, 1].
	if got, err := e.Score(nil); got != 70 || err != nil {
		t.Errorf("Score = %v, %v; want 70", got, err)
	}
	eq, _ := regression.NewEnsembleScorer([]regression.Scorer{constScorer(250), constScorer(-50)}, nil)
	if got, _ := eq.Score(nil); got != 100 {
		t.Errorf("equal weights: Score = %v, want 100 (not clamped)", got)
	}
}

func TestEnsembleScorerValidation(t *testing.T) {
	two := []regression.Scorer{constScorer(1), constScorer(2)}
	cases := []struct {
		name    string
		scorers []regression.Scorer
		weights []float64
		want    string
	}{
		{"no scorers", nil, nil, "ensemble: no scorers"},
		{"lengths differ", two, []float64{1}, "ensemble: 2 scorers but 1 weights"},
		{"negative", two, []float64{1, -1}, "ensemble: weights[1]: want a finite non-negative weight, got -1"},
		{"NaN", two, []float64{math.NaN(), 1}, "ensemble: weights[0]: want a finite non-negative weight, got NaN"},
		{"Inf", two, []float64{1, math.Inf(1)}, "ensemble: weights[1]: want a finite non-negative weight, got +Inf"},
		{"all zero", two, []float64{0, 0}, "ensemble: weights are all zero"},
		{"nil scorer", []regression.Scorer{constScorer(1), nil}, []float64{1, 1}, "ensemble: scorers[1]: nil scorer"},
	}
	for _, tc := range cases {
		_, err := regression.NewEnsembleScorer(tc.scorers, tc.weights)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: NewEnsembleScorer error = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestEnsembleScorerErrorsAndContext(t *testing.T) {
	boom := errors.New("boom")
	type key struct{}
	var sawCtx bool
	ctxScorer := regression.ContextScorerFunc(func(ctx context.Context, _ any) (float64, error) {
		sawCtx = ctx.Value(key{}) == "v"
		return 10, nil
	})
	failing := regression.ScorerFunc(func(any) (float64, error) { return 0, boom })
	e, _ := regression.NewEnsembleScorer([]regression.Scorer{ctxScorer, failing}, nil)
	_, err := e.ScoreContext(context.WithValue(context.Background(), key{}, "v"), nil)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "scorers[1]") || !sawCtx {
		t.Errorf("error = %v (want boom naming scorers[1]); context passed: %v", err, sawCtx)
	}
	// A scorer with weight 0 is never called.
	e, _ = regression.NewEnsembleScorer([]regression.Scorer{ctxScorer, failing}, []float64{1, 0})
	if got, err := e.Score(nil); got != 10 || err != nil {
		t.Errorf("zero-weight failing member: Score = %v, %v; want 10, nil", got, err)
	}
}

func TestScorerFuncAdapters(t *testing.T) {
	var got any
	f := regression.ScorerFunc(func(in any) (float64, error) { got = in; return 1, nil })
	if v, _ := f.Score("x"); v != 1 || got != "x" {
		t.Errorf("ScorerFunc: %v, input %v", v, got)
	}
	cf := regression.ContextScorerFunc(func(ctx context.Context, in any) (float64, error) {
		if ctx == nil {
			return 0, errors.New("nil context")
		}
		return 2, nil
	})
	if v, err := cf.Score(nil); v != 2 || err != nil {
		t.Errorf("ContextScorerFunc.Score = %v, %v", v, err)
	}
}

// Issue 14 (8c): only the ratios of the weights count; huge and tiny ones
// give the same finite mean as small ones.
func TestEnsembleScorerWeightsAtAnyScale(t *testing.T) {
	scorers := []regression.Scorer{constScorer(90), constScorer(60), constScorer(70)}
	for _, w := range [][]float64{
		{1, 1, 3},
		{1e307, 1e307, 3e307},
		{math.MaxFloat64 / 3, math.MaxFloat64 / 3, math.MaxFloat64},
		{1e-310, 1e-310, 3e-310},
	} {
		e, err := regression.NewEnsembleScorer(scorers, w)
		if err != nil {
			t.Fatalf("NewEnsembleScorer(weights %v): %v", w, err)
		}
		got, err := e.Score(nil)
		if err != nil || math.Abs(got-72) > 1e-9 {
			t.Errorf("weights %v: Score = %v, %v; want 72", w, got, err)
		}
	}
}
