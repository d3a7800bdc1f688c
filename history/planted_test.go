package history_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// The check names of the planted-bug runs.
const (
	checkKV    = "kv linearizable"
	checkLost  = "no acknowledged publish lost"
	checkGaps  = "no gap in the stream"
	checkDupes = "no duplicate in the stream"
)

// runSim plays 20 virtual seconds of chaos on the simulated store: the
// leader killed at 3s, n3 cut off from 8s to 10s, the leader killed again
// at 13s, while the workload runs and the four checks watch.
func runSim(t *testing.T, bugs simBugs) *engine.Report {
	t.Helper()
	clk := clock.NewVirtual(time.Time{})
	sim := newReplsim(clk, 7, bugs)
	svc := engine.NewService(fault.NewInjectorFor(sim), nil, nil, engine.WithClock(clk), engine.WithSeed(7),
		engine.WithProbe(sim.Probe),
		engine.WithChecks(
			sim.brought(history.Linearizable(checkKV, sim.kv, history.KVModel(), history.WithReportDir(t.TempDir()))),
			sim.brought(history.NoLostWrites(checkLost, sim.log, sim.Stream)),
			sim.brought(history.NoGaps(checkGaps, sim.log, sim.Stream)),
			sim.brought(history.NoDuplicates(checkDupes, sim.log, sim.Stream))),
		engine.WithObserveOptions(engine.ObserveOptions{SettleTime: time.Second}))
	rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 7, Duration: 20 * time.Second},
		engine.Step{At: 3 * time.Second, Action: fault.Action{Type: fault.KillLeader}},
		engine.Step{At: 8 * time.Second, Action: fault.Action{Type: fault.NetworkPartition, TargetID: "n3", Metadata: map[string]any{"duration": "2s"}}},
		engine.Step{At: 13 * time.Second, Action: fault.Action{Type: fault.KillLeader}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Landed != 3 || rep.Unrecovered != 0 {
		t.Fatalf("%d faults landed, %d unrecovered; want 3 recovered:\n%s", rep.Landed, rep.Unrecovered, rep)
	}
	return rep
}

// failed returns the first failed run of check name.
func failed(rep *engine.Report, name string) *engine.CheckResult {
	for i, c := range rep.Checks {
		if c.Name == name && c.Failed() {
			return &rep.Checks[i]
		}
	}
	return nil
}

func TestPlantedCorrectSystemPasses(t *testing.T) {
	rep := runSim(t, simBugs{})
	if rep.ChecksRun != 4*4 || rep.ChecksPassed != rep.ChecksRun || rep.ChecksUndecided != 0 || rep.ChecksNotApplicable != 0 {
		t.Errorf("the correct store: %d of %d checks passed, %d undecided, %d not applicable; want 16 of 16:\n%s",
			rep.ChecksPassed, rep.ChecksRun, rep.ChecksUndecided, rep.ChecksNotApplicable, rep)
	}
}

// Each planted bug is caught by its check, with the operations at fault
// named.
func TestPlantedBugsCaught(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bugs  simBugs
		check string
		op    string // in the violation's operations
	}{
		{"stale read from a follower", simBugs{staleReads: true}, checkKV, "— no order explains it"},
		{"write acknowledged before durable", simBugs{ackBeforeDurable: true}, checkLost, "append(s, "},
		{"dropped message", simBugs{dropMessages: true}, checkGaps, "— skipped "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := runSim(t, tc.bugs)
			c := failed(rep, tc.check)
			if c == nil || c.Violation == nil {
				t.Fatalf("%s: no violation found by %s:\n%s", tc.name, tc.check, rep)
			}
			var ops []string
			for _, op := range c.Violation.Ops {
				ops = append(ops, op.Op)
			}
			if !strings.Contains(strings.Join(ops, "\n"), tc.op) {
				t.Errorf("%s: %s found %q, operations %q; want one with %q", tc.name, tc.check, c.Violation.Summary, ops, tc.op)
			}
			t.Logf("%s: %s: %s\n%s", tc.name, tc.check, c.Error, strings.Join(ops, "\n"))
		})
	}
}
