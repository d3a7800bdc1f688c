package raftsim

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/sim"
)

var (
	reproRuns = flag.Int("raftsim.repro", 3, "runs of each scenario and mode in TestReproducibility (the figures in the README: 10)")
	explore   = flag.Int("raftsim.explore", 8, "seeds TestExploration plays (the figure in the README: 100)")
)

// TestReproducibility plays each scenario several times with one seed, in
// two modes: unseeded (the clients draw from math/rand's global source and
// raft its election timeouts from an unseeded one, as a system that takes
// no seed does) and seeded (the world's seed reaches both). It checks
// what the replay command promises in both, the same schedule (the same
// fault types at the same instants), and logs what else held: how many
// runs gave byte-identical reports (wall time aside), and the spread of
// the score.
//
// In native simulated time the runs share one process, and goroutine
// order under the Go scheduler is what no seed fixes. In deterministic
// mode (arena-wasm) each run is an instance of its own, and the test
// asserts what that mode promises: every report of a scenario and mode
// byte-identical.
func TestReproducibility(t *testing.T) {
	var table strings.Builder
	fmt.Fprintf(&table, "%-16s %-9s %s\n", "scenario", "mode", "identical reports, scores")
	for _, path := range scenarios {
		sc, err := scenario.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, seeded := range []bool{false, true} {
			mode := map[bool]string{false: "unseeded", true: "seeded"}[seeded]
			t.Run(sc.Name+"-"+mode, func(t *testing.T) {
				var digests, schedules []string
				var scores []float64
				for _, b := range arenatest.Replays(t, slices.Repeat([]uint64{7}, *reproRuns), func(t *testing.T, seed uint64) []byte {
					return quietReport(t, sc, seed, seeded)
				}) {
					var rep scenario.Report
					if err := json.Unmarshal(b, &rep); err != nil {
						t.Fatalf("a run's report: %v", err)
					}
					schedules = append(schedules, schedule(&rep))
					digests = append(digests, fmt.Sprintf("%x", sha256.Sum256(b)))
					scores = append(scores, rep.Score.Total)
				}
				for i, s := range schedules {
					if s != schedules[0] {
						t.Errorf("%s %s: run %d played another schedule:\n%s\nthan run 0:\n%s", sc.Name, mode, i, s, schedules[0])
					}
				}
				same := mostCommon(digests)
				if deterministicMode && same != len(digests) {
					t.Errorf("%s %s: %d of %d reports identical in deterministic mode, want all", sc.Name, mode, same, len(digests))
				}
				fmt.Fprintf(&table, "%-16s %-9s %d/%d identical, score %s\n", sc.Name, mode, same, len(digests), spread(scores))
			})
		}
	}
	t.Logf("same seed (7), %d runs each (%s):\n%s", *reproRuns, clockOfRuns(), table.String())
}

// TestExploration plays leader-failover on seeds 1 to -raftsim.explore,
// seeded, and logs how many distinct reports and scores they give: a
// deterministic run is a function of its seed, not one interleaving
// frozen for all seeds. It asserts more than one.
func TestExploration(t *testing.T) {
	sc, err := scenario.LoadFile("testdata/leader-failover.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]uint64, *explore)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	digests, scores, schedules := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, b := range arenatest.Replays(t, seeds, func(t *testing.T, seed uint64) []byte {
		return quietReport(t, sc, seed, true)
	}) {
		var rep scenario.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("a run's report: %v", err)
		}
		digests[fmt.Sprintf("%x", sha256.Sum256(b))] = true
		scores[fmt.Sprintf("%.1f", rep.Score.Total)] = true
		schedules[schedule(&rep)] = true
	}
	if len(seeds) > 1 && len(digests) < 2 {
		t.Errorf("%d seeds gave %d distinct report: every seed played one execution", len(seeds), len(digests))
	}
	t.Logf("%d seeds (%s): %d distinct reports, %d distinct scores, %d distinct schedules", len(seeds), clockOfRuns(), len(digests), len(scores), len(schedules))
}

// quietReport is playQuiet's report as JSON, wall time aside.
func quietReport(t *testing.T, sc *scenario.Scenario, seed uint64, seeded bool) []byte {
	rep := playQuiet(t, sc, seed, seeded)
	rep.Report.WallTime = 0
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// deterministicMode: the test binary runs under arena-wasm.
var deterministicMode = arenatest.Deterministic()

func clockOfRuns() string {
	if deterministicMode {
		return "deterministic, an instance per run"
	}
	return "simulated, one process"
}

// playQuiet plays sc against a fresh 3-node cluster in simulated time with
// arena's own calls, whose failed gate is a value, not a failed test.
func playQuiet(t *testing.T, sc *scenario.Scenario, seed uint64, seeded bool) *scenario.Report {
	t.Helper()
	var rep *scenario.Report
	arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
		c, err := NewCluster(w, Config{SeedRaft: seeded})
		if err != nil {
			t.Fatal(err)
		}
		w.SetRoles(c.Roles)
		wl, err := StartWorkload(c, WorkloadConfig{Unseeded: !seeded})
		if err != nil {
			t.Fatal(err)
		}
		defer wl.Stop()
		svc := engine.NewService(fault.NewInjectorFor(w), events.NewMemoryStore(), nil,
			engine.WithProbe(wl.Probe), engine.WithChecks(wl.Checks()...), engine.WithSeed(seed))
		s := *sc
		s.Config.Seed = seed
		if rep, err = scenario.Run(context.Background(), svc, &s); err != nil {
			t.Fatal(err)
		}
	}, arenatest.WithSeed(seed))
	return rep
}

// schedule is what the replay command promises to repeat: each fault's
// type and instant.
func schedule(rep *scenario.Report) string {
	var b strings.Builder
	for _, f := range rep.Faults {
		fmt.Fprintf(&b, "%s %s\n", f.At, f.Action.Type)
	}
	for _, e := range rep.InjectionErrors {
		fmt.Fprintf(&b, "%s %s (did not land)\n", e.StartedAt.Sub(rep.Start), e.Action.Type)
	}
	return b.String()
}

// mostCommon is how many of the digests equal the most frequent one.
func mostCommon(ds []string) int {
	n := map[string]int{}
	best := 0
	for _, d := range ds {
		n[d]++
		best = max(best, n[d])
	}
	return best
}

// spread prints min–max and the standard deviation.
func spread(xs []float64) string {
	lo, hi := slices.Min(xs), slices.Max(xs)
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	sd := 0.0
	if len(xs) > 1 {
		sd = math.Sqrt(v / float64(len(xs)-1))
	}
	return fmt.Sprintf("%.1f–%.1f (sd %.2f)", lo, hi, sd)
}
