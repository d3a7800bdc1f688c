package gotest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/regression"
	"github.com/ares-arena/arena/scenario"
)

// plain go test + testify
func TestLeaderFailover(t *testing.T) {
	rep := arenatest.Run(t, "leader-failover") // built-in scenario, fresh fake cluster
	require.True(t, rep.Score.Grade.AtLeast(engine.GradeB))
}

// A scenario file of your own, against a cluster of five workers. Run fails
// the test when the file's own gate (its expect block) fails; the asserts
// add what this test cares about.
func TestWorkerChurn(t *testing.T) {
	rep := arenatest.Run(t, "testdata/worker-churn.yaml", arenatest.WithCluster(fakes.WithWorkers(5)))
	assert.Equal(t, 3, rep.Passed, "steps that landed")
	assert.Zero(t, rep.Unrecovered, "faults that never recovered")
	assert.LessOrEqual(t, rep.MaxTTR.D(), 3*time.Second, "slowest recovery")
}

// An hour of seeded random chaos, gated on grade B and an MTTR under a
// second: Survive fails the test below either.
func TestSurvivesAnHour(t *testing.T) {
	mttr := clock.Duration(time.Second)
	rep := arenatest.Survive(t, engine.SurvivalConfig{Duration: time.Hour, Seed: 7},
		arenatest.WithGate(scenario.Gate{MinGrade: engine.GradeB, MaxMTTR: &mttr}))
	assert.Positive(t, rep.Landed, "faults landed")
	assert.Zero(t, rep.Unrecovered)
}

// Checkpoints matter: without them, killed workers lose their tasks. The
// A/B test must find the cluster with checkpoints significantly better.
func TestCheckpointsMatter(t *testing.T) {
	res := arenatest.Compare(t, regression.Config{
		Baseline:  fakes.Strategy{Name: "no checkpoints", Options: []fakes.Option{fakes.WithoutCheckpoints()}},
		Candidate: fakes.Strategy{Name: "checkpoints every second", Options: []fakes.Option{fakes.WithCheckpoints(time.Second)}},
		Mode:      regression.ModeSequential,
		MaxRuns:   40,
		Seed:      11,
	})
	assert.Equal(t, 0, res.Losses, "pairs where checkpoints scored lower")
}

// The fake cluster keeps the RuntimeProvider contract; so should yours.
func TestFakeRuntimeConforms(t *testing.T) {
	arenatest.TestRuntime(t, func(t *testing.T) fault.RuntimeProvider {
		return fakes.NewCluster(fakes.WithWorkers(4))
	})
}

// go test -bench reports each run's score as a "score" metric.
func BenchmarkLeaderFailover(b *testing.B) {
	for b.Loop() {
		arenatest.Run(b, "leader-failover", arenatest.WithSeed(7))
	}
}
