package arenatest_test

import (
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/regression"
	"github.com/ares-arena/arena/scenario"
)

func TestRunPasses(t *testing.T) {
	var rep *scenario.Report
	r := record("TestLeaderFailover", func(t arenatest.TB) {
		rep = arenatest.Run(t, "leader-failover", arenatest.WithSeed(7))
	})
	if r.failed() || r.stopped {
		t.Fatalf("Run failed a passing scenario:\n%s", r.errorText())
	}
	if !rep.OK() || rep.Seed != 7 || !rep.Virtual || !rep.Score.Grade.AtLeast(engine.GradeA) {
		t.Errorf("Run = gate %s, seed %d, virtual %v, grade %s; want passed, 7, true, A or better",
			rep.Gate.Verdict, rep.Seed, rep.Virtual, rep.Score.Grade)
	}
	wantLogs := []string{"arena: scenario leader-failover passed its gate: score 97.6, grade A+ (seed 7)"}
	if diff := cmp.Diff(wantLogs, r.logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	wantAttrs := []string{"arena.scenario=leader-failover", "arena.gate=passed", "arena.score=97.6", "arena.grade=A+",
		"arena.mttr=1.3s", "arena.unrecovered=0", "arena.seed=7"}
	if diff := cmp.Diff(wantAttrs, r.attrs); diff != "" {
		t.Errorf("attrs (-want +got):\n%s", diff)
	}
}

// TestRunFails: the default cluster without its self-healing fails the
// scenario's gate, and the message says what a user needs to act.
func TestRunFails(t *testing.T) {
	r := record("TestLeaderFailover", func(t arenatest.TB) {
		rep := arenatest.Run(t, "leader-failover", arenatest.WithSeed(7), arenatest.WithCluster(fakes.WithoutHealing()))
		if rep == nil || rep.OK() {
			t.Errorf("Run returned %v, want the failed report", rep)
		}
	})
	want := `arena: scenario leader-failover failed its gate: score 42.0, grade F
  - actions[1] (kill-successor): expected the fault to land: no eligible target: no running leader
  - grade F (42.0) is below the minimum A
  - 1 of 1 faults unrecovered: kill_leader on leader-0 at 15s
faults: 1 landed, 0 recovered, 1 unrecovered; 1 did not land
worst faults:
  - kill_leader on leader-0 at 15s: unrecovered
seed: 7
rerun: go test -run '^TestLeaderFailover$' -arena.seed=7
   or: ARENA_SEED=7 go test -run '^TestLeaderFailover$'`
	if diff := cmp.Diff([]string{want}, r.errors); diff != "" {
		t.Errorf("Run's failure (-want +got):\n%s", diff)
	}
	if r.stopped {
		t.Error("Run stopped the test on a failed gate; it should let the test go on with the report")
	}
}

func TestRunFailureNamesWorstFaults(t *testing.T) {
	mttr := clock.Duration(500 * time.Millisecond)
	r := record("TestEverything/no retries", func(t arenatest.TB) {
		arenatest.Run(t, "everything-at-once", arenatest.WithSeed(3), arenatest.WithCluster(fakes.WithoutRetries()),
			arenatest.WithGate(scenario.Gate{MaxMTTR: &mttr}))
	})
	want := `arena: scenario everything-at-once failed its gate: score 91.6, grade A
  - MTTR 2.423s is above the maximum 500ms
faults: 13 landed, 13 recovered, 0 unrecovered; MTTR 2.423s, p95 7s, max 7s
worst faults:
  - tool_timeout on leader-0 at 39s: recovered in 7s
  - llm_failure on worker-3 at 47s: recovered in 6.4s
  - mcp_disconnect on leader-0 at 41s: recovered in 5s
seed: 3
rerun: go test -run '^TestEverything$/^no retries$' -arena.seed=3
   or: ARENA_SEED=3 go test -run '^TestEverything$/^no retries$'`
	if diff := cmp.Diff(want, r.errorText()); diff != "" {
		t.Errorf("Run's failure (-want +got):\n%s", diff)
	}
	// Failed checks are named with their fault.
	r = record("TestEverything", func(t arenatest.TB) {
		arenatest.Run(t, "everything-at-once", arenatest.WithSeed(3), arenatest.WithCluster(fakes.WithoutCheckpoints()))
	})
	if want := "  - kill_orchestrator on orchestrator-0 at 23s: recovered in 2s, check memory failed\n"; !strings.Contains(r.errorText(), want) {
		t.Errorf("failure does not contain %q:\n%s", want, r.errorText())
	}
}

// TestRunErrors: what cannot be run is reported and stops the test.
func TestRunErrors(t *testing.T) {
	names := "cascading-failure, dag-surgery, everything-at-once, flaky-network, leader-failover, llm-brownout, mcp-flap, memory-corruption, network-split, orchestrator-loss, rolling-kills, slow-network, slow-tools"
	realCluster := fakes.NewCluster()
	for _, tc := range []struct {
		name     string
		scenario any
		opts     []arenatest.Option
		want     string
	}{
		{"unknown name", "no-such-scenario", nil,
			`arenatest.Run: "no-such-scenario" is neither a built-in scenario (` + names + `) nor a file`},
		{"wrong type", 42, nil,
			"arenatest.Run: scenario is int, want a built-in name or file path (string) or a *scenario.Scenario"},
		{"nil scenario", (*scenario.Scenario)(nil), nil, "arenatest.Run: nil *scenario.Scenario"},
		{"invalid scenario", &scenario.Scenario{Name: "x"}, nil, "arenatest.Run: actions: missing (a scenario needs at least one step)"},
		{"no DAG", "dag-surgery", []arenatest.Option{arenatest.WithRuntime(bare{realCluster})},
			`arenatest.Run: scenario "dag-surgery": actions[0]: remove_edge: no DAG provider`},
		{"option for Compare", "leader-failover", []arenatest.Option{arenatest.WithScorer(regression.ScorerFunc(nil))},
			"arenatest.Run: WithScorer does not apply to Run"},
		{"nil option", "leader-failover", []arenatest.Option{nil}, "arenatest.Run: options[0]: nil option"},
		{"nil runtime", "leader-failover", []arenatest.Option{arenatest.WithRuntime(nil)}, "arenatest.Run: WithRuntime: nil runtime"},
		{"virtual and real", "leader-failover", []arenatest.Option{arenatest.Virtual(), arenatest.RealTime()},
			"arenatest.Run: both Virtual() and RealTime() given"},
		{"virtual real runtime", "leader-failover", []arenatest.Option{arenatest.WithRuntime(realCluster), arenatest.Virtual()},
			"arenatest.Run: Virtual(): the runtime runs in real time (a runtime on a virtual clock is a clock.VirtualSystem: every goroutine and timer of its system follows the clock; a system of its own goroutines runs in simulated time, arenatest.Simulate)"},
		{"cluster seed", "leader-failover", []arenatest.Option{arenatest.WithCluster(fakes.WithWorkers(4), fakes.WithSeed(3))},
			"arenatest.Run: WithCluster: options[1]: fakes.WithSeed: the cluster is seeded with the run's seed (use WithSeed)"},
		{"cluster clock", "leader-failover", []arenatest.Option{arenatest.WithCluster(fakes.WithClock(clock.Real{}))},
			"arenatest.Run: WithCluster: options[0]: fakes.WithClock: the cluster follows the run's clock (use Virtual or RealTime)"},
		{"cluster and runtime", "leader-failover", []arenatest.Option{arenatest.WithRuntime(realCluster), arenatest.WithCluster(fakes.WithWorkers(4))},
			"arenatest.Run: WithCluster tunes the default fake cluster; it does not apply with WithRuntime"},
		{"invalid cluster option", "leader-failover", []arenatest.Option{arenatest.WithCluster(fakes.WithWorkers(0))},
			"arenatest.Run: WithCluster: fakes: WithWorkers(0): need at least one worker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := record("TestX", func(t arenatest.TB) {
				if rep := arenatest.Run(t, tc.scenario, append(tc.opts, arenatest.WithSeed(5))...); rep != nil {
					t.Errorf("Run returned a report")
				}
			})
			if diff := cmp.Diff([]string{tc.want}, r.errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if !r.stopped {
				t.Error("Run did not stop the test")
			}
		})
	}
}

