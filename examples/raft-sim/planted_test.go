package raftsim

import (
	"flag"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/sim"
)

var (
	planted      = flag.Bool("raftsim.planted", false, "run TestAckUncommitted, which fails on purpose")
	plantedSeeds = flag.Int("raftsim.planted.seeds", 8, "seeds TestAckUncommitted sweeps")
)

// ackUncommittedSystem is raftSystem with the planted bug: appends
// acknowledged before raft commits them (WorkloadConfig.AckUncommitted).
func ackUncommittedSystem(t *testing.T, w *sim.World) []arenatest.Option {
	c, err := NewCluster(w, Config{Nodes: 3, SeedRaft: true})
	if err != nil {
		t.Fatal(err)
	}
	w.SetRoles(c.Roles)
	wl, err := StartWorkload(c, WorkloadConfig{AckUncommitted: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wl.Stop)
	return []arenatest.Option{arenatest.WithProbe(wl.Probe), arenatest.WithChecks(wl.Checks()...)}
}

// TestAckUncommitted fails on purpose, when asked (-raftsim.planted): a
// sweep of leader-failover over the system with the planted bug, each
// failing seed shrunk to the fewest faults that still lose an
// acknowledged write. In deterministic mode (arena-wasm) every seed runs
// in an instance of its own, its replay command replays it exactly, and
// the shrinker judges each candidate by one run.
func TestAckUncommitted(t *testing.T) {
	if !*planted {
		t.Skip("fails on purpose: arena-wasm test -run TestAckUncommitted . -args -raftsim.planted")
	}
	arenatest.Sweep(t, *plantedSeeds, func(t *testing.T, seed uint64) *engine.Report {
		return arenatest.SimulateRun(t, ackUncommittedSystem, "testdata/leader-failover.yaml",
			arenatest.WithSeed(seed), arenatest.WithShrinkOnFailure(2*time.Minute)).Report
	})
}
