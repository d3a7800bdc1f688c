package arenatest_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/sim"
)

// apiSystem is startAPI as a System, counting the worlds it is given.
type apiSystem struct {
	mu     sync.Mutex
	worlds map[*sim.World]bool
	calls  int
}

func (s *apiSystem) build(t *testing.T, w *sim.World) []Option {
	s.mu.Lock()
	if s.worlds == nil {
		s.worlds = map[*sim.World]bool{}
	}
	s.worlds[w] = true
	s.calls++
	s.mu.Unlock()
	return []Option{WithProbe(startAPI(t, w))}
}

// slowRestart is four faults of which one fails the gate: the kill of the
// api, which its supervisor restarts after 2s, which keeps the mean time to recover above what max_mttr allows.
func slowRestart() *scenario.Scenario {
	d := func(s int) clock.Duration { return clock.Duration(time.Duration(s) * time.Second) }
	return &scenario.Scenario{Name: "slow-restart", Config: scenario.Config{Warmup: d(2), Cooldown: d(10)},
		Actions: []scenario.Step{
			{Delay: d(5), Action: fault.Action{Type: fault.NetworkLatency, TargetID: "client", Metadata: map[string]any{"latency": "50ms", "duration": "3s"}}},
			{Delay: d(5), Action: fault.Action{Type: fault.KillAgent, TargetID: "api"}},
			{Delay: d(5), Action: fault.Action{Type: fault.NetworkLatency, TargetID: "api", Metadata: map[string]any{"latency": "20ms", "duration": "2s"}}},
			{Delay: d(5), Action: fault.Action{Type: fault.NetworkLatency, TargetID: "client", Metadata: map[string]any{"latency": "10ms", "duration": "2s"}}},
		},
		Expect: scenario.Gate{MaxMTTR: ptr(clock.Duration(400 * time.Millisecond))}}
}

func ptr[T any](v T) *T { return &v }

// SimulateRun shrinks a failure in simulated time: every schedule tried
// runs on a fresh world that the System builds (in a bubble of its own),
// the budget is wall time, the message and the file name the simulated
// clock with the simulated and the wall time, and nothing says "real
// clock" or "shrink: shrink:".
func TestSimulateRunShrinks(t *testing.T) {
	if isChild(t.Name()) {
		t.Chdir(t.TempDir())
		sys := &apiSystem{}
		defer func() {
			data, _ := os.ReadFile(filepath.Join(ShrunkDir, "TestSimulateRunShrinks.yaml"))
			fmt.Printf("SYSTEM BUILT %d TIMES IN %d WORLDS\nFILE:\n%s\n", sys.calls, len(sys.worlds), data)
		}()
		SimulateRun(t, sys.build, slowRestart(), WithSeed(5), WithShrinkOnFailure(10*time.Minute))
		return
	}
	out := child(t, t.Name())
	for _, want := range []string{
		"arena: scenario slow-restart failed its gate",
		"shrunk slow-restart from 4 faults (32s) to 1 (",
		"replays, simulated clock (synctest)\n",
		" of wall time, ",
		" simulated\n",
		"    replay: go test -run '^TestSimulateRunShrinks$' -arena.replay=testdata/arena-shrunk/TestSimulateRunShrinks.yaml",
		"replays on a simulated clock (synctest): the search took ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"real clock", "shrink: shrink:", "time budget spent", "panic:"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q:\n%s", bad, out)
		}
	}
	m := regexp.MustCompile(`SYSTEM BUILT (\d+) TIMES IN (\d+) WORLDS`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no count of systems:\n%s", out)
	}
	calls, _ := strconv.Atoi(m[1])
	if worlds, _ := strconv.Atoi(m[2]); calls < 10 || worlds != calls {
		t.Errorf("the System built %d systems in %d worlds; want one fresh world for the run and each of the shrinker's (at least 10)", calls, worlds)
	}
	if !regexp.MustCompile(`(?m)^  - action:\n      type: kill_agent\n      target_id: (api|type:service)$`).MatchString(out) {
		t.Errorf("the file is not the kill alone:\n%s", out)
	}
}

