package arenatest_test

import (
	"fmt"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/regression"
	"github.com/ares-arena/arena/scenario"
)

// exampleT stands in for the *testing.T of a test in these examples: it
// prints what the test would report as a failure.
type exampleT struct{ name string }

func (exampleT) Logf(string, ...any)               {}
func (exampleT) Cleanup(func())                    {}
func (t exampleT) Name() string                    { return t.name }
func (exampleT) FailNow()                          { panic("FailNow") }
func (exampleT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// A built-in scenario against a fresh fake cluster in virtual time. In a
// test, t is the test's *testing.T.
func ExampleRun() {
	t := exampleT{"TestLeaderFailover"}
	rep := arenatest.Run(t, "leader-failover", arenatest.WithSeed(7))
	fmt.Println(rep.Gate.Verdict, rep.Score.Grade, rep.MaxTTR)
	// Output: passed A+ 1.5s
}

// The message of a failing run: the cluster's self-healing is switched off,
// so the leader stays dead.
func ExampleRun_failure() {
	t := exampleT{"TestLeaderFailover"}
	arenatest.Run(t, "leader-failover", arenatest.WithSeed(7), arenatest.WithCluster(fakes.WithoutHealing()))
	// Output:
	// arena: scenario leader-failover failed its gate: score 42.0, grade F
	//   - actions[1] (kill-successor): expected the fault to land: no eligible target: no running leader
	//   - grade F (42.0) is below the minimum A
	//   - 1 of 1 faults unrecovered: kill_leader on leader-0 at 15s
	// faults: 1 landed, 0 recovered, 1 unrecovered; 1 did not land
	// worst faults:
	//   - kill_leader on leader-0 at 15s: unrecovered
	// seed: 7
	// rerun: go test -run '^TestLeaderFailover$' -arena.seed=7
	//    or: ARENA_SEED=7 go test -run '^TestLeaderFailover$'
}

// Six hours of seeded random chaos in a fraction of a second, gated on
// grade B.
func ExampleSurvive() {
	t := exampleT{"TestSurvivesTheNight"}
	rep := arenatest.Survive(t, engine.SurvivalConfig{Duration: 6 * time.Hour, Seed: 7},
		arenatest.WithGate(scenario.Gate{MinGrade: engine.GradeB}))
	fmt.Println(rep.Score.Grade, rep.Landed, rep.Unrecovered)
	// Output: A+ 2159 0
}

// Is retrying with backoff better than not retrying? Each run plays the
// built-in scenario everything-at-once on a fresh fake cluster; the
// sequential test stops as soon as the answer is significant.
func ExampleCompare() {
	t := exampleT{"TestRetriesAreBetter"}
	res := arenatest.Compare(t, regression.Config{
		Baseline:  fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}},
		Candidate: fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}},
		Mode:      regression.ModeSequential,
		Seed:      1,
	})
	fmt.Println(res)
	// Output: better: p=0.015 n=4+4 Δ=+5.7 g=10.16 [4.99, 15.33]
}
