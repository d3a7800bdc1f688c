package raftsim

import (
	"testing"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/sim"
)

// TestFirst is the README's first test in simulated time: raft's own
// code on sim's network, a leader killed twice, in a fraction of a second.
func TestFirst(t *testing.T) {
	arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
		c, err := NewCluster(w, Config{Nodes: 3}) // raft-1..3 on the world's network
		if err != nil {
			t.Fatal(err)
		}
		w.SetRoles(c.Roles) // kill_leader and type:leader follow raft's elections
		wl, err := StartWorkload(c, WorkloadConfig{})
		if err != nil {
			t.Fatal(err)
		}
		defer wl.Stop()
		arenatest.Run(t, "testdata/leader-failover.yaml",
			arenatest.WithProbe(wl.Probe), arenatest.WithChecks(wl.Checks()...))
	})
}
