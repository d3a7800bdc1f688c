package arenatest_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/planted"
	"github.com/ares-arena/arena/scenario"
)

// plantedRuntime makes a fresh fake cluster with the planted bug (a
// partition, then a kill of the leader while it holds, loses a task) for
// each run, on a virtual clock.
var plantedRuntime = arenatest.WithFreshRuntime(func(seed uint64) (fault.AgentLister, error) {
	clk := clock.NewVirtual(time.Time{})
	return planted.New(fakes.WithClock(clk), fakes.WithSeed(seed), fakes.WithoutPartitionHealing()), nil
})

// hourOfChaos fails its consistency gate on the planted bug after 37m40s.
var hourOfChaos = engine.SurvivalConfig{Duration: time.Hour, Seed: 17, MaxLifetime: 30 * time.Second,
	Mix: map[fault.Type]float64{
		fault.KillAgent: 1, fault.SlowAgent: 1, fault.LLMFailure: 1, fault.ToolTimeout: 1,
		fault.MCPDisconnect: 1, fault.RemoveEdge: 1, fault.NetworkPartition: 0.2, fault.KillLeader: 0.2,
	}}

// TestSurviveShrinkOnFailure: a failing survival run is shrunk; the
// message shows the schedule, where it was written and the command that
// replays it, and that command (-arena.replay) plays the file on the same
// system and fails the same way.
func TestSurviveShrinkOnFailure(t *testing.T) {
	t.Chdir(t.TempDir())
	opts := []arenatest.Option{plantedRuntime, arenatest.WithGate(scenario.Gate{Consistent: true}), arenatest.WithShrinkOnFailure(time.Minute)}
	r := record("TestDay", func(t arenatest.TB) { arenatest.Survive(t, hourOfChaos, opts...) })
	msg := r.errorText()
	path := filepath.Join(arenatest.ShrunkDir, "TestDay.yaml")
	for _, want := range []string{
		"arena: survival run failed its gate: score",
		"\nshrunk survival-seed-17 from 359 faults (1h) to 2 (40s): fails 10/10 replays, virtual clock\n",
		"\n  at 10s  network_partition  worker-3  duration=1ms\n  at 10s  kill_agent         type:leader\n",
		"\n  written to " + path + "\n",
		"\nreplay: go test -run '^TestDay$' -arena.replay=" + path,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	sc, err := scenario.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Config.Seed != 17 || !sc.Expect.Consistent || len(sc.Actions) != 2 {
		t.Errorf("written scenario: seed %d, gate %+v, %d steps", sc.Config.Seed, sc.Expect, len(sc.Actions))
	}

	setReplay(t, path)
	replay := record("TestDay", func(t arenatest.TB) {
		rep := arenatest.Survive(t, hourOfChaos, opts...)
		if rep.End.Sub(rep.Start) != 40*time.Second {
			t.Errorf("the replay ran %s, not the file's 40s", rep.End.Sub(rep.Start))
		}
	})
	if msg := replay.errorText(); !strings.Contains(msg, "scenario survival-seed-17-shrunk failed its gate") ||
		!strings.Contains(msg, "first tasks at 20s: 1 task lost in the leader's hand-over") || strings.Contains(msg, "shrunk survival") {
		t.Errorf("the replay's message:\n%s", msg)
	}
}

func setReplay(t *testing.T, path string) {
	t.Helper()
	if err := flag.Set(arenatest.ReplayFlag, path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(arenatest.ReplayFlag, "") })
}

// TestRunShrinkOnFailure: a built-in scenario against a cluster that does
// not heal is shrunk on the default fake cluster, tuned the same way.
func TestRunShrinkOnFailure(t *testing.T) {
	t.Chdir(t.TempDir())
	r := record("TestLeader/no_healing", func(t arenatest.TB) {
		arenatest.Run(t, "leader-failover", arenatest.WithSeed(7), arenatest.WithCluster(fakes.WithoutHealing()),
			arenatest.WithShrinkOnFailure(time.Minute))
	})
	msg := r.errorText()
	path := filepath.Join(arenatest.ShrunkDir, "TestLeader_no_healing.yaml")
	for _, want := range []string{
		"arena: scenario leader-failover failed its gate",
		"\nshrunk leader-failover from 2 faults",
		"\n  written to " + path + "\n",
		"\nreplay: go test -run '^TestLeader$/^no_healing$' -arena.replay=" + path,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

func TestShrinkOptionErrors(t *testing.T) {
	rt := fakes.NewCluster()
	fresh := arenatest.WithFreshRuntime(func(uint64) (fault.AgentLister, error) { return rt, nil })
	cases := []struct {
		opts []arenatest.Option
		want string
	}{
		{[]arenatest.Option{arenatest.WithRuntime(rt), arenatest.WithShrinkOnFailure(time.Minute)},
			"arenatest.Run: WithShrinkOnFailure runs every schedule it tries on a fresh system: use the default fake cluster or WithFreshRuntime, not WithRuntime"},
		{[]arenatest.Option{arenatest.WithRuntime(rt), fresh}, "arenatest.Run: WithRuntime and WithFreshRuntime both given (choose one)"},
		{[]arenatest.Option{fresh, arenatest.WithCluster(fakes.WithWorkers(2))}, "arenatest.Run: WithCluster tunes the default fake cluster; it does not apply with WithFreshRuntime"},
		{[]arenatest.Option{arenatest.WithShrinkOnFailure(-time.Second)}, "arenatest.Run: WithShrinkOnFailure: negative budget -1s"},
		{[]arenatest.Option{arenatest.WithFreshRuntime(func(uint64) (fault.AgentLister, error) { return nil, nil })}, "arenatest.Run: WithFreshRuntime: nil runtime"},
	}
	for _, tc := range cases {
		r := record("TestX", func(t arenatest.TB) { arenatest.Run(t, "leader-failover", tc.opts...) })
		if !r.stopped || r.errorText() != tc.want {
			t.Errorf("stopped %t, error %q, want %q", r.stopped, r.errorText(), tc.want)
		}
	}
}

// A shrink that cannot start says so with one "shrink:" in front.
func TestShrinkErrorHasOnePrefix(t *testing.T) {
	t.Chdir(t.TempDir())
	r := record("TestLeader", func(t arenatest.TB) {
		arenatest.Run(t, "leader-failover", arenatest.WithSeed(7), arenatest.WithCluster(fakes.WithoutHealing()),
			arenatest.WithShrinkOnFailure(time.Nanosecond))
	})
	msg := r.errorText()
	if want := "\nshrink: scenario \"leader-failover\": time budget spent"; !strings.Contains(msg, want) || strings.Contains(msg, "shrink: shrink:") {
		t.Errorf("the message lacks %q, with one prefix:\n%s", want, msg)
	}
}
