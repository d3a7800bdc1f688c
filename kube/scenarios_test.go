package kube_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/kube"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

// The built-in scenarios of kills, agent-level and DAG faults play
// unchanged, in real time, against the reference StatefulSets on the kwok
// plane, whose pods the plane runs as agentd processes, through
// arenatest.Run: it fails the test when a scenario misses its gate (grade,
// MTTR, every fault recovered by the probe, and "consistent": the tasks and
// memory checks read every agent's /state through the pod proxy and pass).
// slow-tools' slow_agent lands as an in-place resize that kwok only
// records: the agentd process is not throttled. At most three play at once:
// on two busy cores, more starve the agents (their tasks time out) and the
// probe, and the runs measure the machine, not the system.
func TestBuiltinScenarios(t *testing.T) {
	slots := make(chan struct{}, 3)
	for _, name := range []string{"leader-failover", "rolling-kills", "dag-surgery", "llm-brownout", "mcp-flap", "memory-corruption", "slow-tools"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			sc, err := scenarios.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			if !sc.Expect.Consistent {
				t.Fatalf("%s: its gate no longer asks for consistency: update this test", name)
			}
			rt := newRuntime(t, kube.WithReferenceAgents(3))
			rep := arenatest.Run(t, sc, arenatest.WithRuntime(rt))
			t.Logf("%s", rep)
			if rep.Virtual {
				t.Error("a Kubernetes run must be in real time")
			}
			if rep.Report.Landed != len(sc.Actions) {
				t.Errorf("%d faults landed, want %d", rep.Report.Landed, len(sc.Actions))
			}
			if r := rep.Report; r.ChecksRun == 0 || r.ChecksPassed != r.ChecksRun || r.ChecksNotApplicable != 0 {
				t.Errorf("checks: %d run, %d passed, %d not applicable; want all run and passed", r.ChecksRun, r.ChecksPassed, r.ChecksNotApplicable)
			}
			if killed := agent(t, rt, "leader-0").Restarts; name == "leader-failover" && killed != 2 {
				t.Errorf("leader-0 restarted %d times, want 2 (killed twice)", killed)
			}
		})
	}
}

// network-split on kwok: no CNI enforces the partitions, so each step
// fails as not landed (ErrNotEnforced), the gate reports it, and no
// NetworkPolicy is left behind.
func TestNetworkSplitOnKwokIsReportedNotLanded(t *testing.T) {
	t.Parallel()
	sc, err := scenarios.Load("network-split")
	if err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, kube.WithReferenceAgents(3))
	rec := &recorder{T: t}
	rep := arenatest.Run(rec, sc, arenatest.WithRuntime(rt))
	if rep == nil {
		t.Fatalf("no report; errors: %v", rec.errs)
	}
	if rep.Report.Landed != 0 {
		t.Errorf("%d partitions counted as landed on kwok, want 0", rep.Report.Landed)
	}
	for _, st := range rep.Steps {
		if st.Status != scenario.StepFailed || !strings.Contains(st.Reason, kube.ErrNotEnforced.Error()) {
			t.Errorf("step %s: %s (%s), want failed: %v", st.Label, st.Status, st.Reason, kube.ErrNotEnforced)
		}
	}
	if rep.OK() || len(rec.errs) == 0 {
		t.Errorf("the gate passed (%v) or arenatest reported nothing (%v): unlanded partitions must fail it", rep.Gate.Verdict, rec.errs)
	}
	assertNoPartition(t, rt)
}

// recorder is a test that keeps arenatest's failures instead of failing.
type recorder struct {
	*testing.T
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
