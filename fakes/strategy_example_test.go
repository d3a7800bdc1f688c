package fakes_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/fakes"
)

// An A/B test of two recovery strategies on the fake cluster: is retrying
// with backoff better than not retrying, under a 5s LLM brownout on every
// worker? Each run is a fresh cluster seeded by the run, in virtual time;
// the sequential test stops as soon as the answer is significant.
func ExampleStrategyScorer() {
	var brownout []arena.Step
	for _, w := range []string{"worker-1", "worker-2", "worker-3"} {
		brownout = append(brownout, arena.Step{At: 10 * time.Second, Action: arena.Action{
			Type: arena.ActionLLMFailure, TargetID: w, Metadata: map[string]any{"duration": "5s"}}})
	}
	scorer := fakes.NewStrategyScorer(fakes.ScheduleExperiment(30*time.Second, brownout...))

	res, err := arena.NewRegressionTester(nil, scorer).Run(context.Background(), arena.RegressionConfig{
		Baseline:  fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}},
		Candidate: fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}},
		Mode:      arena.ModeSequential,
		Seed:      1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	fmt.Printf("%d of %d pairs won\n", res.Wins, res.Candidate.Runs)
	// Output:
	// better: p=0.012 n=4+4 Δ=+8.4 g=40.89 [20.81, 60.98]
	// 4 of 4 pairs won
}
