package regression_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/ares-arena/arena/regression"
)

// Scores collected already, compared with Welch's t-test (one-sided: is the
// candidate better?).
func ExampleCompareScores() {
	baseline := []float64{71, 64, 69, 75, 62, 70, 67, 73, 66, 68}
	candidate := []float64{78, 74, 80, 72, 79, 83, 76, 75, 81, 77}
	res, err := regression.CompareScores(regression.Config{}, baseline, candidate)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	fmt.Printf("wins %d, ties %d, losses %d\n", res.Wins, res.Ties, res.Losses)
	// Output:
	// better: p=1.9e-05 n=10+10 Δ=+9 g=2.34 [1.20, 3.47]
	// wins 9, ties 0, losses 1
}

// A sequential A/B test: the scorer runs one seeded experiment per Trial
// (here a stand-in drawing a score from the trial's seed), and the test
// stops as soon as the candidate is significantly better.
func ExampleTester() {
	experiment := regression.ScorerFunc(func(input any) (float64, error) {
		tr := input.(regression.Trial)
		rng := rand.New(rand.NewPCG(tr.Seed, uint64(len(tr.Arm))))
		mean := tr.Strategy.(float64)
		return mean + 10*rng.NormFloat64(), nil
	})
	rt := regression.NewTester(nil, experiment)
	res, err := rt.Run(context.Background(), regression.Config{
		Baseline: 70.0, Candidate: 78.0, Mode: regression.ModeSequential, Seed: 7,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	// Output:
	// better: p=0.045 n=23+23 Δ=+9 g=0.83 [0.23, 1.43]
}

// The runs per arm a fixed two-sided test needs at α = 0.05 for 80% and
// 90% power.
func ExampleSampleSize() {
	for _, d := range []float64{0.2, 0.5, 0.8} {
		n80, _ := regression.SampleSize(d, 0.05, 0.8)
		n90, _ := regression.SampleSize(d, 0.05, 0.9)
		fmt.Printf("d=%.1f: %d / %d\n", d, n80, n90)
	}
	// Output:
	// d=0.2: 394 / 527
	// d=0.5: 64 / 86
	// d=0.8: 26 / 34
}
