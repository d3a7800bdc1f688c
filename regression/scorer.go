package regression

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ares-arena/arena/engine"
)

// Scorer scores one run of a strategy: higher is better. A Tester
// calls it once per run with a Trial as input.
type Scorer interface {
	Score(input any) (float64, error)
}

// ContextScorer is a Scorer that can be cancelled: a Tester calls
// ScoreContext instead of Score, with a context that ends when the test is
// cancelled or has its answer, so a run in flight can stop early.
type ContextScorer interface {
	Scorer
	ScoreContext(ctx context.Context, input any) (float64, error)
}

// ScorerFunc adapts a function to a Scorer.
type ScorerFunc func(input any) (float64, error)

// Score calls f(input).
func (f ScorerFunc) Score(input any) (float64, error) { return f(input) }

// ContextScorerFunc adapts a function to a ContextScorer.
type ContextScorerFunc func(ctx context.Context, input any) (float64, error)

// Score calls f with context.Background().
func (f ContextScorerFunc) Score(input any) (float64, error) { return f(context.Background(), input) }

// ScoreContext calls f(ctx, input).
func (f ContextScorerFunc) ScoreContext(ctx context.Context, input any) (float64, error) {
	return f(ctx, input)
}

// Arm is one side of an A/B test.
type Arm string

// The two arms. The baseline is what runs today; the candidate is the
// strategy that claims to be better.
const (
	ArmBaseline  Arm = "baseline"
	ArmCandidate Arm = "candidate"
)

// Trial is the input a Tester gives its Scorer for one run.
//
// Runs are paired: the i-th run of both arms has the same Index and the same
// Seed, so a scorer that draws every random choice of its run from Seed (a
// fake cluster's workload, the run's target selectors) confronts both
// strategies with the same case, and the only difference between the arms
// is the strategy. Seeds are non-zero and below 2⁶³.
type Trial struct {
	Arm      Arm    // which side this run is on
	Strategy any    // Config.Baseline or .Candidate, as given
	Index    int    // 0-based run number within the arm
	Seed     uint64 // the seed of this run; the same for both arms at one Index
	// Service is the tester's service (nil if it has none), for scorers
	// that run on one shared system. The tester holds it for the whole
	// test and admits only runs started with the context it hands a
	// ContextScorer: such a scorer must be a ContextScorer and pass that
	// context on (scenario.Run(ctx, tr.Service, sc)); a run started
	// with another context gets ErrRunActive. Runs must not overlap either:
	// set Config.Parallelism to 1.
	Service *engine.Service
}

// EnsembleScorer scores with several scorers and returns their weighted
// mean, Σ wᵢ·sᵢ / Σ wᵢ. Scores are not clamped or rescaled: 0–100 scores
// stay 0–100. A scorer with weight 0 is not called. It passes its context to
// the members that are ContextScorers.
type EnsembleScorer struct {
	scorers []Scorer
	weights []float64 // normalised: they sum to 1
}

var _ ContextScorer = (*EnsembleScorer)(nil)

// NewEnsembleScorer returns the weighted mean of scorers. weights must have
// one finite, non-negative weight per scorer, not all zero; nil weights
// weigh every scorer equally. Only the ratios of the weights count: they
// are normalised here (divided by the largest, then by their sum), so huge
// or tiny weights neither overflow nor underflow. The error names the
// offending index.
func NewEnsembleScorer(scorers []Scorer, weights []float64) (*EnsembleScorer, error) {
	if len(scorers) == 0 {
		return nil, errors.New("ensemble: no scorers")
	}
	if weights == nil {
		weights = make([]float64, len(scorers))
		for i := range weights {
			weights[i] = 1
		}
	}
	if len(weights) != len(scorers) {
		return nil, fmt.Errorf("ensemble: %d scorers but %d weights", len(scorers), len(weights))
	}
	e := &EnsembleScorer{scorers: append([]Scorer(nil), scorers...), weights: make([]float64, len(weights))}
	largest := 0.0
	for i, s := range scorers {
		if s == nil {
			return nil, fmt.Errorf("ensemble: scorers[%d]: nil scorer", i)
		}
		w := weights[i]
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return nil, fmt.Errorf("ensemble: weights[%d]: want a finite non-negative weight, got %v", i, w)
		}
		largest = max(largest, w)
	}
	if largest == 0 {
		return nil, errors.New("ensemble: weights are all zero")
	}
	total := 0.0
	for i, w := range weights {
		e.weights[i] = w / largest // in [0, 1]: the sum cannot overflow
		total += e.weights[i]
	}
	for i := range e.weights {
		e.weights[i] /= total
	}
	return e, nil
}

// Score returns the weighted mean of the members' scores.
func (e *EnsembleScorer) Score(input any) (float64, error) {
	return e.ScoreContext(context.Background(), input)
}

// ScoreContext returns the weighted mean of the members' scores. The first
// member error is returned, naming the member.
func (e *EnsembleScorer) ScoreContext(ctx context.Context, input any) (float64, error) {
	var sum float64
	for i, s := range e.scorers {
		w := e.weights[i]
		if w == 0 {
			continue
		}
		v, err := scoreWith(ctx, s, input)
		if err != nil {
			return 0, fmt.Errorf("ensemble: scorers[%d]: %w", i, err)
		}
		sum += w * v
	}
	return sum, nil
}

// scoreWith calls ScoreContext when s has it, Score otherwise.
func scoreWith(ctx context.Context, s Scorer, input any) (float64, error) {
	if cs, ok := s.(ContextScorer); ok {
		return cs.ScoreContext(ctx, input)
	}
	return s.Score(input)
}