// TestRunSeed: -arena.seed, then ARENA_SEED, then WithSeed, then the
// scenario's own seed; a malformed override is an error.
func TestRunSeed(t *testing.T) {
	seed := func(opts ...arenatest.Option) (uint64, string) {
		var got uint64
		r := record("TestSeed", func(t arenatest.TB) {
			if rep := arenatest.Run(t, "leader-failover", opts...); rep != nil {
				got = rep.Seed
			}
		})
		return got, r.errorText()
	}
	withSeed, _ := os.ReadFile("../scenarios/leader-failover.yaml")
	file := filepath.Join(t.TempDir(), "seeded.yaml")
	if err := os.WriteFile(file, []byte(strings.Replace(string(withSeed), "config:\n", "config:\n  seed: 12\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := record("TestSeed", func(t arenatest.TB) {
		if rep := arenatest.Run(t, file); rep == nil || rep.Seed != 12 || rep.Source != file {
			t.Errorf("Run(file with seed 12) = %+v", rep)
		}
	})
	if r.failed() {
		t.Errorf("Run(file): %s", r.errorText())
	}
	if got, msg := seed(arenatest.WithSeed(7)); got != 7 {
		t.Errorf("WithSeed(7): seed %d, %s", got, msg)
	}
	t.Setenv("ARENA_SEED", "9")
	if got, msg := seed(arenatest.WithSeed(7)); got != 9 {
		t.Errorf("ARENA_SEED=9 and WithSeed(7): seed %d, %s; want 9", got, msg)
	}
	if err := flag.Set("arena.seed", "11"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set("arena.seed", "0") })
	if got, msg := seed(arenatest.WithSeed(7)); got != 11 {
		t.Errorf("-arena.seed=11, ARENA_SEED=9 and WithSeed(7): seed %d, %s; want 11", got, msg)
	}
	_ = flag.Set("arena.seed", "0")
	t.Setenv("ARENA_SEED", "seven")
	if _, msg := seed(); msg != `arenatest.Run: ARENA_SEED: "seven" is not a seed (want a non-negative integer)` {
		t.Errorf("ARENA_SEED=seven: %q", msg)
	}
	t.Setenv("ARENA_SEED", "")
	if got, msg := seed(); got == 0 || msg != "" {
		t.Errorf("no seed anywhere: seed %d, %q; want a drawn seed", got, msg)
	}
}

