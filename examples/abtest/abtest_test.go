package abtest

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/stretchr/testify/assert"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/matchers"
	"github.com/ares-arena/arena/regression"
)

var (
	retryWithBackoff = fakes.Strategy{Name: "retries with backoff", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
	noRetry          = fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
)

// A/B of two recovery strategies, with
// Gomega's global Expect bound to this test.
func TestRetriesAreBetter(t *testing.T) {
	RegisterTestingT(t)
	Expect(retryWithBackoff).To(matchers.SignificantlyBetterThan(noRetry))
}

// The same question through arenatest.Compare, on an experiment of its own:
// a 5-minute survival run of LLM, tool and MCP faults on the workers.
func TestRetriesOnABrownout(t *testing.T) {
	brownout := regression.SurvivalExperiment(engine.SurvivalConfig{
		Duration: 5 * time.Minute,
		Mix:      map[fault.Type]float64{fault.LLMFailure: 2, fault.ToolTimeout: 1, fault.MCPDisconnect: 1},
		Targets:  engine.TargetFilter{Types: []string{fault.TypeWorker}},
	})
	res := arenatest.Compare(t, regression.Config{Baseline: noRetry, Candidate: retryWithBackoff, Mode: regression.ModeSequential, MaxRuns: 40},
		arenatest.WithExperiment(brownout))
	assert.Greater(t, res.Candidate.Mean, res.Baseline.Mean)
}

// A regression guard: checkpointing twice as often must not make things
// worse. NoRegression passes better, no difference and inconclusive; it
// fails only a significant loss.
func TestFrequentCheckpointsAreNoRegression(t *testing.T) {
	frequent := fakes.Strategy{Name: "checkpoints every 500ms", Options: []fakes.Option{fakes.WithCheckpoints(500 * time.Millisecond)}}
	arenatest.Compare(t, regression.Config{Baseline: fakes.Strategy{Name: "defaults"}, Candidate: frequent, Runs: 12, Seed: 3},
		arenatest.NoRegression())
}

// Scores you already have (from production drills, another harness) are
// compared with Welch's t-test.
func TestScoreSamples(t *testing.T) {
	g := NewWithT(t)
	lastRelease := []float64{71, 64, 69, 75, 62, 70, 67, 73, 66, 68}
	thisRelease := []float64{78, 74, 80, 72, 79, 83, 76, 75, 81, 77}
	g.Expect(thisRelease).To(matchers.SignificantlyBetterThan(lastRelease))
	g.Expect(lastRelease).NotTo(matchers.SignificantlyBetterThan(thisRelease))
}

// Strategies of your own, scored by your own scorer: here a retry budget
// scored by a stand-in experiment drawing from the trial's seed.
func TestCustomScorer(t *testing.T) {
	scorer := regression.ScorerFunc(func(input any) (float64, error) {
		tr := input.(regression.Trial)
		budget := tr.Strategy.(int)
		noise := float64(tr.Seed%7) - 3
		return 80 + 2*float64(budget) + noise, nil
	})
	g := NewWithT(t)
	g.Expect(5).To(matchers.SignificantlyBetterThan(1, matchers.WithScorer(scorer), matchers.WithSeed(9), matchers.WithMaxRuns(30)))
}
