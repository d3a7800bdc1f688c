package matchers_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/matchers"
	"github.com/ares-arena/arena/regression"
)

var (
	retries   = fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
	noRetries = fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
)

func TestSignificantlyBetterThanScores(t *testing.T) {
	baseline := []float64{71, 64, 69, 75, 62, 70, 67, 73, 66, 68}
	candidate := []float64{78, 74, 80, 72, 79, 83, 76, 75, 81, 77}
	check(t, matchers.SignificantlyBetterThan(baseline), candidate, outcome{match: true,
		positive: "Expected\n    <string>: scores: mean 77.5, sd 3.4 over 10 runs\nto be significantly better than\n    <string>: scores: mean 68.5, sd 4.0 over 10 runs\n" +
			"but the A/B test says better: p=1.9e-05 n=10+10 Δ=+9 g=2.34 [1.20, 3.47]",
		negated: "Expected\n    <string>: scores: mean 77.5, sd 3.4 over 10 runs\nnot to be significantly better than\n    <string>: scores: mean 68.5, sd 4.0 over 10 runs\n" +
			"but the A/B test says better: p=1.9e-05 n=10+10 Δ=+9 g=2.34 [1.20, 3.47]",
	})
	check(t, matchers.SignificantlyBetterThan(candidate), baseline, outcome{
		positive: "Expected\n    <string>: scores: mean 68.5, sd 4.0 over 10 runs\nto be significantly better than\n    <string>: scores: mean 77.5, sd 3.4 over 10 runs\n" +
			"but the A/B test says worse: p=1.9e-05 n=10+10 Δ=-9 g=-2.34 [-3.47, -1.20]",
		negated: "Expected\n    <string>: scores: mean 68.5, sd 4.0 over 10 runs\nnot to be significantly better than\n    <string>: scores: mean 77.5, sd 3.4 over 10 runs\n" +
			"but the A/B test says worse: p=1.9e-05 n=10+10 Δ=-9 g=-2.34 [-3.47, -1.20]",
	})
	check(t, matchers.SignificantlyBetterThan([]float64{1}), []float64{2}, outcome{
		err: "SignificantlyBetterThan: regression: baseline: need at least 2 scores, got 1"})
}