// TestRunScenarioInCode: a scenario built in code is run as it is, on a
// copy; WithGate adds to its gate.
func TestRunScenarioInCode(t *testing.T) {
	minScore := 99.5
	sc := &scenario.Scenario{
		Name:    "one-kill",
		Config:  scenario.Config{Cooldown: clock.Duration(20 * time.Second)},
		Actions: []scenario.Step{{Delay: clock.Duration(5 * time.Second), Action: fault.Action{Type: fault.KillLeader}}},
		Expect:  scenario.Gate{MinGrade: engine.GradeB},
	}
	r := record("TestOneKill", func(t arenatest.TB) {
		rep := arenatest.Run(t, sc, arenatest.WithSeed(4), arenatest.WithGate(scenario.Gate{MinGrade: engine.GradeC, MinScore: &minScore}))
		var names []string
		for _, c := range rep.Gate.Checks {
			names = append(names, c.Name+" "+c.Want)
		}
		if want := []string{"steps every step meets its expectation", "run completed", "min_grade B", "min_score 99.5"}; !slices.Equal(names, want) {
			t.Errorf("gate %q, want %q", names, want)
		}
	})
	if sc.Config.Seed != 0 || sc.Expect.MinScore != nil {
		t.Errorf("Run changed the caller's scenario: %+v", sc)
	}
	want := `arena: scenario one-kill failed its gate: score 98.1, grade A+
  - score 98.1 is below the minimum 99.5
faults: 1 landed, 1 recovered, 0 unrecovered; MTTR 1.1s, p95 1.1s, max 1.1s
worst faults:
  - kill_leader on leader-0 at 5s: recovered in 1.1s
seed: 4
rerun: go test -run '^TestOneKill$' -arena.seed=4
   or: ARENA_SEED=4 go test -run '^TestOneKill$'`
	if diff := cmp.Diff(want, r.errorText()); diff != "" {
		t.Errorf("failure (-want +got):\n%s", diff)
	}
}

