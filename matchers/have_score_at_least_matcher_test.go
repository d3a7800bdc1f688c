package matchers_test

import (
	"testing"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/matchers"
	"github.com/ares-arena/arena/scenario"
)

func TestHaveScoreAtLeast(t *testing.T) {
	good, bad := builtin(t, "leader-failover", 7), builtin(t, "leader-failover", 7, fakes.WithoutHealing())
	check(t, matchers.HaveScoreAtLeast(90), good, outcome{match: true,
		positive: "Expected\n    <string>: scenario leader-failover (seed 7): grade A+, score 97.6\nto have score at least\n    <float64>: 90",
		negated:  "Expected\n    <string>: scenario leader-failover (seed 7): grade A+, score 97.6\nnot to have score at least\n    <float64>: 90",
	})
	check(t, matchers.HaveScoreAtLeast(42.5), bad, outcome{
		positive: "Expected\n    <string>: scenario leader-failover (seed 7): grade F, score 42.0\nto have score at least\n    <float64>: 42.5",
		negated:  "Expected\n    <string>: scenario leader-failover (seed 7): grade F, score 42.0\nnot to have score at least\n    <float64>: 42.5",
	})
	check(t, matchers.HaveScoreAtLeast(90), 97.6, outcome{
		err: "HaveScoreAtLeast matcher expects a *scenario.Report, *engine.SurvivalReport or *engine.Report.  Got:\n    <float64>: 97.6"})
	check(t, matchers.HaveScoreAtLeast(90), engine.Report{Seed: 2}, outcome{
		err: "HaveScoreAtLeast: run (seed 2) has no score: nothing was measured"})
	check(t, matchers.HaveScoreAtLeast(90), &scenario.Report{Scenario: "x"}, outcome{
		err: "HaveScoreAtLeast matcher expects a report.  Got a nil *scenario.Report (or one without its run's report)"})
}
