package matchers_test

import (
	"testing"

	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/matchers"
)

func TestMeetExpectations(t *testing.T) {
	good, bad := builtin(t, "leader-failover", 7), builtin(t, "leader-failover", 7, fakes.WithoutHealing())
	check(t, matchers.MeetExpectations(), good, outcome{match: true,
		positive: "Expected\n    <string>: scenario leader-failover (seed 7): gate passed, 2 of 2 steps passed\nto meet its expectations",
		negated:  "Expected\n    <string>: scenario leader-failover (seed 7): gate passed, 2 of 2 steps passed\nnot to meet its expectations",
	})
	failed := "Expected\n    <string>: scenario leader-failover (seed 7): gate failed, 1 of 2 steps passed\n" +
		"    - actions[1] (kill-successor): expected the fault to land: no eligible target: no running leader\n" +
		"    - grade F (42.0) is below the minimum A\n" +
		"    - 1 of 1 faults unrecovered: kill_leader on leader-0 at 15s\n"
	check(t, matchers.MeetExpectations(), bad, outcome{
		positive: failed + "to meet its expectations",
		negated:  failed + "not to meet its expectations",
	})
	check(t, matchers.MeetExpectations(), survival(t, 1), outcome{
		err: "MeetExpectations matcher expects a *scenario.Report.  Got:\n    <*engine.SurvivalReport>"})
	check(t, matchers.MeetExpectations(), nil, outcome{
		err: "MeetExpectations matcher expects a *scenario.Report.  Got:\n    <nil>: nil"})
}