// Inside Simulate a shrink would replay every schedule on the world the
// test built: refused, with the way to do it.
func TestSimulateRefusesShrinkOnFailure(t *testing.T) {
	if isChild(t.Name()) {
		Simulate(t, func(t *testing.T, w *sim.World) {
			Run(t, slowRestart(), WithProbe(startAPI(t, w)), WithShrinkOnFailure(time.Minute))
		})
		return
	}
	out := child(t, t.Name())
	want := "arenatest.Run: WithShrinkOnFailure inside Simulate: every schedule the shrinker tries needs a fresh world"
	if !strings.Contains(out, want) || !strings.Contains(out, "arenatest.SimulateRun(t, system, scenario, WithShrinkOnFailure(budget))") {
		t.Errorf("output lacks %q and the fix:\n%s", want, out)
	}
}

// A sweep whose seeds fail inside Simulate: Simulate stops each failed
// seed's test, yet the summary has every failed seed with its grade and
// replay command, and the worst grade is the failed seeds'.
func TestSweepSimulateCountsFailedSeeds(t *testing.T) {
	if isChild(t.Name()) {
		Sweep(t, 3, func(t *testing.T, seed uint64) *engine.Report {
			var rep *scenario.Report
			Simulate(t, func(t *testing.T, w *sim.World) {
				sc := slowRestart()
				if seed != 2 {
					sc.Expect = scenario.Gate{} // passes
				} else { // fails, with the lowest score of the three
					sc.Actions = append(sc.Actions, scenario.Step{Action: fault.Action{Type: fault.NetworkPartition, TargetID: "api",
						Metadata: map[string]any{"duration": "40s"}}})
				}
				rep = Run(t, sc, WithProbe(startAPI(t, w)))
			}, WithSeed(seed))
			return rep.Report // not reached when the simulation failed
		})
		return
	}
	out := child(t, t.Name())
	m := regexp.MustCompile(`arena: sweep: 3 seeds run, 1 failed: 2; worst grade (\S+), score ([\d.]+) \(seed (\d+)\)\n\s*seed 2: grade (\S+), score ([\d.]+); replay: go test -run '\^TestSweepSimulateCountsFailedSeeds\$/\^seed=2\$' -arena.seed=2`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary with the failed seed, its grade and command:\n%s", out)
	}
	if m[3] != "2" || m[1] != m[4] || m[2] != m[5] {
		t.Errorf("worst grade %s %s of seed %s; seed 2 was graded %s %s: the failed seed is the worst", m[1], m[2], m[3], m[4], m[5])
	}
}

// SimulateRun in a sweep: a failed run is returned, not lost.
func TestSweepSimulateRun(t *testing.T) {
	if isChild(t.Name()) {
		Sweep(t, 2, func(t *testing.T, seed uint64) *engine.Report {
			sc := slowRestart()
			if seed == 1 {
				sc.Expect = scenario.Gate{}
			}
			rep := SimulateRun(t, func(t *testing.T, w *sim.World) []Option { return []Option{WithProbe(startAPI(t, w))} }, sc, WithSeed(seed))
			fmt.Printf("RETURNED seed %d: %v\n", seed, rep != nil)
			return rep.Report
		})
		return
	}
	out := child(t, t.Name())
	for _, want := range []string{"RETURNED seed 2: true", "arena: sweep: 2 seeds run, 1 failed: 2; worst grade"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`\n\s*seed 2: grade A\+, score [\d.]+; replay: go test`).MatchString(out) {
		t.Errorf("the summary lacks seed 2 with its grade and command:\n%s", out)
	}
}

