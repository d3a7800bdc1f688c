package raftsim

import (
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/sim"
)

// scenarios are arena's built-in scenarios in raft's shape
// (testdata/*.yaml): the built-ins' faults on raft's followers and leader
// (the built-ins name the fake cluster's workers and orchestrator), with
// gates for raft's own timeouts.
var scenarios = []string{"testdata/leader-failover.yaml", "testdata/network-split.yaml", "testdata/rolling-kills.yaml",
	"testdata/slow-network.yaml", "testdata/flaky-network.yaml"}

// TestScenarios plays each scenario against 3 and 5 raft nodes in
// simulated time, with the workload's probe and checks, and prints arena's
// time to recover beside the workload's own outage for each fault.
func TestScenarios(t *testing.T) {
	for _, nodes := range []int{3, 5} {
		for _, sc := range scenarios {
			name := strings.TrimSuffix(strings.TrimPrefix(sc, "testdata/"), ".yaml")
			t.Run(fmt.Sprintf("%s/%d-nodes", name, nodes), func(t *testing.T) {
				arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
					c, wl := start(t, w, nodes)
					rep := arenatest.Run(t, sc, arenatest.WithProbe(wl.Probe), arenatest.WithChecks(append(wl.Checks(), wl.HistoryChecks()...)...))
					wl.Stop()
					checkChecks(t, rep.Report)
					t.Logf("arena vs the workload, per fault:\n%s", compare(rep.Report, wl))
					ops, ok := wl.Counts()
					t.Logf("%d operations, %d acknowledged; leader at the end %s", ops, ok, c.Leader())
				}, arenatest.WithSeed(7))
			})
		}
	}
}

// checkChecks fails t for a check that failed or could not decide, and
// for one whose last run (at the end) did not pass: one that could not
// look (no leader to read from, while a partition held it) may do so
// only in the middle of the run.
func checkChecks(t *testing.T, rep *engine.Report) {
	t.Helper()
	last := map[string]engine.CheckResult{}
	for _, c := range rep.Checks {
		if !c.Passed && !c.NotApplicable {
			t.Errorf("check %s at %s failed (undecided: %v): %s", c.Name, c.At, c.Undecided, c.Error)
		}
		last[c.Name] = c
	}
	for name, c := range last {
		if !c.Passed {
			t.Errorf("check %s: its last run, at %s, did not pass: %s", name, c.At, c.Error)
		}
	}
	if len(last) == 0 {
		t.Error("no check ran")
	}
}

// start brings up the cluster and the workload on w, with the cluster's
// role resolver on the world.
func start(t *testing.T, w *sim.World, nodes int) (*Cluster, *Workload) {
	t.Helper()
	c, err := NewCluster(w, Config{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	w.SetRoles(c.Roles)
	wl, err := StartWorkload(c, WorkloadConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return c, wl
}

// compare lists each fault with arena's TTR and the workload's outage.
func compare(rep *engine.Report, wl *Workload) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "at\tfault\ttarget\tarena TTR\tworkload outage")
	for i, f := range rep.Faults {
		start := rep.Start.Add(f.At.D())
		end := rep.End
		if i+1 < len(rep.Faults) {
			end = rep.Start.Add(rep.Faults[i+1].At.D())
		}
		ttr := "unrecovered"
		if f.Recovered {
			ttr = f.TTR.D().Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.At, f.Action.Type, f.Action.TargetID, ttr, wl.Outage(start, end).Round(time.Millisecond))
	}
	tw.Flush()
	return b.String()
}

// TestSweep plays leader-failover on seeds 1 to 5 (-arena.seeds=N and
// -arena.shard=i/n for more, spread over machines): each seed a fresh
// cluster in simulated time, each failure with its replay command, a
// summary at the end.
func TestSweep(t *testing.T) {
	arenatest.Sweep(t, 5, func(t *testing.T, seed uint64) *engine.Report {
		var rep *scenario.Report
		arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
			_, wl := start(t, w, 3)
			defer wl.Stop()
			rep = arenatest.Run(t, "testdata/leader-failover.yaml", arenatest.WithProbe(wl.Probe), arenatest.WithChecks(wl.Checks()...))
		}, arenatest.WithSeed(seed))
		if rep == nil {
			return nil
		}
		return rep.Report
	})
}