func TestSignificantlyBetterThanStrategies(t *testing.T) {
	var res *regression.Result
	check(t, matchers.SignificantlyBetterThan(noRetries, matchers.WithSeed(1), matchers.SaveResult(&res)), retries, outcome{match: true,
		positive: "Expected\n    <string>: \"retries\": mean 97.9, sd 0.1 over 4 runs\nto be significantly better than\n    <string>: \"no retries\": mean 92.3, sd 0.7 over 4 runs\n" +
			"but the A/B test says better: p=0.015 n=4+4 Δ=+5.7 g=10.16 [4.99, 15.33] (seed 1: replay it with -arena.seed=1)",
		negated: "Expected\n    <string>: \"retries\": mean 97.9, sd 0.1 over 4 runs\nnot to be significantly better than\n    <string>: \"no retries\": mean 92.3, sd 0.7 over 4 runs\n" +
			"but the A/B test says better: p=0.015 n=4+4 Δ=+5.7 g=10.16 [4.99, 15.33] (seed 1: replay it with -arena.seed=1)",
	})
	if res == nil || res.Verdict != regression.VerdictBetter || res.Seed != 1 {
		t.Errorf("SaveResult: %v", res)
	}
	// Identical strategies run to the cap: inconclusive is not better.
	same := "Expected\n    <string>: \"retries\": mean 97.9, sd 0.1 over 8 runs\n%s\n    <string>: \"retries\": mean 97.9, sd 0.1 over 8 runs\n" +
		"but the A/B test says inconclusive: p=1 n=8+8 Δ=+0 g=0.00 [-0.98, 0.98] (seed 2: replay it with -arena.seed=2)"
	check(t, matchers.SignificantlyBetterThan(&retries, matchers.WithSeed(2), matchers.WithMaxRuns(8), matchers.WithAlpha(0.01)), retries, outcome{
		positive: sprintf(same, "to be significantly better than"),
		negated:  sprintf(same, "not to be significantly better than"),
	})
	// Any strategies, with a scorer.
	scorer := regression.ScorerFunc(func(input any) (float64, error) {
		tr := input.(regression.Trial)
		return float64(tr.Strategy.(int)) + rand.New(rand.NewPCG(tr.Seed, 0)).NormFloat64(), nil
	})
	check(t, matchers.SignificantlyBetterThan(70, matchers.WithScorer(scorer), matchers.WithSeed(3)), 75, outcome{match: true,
		positive: "Expected\n    <string>: 75: mean 75.4, sd 1.0 over 4 runs\nto be significantly better than\n    <string>: 70: mean 70.4, sd 1.0 over 4 runs\n" +
			"but the A/B test says better: p=0.039 n=4+4 Δ=+5 g=4.25 [1.75, 6.75] (seed 3: replay it with -arena.seed=3)",
		negated: "Expected\n    <string>: 75: mean 75.4, sd 1.0 over 4 runs\nnot to be significantly better than\n    <string>: 70: mean 70.4, sd 1.0 over 4 runs\n" +
			"but the A/B test says better: p=0.039 n=4+4 Δ=+5 g=4.25 [1.75, 6.75] (seed 3: replay it with -arena.seed=3)",
	})
	// A custom experiment.
	exp := regression.SurvivalExperiment(engine.SurvivalConfig{Duration: 2 * time.Minute, Mix: map[fault.Type]float64{fault.LLMFailure: 1}})
	if ok, err := matchers.SignificantlyBetterThan(noRetries, matchers.WithExperiment(exp), matchers.WithSeed(4)).Match(retries); !ok || err != nil {
		t.Errorf("retries on an LLM brownout survival run: %v, %v; want better", ok, err)
	}
}

func TestSignificantlyBetterThanErrors(t *testing.T) {
	check(t, matchers.SignificantlyBetterThan([]float64{1, 2}), retries, outcome{
		err: "SignificantlyBetterThan matcher compares scores with scores or strategies with strategies.  Got:\n    <fakes.Strategy>\nand baseline\n    <[]float64 | len:2, cap:2>: [1, 2]"})
	check(t, matchers.SignificantlyBetterThan(3), 4, outcome{
		err: "SignificantlyBetterThan matcher expects []float64 scores or regression.System values such as fakes.Strategy (strategies of another kind need WithScorer).  Got:\n    <int>: 4"})
	check(t, matchers.SignificantlyBetterThan((*fakes.Strategy)(nil)), retries, outcome{
		err: "SignificantlyBetterThan matcher expects []float64 scores or regression.System values such as fakes.Strategy (strategies of another kind need WithScorer).  Got:\n    <*fakes.Strategy>"})
	check(t, matchers.SignificantlyBetterThan(noRetries, matchers.WithAlpha(0.7)), retries, outcome{
		err: "SignificantlyBetterThan: regression: alpha: want a level in (0, 0.5), got 0.7"})
	t.Setenv("ARENA_SEED", "x")
	check(t, matchers.SignificantlyBetterThan(noRetries), retries, outcome{
		err: `SignificantlyBetterThan: ARENA_SEED: "x" is not a seed (want a non-negative integer)`})
	t.Setenv("ARENA_SEED", "1")
	var res *regression.Result
	if ok, err := matchers.SignificantlyBetterThan(noRetries, matchers.WithSeed(99), matchers.SaveResult(&res)).Match(retries); !ok || err != nil || res.Seed != 1 {
		t.Errorf("ARENA_SEED=1 over WithSeed(99): %v, %v, seed %d", ok, err, res.Seed)
	}
}
