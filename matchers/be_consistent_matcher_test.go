package matchers_test

import (
	"testing"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/matchers"
)

func TestBeConsistent(t *testing.T) {
	good, bad := builtin(t, "everything-at-once", 3), builtin(t, "everything-at-once", 3, fakes.WithoutCheckpoints())
	check(t, matchers.BeConsistent(), good, outcome{match: true,
		positive: "Expected\n    <string>: scenario everything-at-once (seed 3): 42 of 42 checks passed\nto be consistent",
		negated:  "Expected\n    <string>: scenario everything-at-once (seed 3): 42 of 42 checks passed\nnot to be consistent",
	})
	lost := "Expected\n    <string>: scenario everything-at-once (seed 3): 28 of 42 checks passed\n" +
		"    - memory at 23s: memory does not match its checkpoint checksum: worker-3\n" +
		"    - memory at 31s: memory does not match its checkpoint checksum: worker-3\n" +
		"    - memory at 33s: memory does not match its checkpoint checksum: worker-3\n"
	check(t, matchers.BeConsistent(), bad, outcome{
		positive: lost + "to be consistent",
		negated:  lost + "not to be consistent",
	})
	check(t, matchers.BeConsistent(), &engine.Report{Seed: 4}, outcome{err: "BeConsistent: run (seed 4) ran no consistency check"})
	check(t, matchers.BeConsistent(), []string{"tasks"}, outcome{
		err: "BeConsistent matcher expects a *scenario.Report, *engine.SurvivalReport or *engine.Report.  Got:\n    <[]string | len:1, cap:1>: [\"tasks\"]"})
}
