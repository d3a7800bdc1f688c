package raftsim

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/sim"
)

// raftSystem is the 3-node cluster and its clients as an arenatest.System: the
// setup written once, which SimulateRun calls for its run and the
// shrinker for every schedule it tries, each on a fresh world.
func raftSystem(t *testing.T, w *sim.World) []arenatest.Option {
	c, err := NewCluster(w, Config{Nodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	w.SetRoles(c.Roles) // kill_leader and type:leader follow raft's elections
	wl, err := StartWorkload(c, WorkloadConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wl.Stop)
	return []arenatest.Option{arenatest.WithProbe(wl.Probe), arenatest.WithChecks(wl.Checks()...)}
}

// TestShrinkFastFailover fails on purpose, when asked (RAFTSIM_SHRINK=1):
// testdata/fast-failover.yaml asks raft for a mean time to recover it
// cannot give, and the shrinker finds the one kill that breaks it.
func TestShrinkFastFailover(t *testing.T) {
	if os.Getenv("RAFTSIM_SHRINK") == "" {
		t.Skip("fails on purpose: RAFTSIM_SHRINK=1 go test -run TestShrinkFastFailover")
	}
	arenatest.SimulateRun(t, raftSystem, "testdata/fast-failover.yaml",
		arenatest.WithSeed(3), arenatest.WithShrinkOnFailure(2*time.Minute))
}

// TestSweepSystem plays leader-failover on seeds 1 and 2 through the
// System: each seed a fresh world, a failed run's report returned and
// counted in the summary with its grade and replay command.
func TestSweepSystem(t *testing.T) {
	arenatest.Sweep(t, 2, func(t *testing.T, seed uint64) *engine.Report {
		return arenatest.SimulateRun(t, raftSystem, "testdata/leader-failover.yaml", arenatest.WithSeed(seed)).Report
	})
}

// TestShrinkFastFailoverOutput keeps testdata/fast-failover.txt, the
// README's example of a shrink in simulated time, true: it runs
// TestShrinkFastFailover in a test binary of its own and finds each line
// of the file, in order, in what it printed, numbers aside (times, scores
// and node names vary from run to run).
func TestShrinkFastFailoverOutput(t *testing.T) {
	switch {
	case os.Getenv("RAFTSIM_SHRINK") != "":
		t.Skip("the child runs TestShrinkFastFailover alone")
	case arenatest.Deterministic():
		t.Skip("starts the test binary again (os/exec), which wasip1 cannot: checked in native simulated time")
	case raceEnabled:
		t.Skip("about 4s of shrinking raft, ten times that under the race detector: checked without it")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestShrinkFastFailover$")
	cmd.Env = append(os.Environ(), "RAFTSIM_SHRINK=1")
	out, err := cmd.CombinedOutput()
	t.Cleanup(func() {
		os.Remove(filepath.Join(arenatest.ShrunkDir, "TestShrinkFastFailover.yaml"))
		os.Remove(arenatest.ShrunkDir) // if empty
	})
	if err == nil {
		t.Fatalf("TestShrinkFastFailover passed; it fails on purpose:\n%s", out)
	}
	want, err := os.ReadFile("testdata/fast-failover.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := numbersAside(string(out))
	for _, line := range numbersAside(string(want)) {
		i := slices.Index(got, line)
		if i < 0 {
			t.Fatalf("the output lacks %q (numbers aside), after the lines before it:\n%s", line, out)
		}
		got = got[i+1:]
	}
}

// numbersAside returns the lines of s, trimmed, with every duration,
// grade and number as #.
func numbersAside(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		l = durations.ReplaceAllString(strings.TrimSpace(l), "#")
		l = grades.ReplaceAllString(l, "grade #")
		out = append(out, digits.ReplaceAllString(l, "#"))
	}
	return out
}

var (
	durations = regexp.MustCompile(`\b(\d+(\.\d+)?(h|ms|µs|m|s))+\b`)
	grades    = regexp.MustCompile(`grade [A-F][+-]?`)
	digits    = regexp.MustCompile(`\d+(\.\d+)?`)
)
