package matchers_test

import (
	"testing"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/matchers"
)

func TestRecoverWithin(t *testing.T) {
	good, bad := builtin(t, "leader-failover", 7), builtin(t, "everything-at-once", 3, fakes.WithoutRetries())
	check(t, matchers.RecoverWithin(2*time.Second), good, outcome{match: true,
		positive: "Expected\n    <string>: scenario leader-failover (seed 7): 0 of 2 faults unrecovered, max TTR 1.5s\nto recover within\n    <string>: 2s",
		negated:  "Expected\n    <string>: scenario leader-failover (seed 7): 0 of 2 faults unrecovered, max TTR 1.5s\nnot to recover within\n    <string>: 2s",
	})
	slow := "Expected\n    <string>: scenario everything-at-once (seed 3): 0 of 13 faults unrecovered, max TTR 7s\n" +
		"    - tool_timeout on leader-0 at 39s: recovered in 7s\n" +
		"    - llm_failure on worker-3 at 47s: recovered in 6.4s\n" +
		"    - mcp_disconnect on leader-0 at 41s: recovered in 5s\n"
	check(t, matchers.RecoverWithin(time.Second), bad, outcome{
		positive: slow + "to recover within\n    <string>: 1s",
		negated:  slow + "not to recover within\n    <string>: 1s",
	})
	unhealed := builtin(t, "leader-failover", 7, fakes.WithoutHealing())
	lost := "Expected\n    <string>: scenario leader-failover (seed 7): 1 of 1 faults unrecovered, max TTR 0s\n" +
		"    - kill_leader on leader-0 at 15s: unrecovered\n"
	check(t, matchers.RecoverWithin(time.Minute), unhealed, outcome{
		positive: lost + "to recover within\n    <string>: 1m0s",
		negated:  lost + "not to recover within\n    <string>: 1m0s",
	})
	check(t, matchers.RecoverWithin(time.Second), &engine.Report{Seed: 1}, outcome{
		err: "RecoverWithin: run (seed 1) did not measure recovery (no probe, or no fault landed)"})
	check(t, matchers.RecoverWithin(time.Second), "fast", outcome{
		err: "RecoverWithin matcher expects a *scenario.Report, *engine.SurvivalReport or *engine.Report.  Got:\n    <string>: fast"})
}