// TestRunReportFiles: JSON, JUnit and text land in the report directory,
// one set per call, and the failure message points at them.
func TestRunReportFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ARENA_REPORT_DIR", dir)
	r := record("TestFiles/first run", func(t arenatest.TB) {
		arenatest.Run(t, "leader-failover", arenatest.WithSeed(7))
		arenatest.Run(t, "leader-failover", arenatest.WithSeed(7), arenatest.WithCluster(fakes.WithoutHealing()))
	})
	base := filepath.Join(dir, "TestFiles_first_run")
	if want := "report: " + base + "-2.json (and .xml, .txt)"; !strings.HasSuffix(r.errorText(), "\n"+want) {
		t.Errorf("failure does not end with %q:\n%s", want, r.errorText())
	}
	if want := "arena: scenario leader-failover passed its gate: score 97.6, grade A+ (seed 7); report " + base + ".json"; !slices.Contains(r.logs, want) {
		t.Errorf("logs %q, want %q", r.logs, want)
	}
	for _, b := range []string{base, base + "-2"} {
		data, err := os.ReadFile(b + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var rep scenario.Report
		if err := json.Unmarshal(data, &rep); err != nil || rep.Scenario != "leader-failover" || rep.Report == nil || rep.Seed != 7 {
			t.Errorf("%s.json: %v, %+v", b, err, rep)
		}
		var doc struct {
			Suites []struct {
				Name       string `xml:"name,attr"`
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testsuite"`
		}
		data, err = os.ReadFile(b + ".xml")
		if err != nil || xml.Unmarshal(data, &doc) != nil || len(doc.Suites) != 1 || doc.Suites[0].Name != "leader-failover" {
			t.Errorf("%s.xml: %v, %+v", b, err, doc)
		}
		if text, err := os.ReadFile(b + ".txt"); err != nil || !strings.HasPrefix(string(text), "scenario leader-failover: ") {
			t.Errorf("%s.txt: %v, %.60q", b, err, text)
		}
	}
	// WithReportDir beats the environment.
	other := t.TempDir()
	record("TestFiles", func(t arenatest.TB) { arenatest.Run(t, "leader-failover", arenatest.WithReportDir(other)) })
	if _, err := os.Stat(filepath.Join(other, "TestFiles.xml")); err != nil {
		t.Error(err)
	}
}

// TestRunWithRuntime: your own runtime (here a fake cluster you built),
// virtual when it follows a virtual clock, in real time otherwise.
func TestRunWithRuntime(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(7))
	r := record("TestMine", func(t arenatest.TB) {
		rep := arenatest.Run(t, "dag-surgery", arenatest.WithRuntime(cluster), arenatest.WithSeed(7), arenatest.Virtual())
		if !rep.Virtual || rep.Report.Checks == nil {
			t.Errorf("virtual %v, checks %v: want the cluster's clock and checks", rep.Virtual, rep.Report.Checks)
		}
	})
	if r.failed() {
		t.Error(r.errorText())
	}
	r = record("TestMine", func(t arenatest.TB) {
		arenatest.Run(t, "dag-surgery", arenatest.WithRuntime(fakes.NewCluster(fakes.WithClock(clock.NewVirtual(time.Time{})))), arenatest.RealTime())
	})
	if want := "arenatest.Run: RealTime(): the runtime follows a virtual clock"; r.errorText() != want {
		t.Errorf("RealTime with a virtual runtime: %q, want %q", r.errorText(), want)
	}

	// In real time: a short scenario against a bare runtime with the probe
	// given by option.
	real := fakes.NewCluster(fakes.WithResurrection(50 * time.Millisecond))
	sc := &scenario.Scenario{
		Name:    "quick-kill",
		Config:  scenario.Config{Cooldown: clock.Duration(300 * time.Millisecond), ProbeInterval: clock.Duration(10 * time.Millisecond)},
		Actions: []scenario.Step{{Delay: clock.Duration(20 * time.Millisecond), Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-2"}}},
		Expect:  scenario.Gate{AllRecovered: true},
	}
	r = record("TestReal", func(t arenatest.TB) {
		rep := arenatest.Run(t, sc, arenatest.WithRuntime(bare{real}), arenatest.WithProbe(real.Probe), arenatest.WithChecks())
		if rep.Virtual || rep.Report.ChecksRun != 0 {
			t.Errorf("virtual %v, %d checks; want real time and no checks", rep.Virtual, rep.Report.ChecksRun)
		}
	})
	if r.failed() {
		t.Error(r.errorText())
	}
}

// bare hides everything of a fake cluster but its RuntimeProvider methods.
type bare struct{ fault.RuntimeProvider }