// Under -arena.replay the world and the run take the file's seed, and the
// failure's command replays the file: one seed per failure.
func TestSimulateReplayOneSeed(t *testing.T) {
	if isChild(t.Name()) {
		Simulate(t, func(t *testing.T, w *sim.World) {
			fmt.Printf("WORLD SEED %d\n", w.Seed())
			Run(t, "leader-failover", WithProbe(startAPI(t, w)))
		}, WithSeed(99))
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "slow.yaml")
	sc := slowRestart()
	sc.Config.Seed = 4242
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.WriteYAML(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Setenv(ReplayEnv, path)
	out := child(t, t.Name())
	for _, want := range []string{
		"WORLD SEED 4242\n",
		"scenario slow-restart failed its gate",
		"seed: 4242\n",
		"replay the same schedule: go test -run '^TestSimulateReplayOneSeed$' -arena.replay=" + path,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "-arena.seed=") {
		t.Errorf("a command replays a seed, not the file:\n%s", out)
	}
}

// The world's seed seeds crypto/rand: the same seed draws the same bytes,
// another seed others.
func TestSimulateSeedsCryptoRand(t *testing.T) {
	draw := func(seed uint64) string {
		var b [16]byte
		Simulate(t, func(t *testing.T, w *sim.World) { rand.Read(b[:]) }, WithSeed(seed))
		return fmt.Sprintf("%x", b)
	}
	a, b, c := draw(3), draw(3), draw(4)
	if a != b || a == c {
		t.Errorf("crypto/rand drew %s and %s with seed 3, %s with seed 4; want the same, then other bytes", a, b, c)
	}
}

// A goroutine a node's Start started and its Stop hook forgot is named
// with the node, and the fix is that node's Stop hook.
func TestSimulateNamesANodesGoroutinesLeft(t *testing.T) {
	if isChild(t.Name()) {
		Simulate(t, func(t *testing.T, w *sim.World) {
			forever := make(chan struct{})
			w.AddNode("db", sim.NodeConfig{Start: func(ctx context.Context, n *sim.Node) error {
				go waitForever(forever)
				return nil
			}})
		})
		return
	}
	out := child(t, t.Name())
	for _, want := range []string{
		"arenatest_test.waitForever [chan receive (durable)], started by github.com/ares-arena/arena/arenatest_test.TestSimulateNamesANodesGoroutinesLeft.func1.1 (node db's Start)",
		"fix: stop the goroutines of node db in the node's Stop hook (sim.NodeConfig.Stop)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "test function") {
		t.Errorf("the node's goroutine is blamed on the test function:\n%s", out)
	}
}

// TestSimulateRunSystemFaultTypes: a scenario file whose fault types are
// the System's own (WithFaults returned by it, once the system exists)
// plays, with the seed of its config.
func TestSimulateRunSystemFaultTypes(t *testing.T) {
	var landed []string
	var mu sync.Mutex
	sys := func(t *testing.T, w *sim.World) []Option {
		probe := startAPI(t, w)
		spec := fault.Spec{Type: "acme_flush", Doc: "Flushes the api's cache.", Target: fault.TargetAgent, Priority: 3,
			Fix: "target the api", Suggestion: "warm the cache again after a flush",
			Inject: func(_ context.Context, a fault.Action, _ fault.Params) error {
				mu.Lock()
				landed = append(landed, a.TargetID)
				mu.Unlock()
				return nil
			}}
		return []Option{WithProbe(probe), WithFaults(spec)}
	}
	path := filepath.Join(t.TempDir(), "flush.yaml")
	yaml := "name: flush\nconfig: {seed: 77, warmup: 1s, cooldown: 2s}\nactions:\n  - {delay: 1s, action: {type: acme_flush, target_id: api}}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := SimulateRun(t, sys, path)
	if rep.Seed != 77 || rep.Landed != 1 || len(landed) != 1 || landed[0] != "api" {
		t.Errorf("seed %d, %d landed (%v); want seed 77 and acme_flush on api", rep.Seed, rep.Landed, landed)
	}
}
