package fakes_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/regression"
)

// An A/B test of two recovery strategies on the fake cluster: is retrying
// with backoff better than not retrying, under a 5s LLM brownout on every
// worker? Each run is a fresh cluster seeded by the run, in virtual time;
// the sequential test stops as soon as the answer is significant.
func ExampleStrategy() {
	var brownout []engine.Step
	for _, w := range []string{"worker-1", "worker-2", "worker-3"} {
		brownout = append(brownout, engine.Step{At: 10 * time.Second, Action: fault.Action{
			Type: fault.LLMFailure, TargetID: w, Metadata: map[string]any{"duration": "5s"}}})
	}
	scorer := regression.NewExperimentScorer(regression.ScheduleExperiment(30*time.Second, brownout...))

	res, err := regression.NewTester(nil, scorer).Run(context.Background(), regression.Config{
		Baseline:  fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}},
		Candidate: fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}},
		Mode:      regression.ModeSequential,
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
