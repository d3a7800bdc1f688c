package raftsim

import (
	"flag"
	"runtime/debug"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/sim"
)

var day = flag.Duration("raftsim.survival", 24*time.Hour, "simulated length of TestSurvival (an hour under the race detector)")

// TestSurvival runs a day of seeded chaos (kills of the leader and of
// nodes, pauses, partitions, latency, bandwidth caps, resets; one every
// minute) against a 3-node raft cluster in simulated time, with clients
// doing over 10 operations per simulated second and arena's default 100ms
// probe, and checks that no acknowledged write was lost and no read was
// stale. Its figures (operations per simulated second, simulated and
// wall time) are logged.
func TestSurvival(t *testing.T) {
	length := *day
	if raceEnabled && length > time.Hour {
		length = time.Hour
	}
	// A day of raft allocates gigabytes of short-lived RPC buffers: a
	// lazier collector spends a fifth less CPU on them, for some memory.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
		_, wl := start(t, w, 3)
		wall := time.Now() // simulated: the start on the bubble's clock
		cfg := engine.SurvivalConfig{Duration: length, Interval: time.Minute, MaxActiveFaults: 2,
			Targets: engine.TargetFilter{Exclude: []string{"client"}},
			Mix: map[fault.Type]float64{
				fault.KillLeader: 2, fault.KillAgent: 2, fault.PauseAgent: 1, fault.NetworkPartition: 2,
				fault.NetworkLatency: 2, fault.NetworkBandwidth: 1, fault.ConnectionReset: 1,
			}}
		rep := arenatest.Survive(t, cfg, arenatest.WithProbe(wl.Probe), arenatest.WithChecks(wl.Checks()...),
			arenatest.WithGate(scenario.Gate{MinGrade: engine.GradeB, Consistent: true}))
		wl.Stop()
		simulated := time.Since(wall)
		ops, ok := wl.Counts()
		rate := float64(ops) / simulated.Seconds()
		t.Logf("survival: %s simulated, %d faults landed, %d recovered; %d operations (%.1f per simulated second), %d acknowledged; %s",
			simulated.Round(time.Second), rep.Landed, rep.Recovered, ops, rate, ok, rep.Score.Grade)
		if rate < 10 {
			t.Errorf("the clients did %.1f operations per simulated second, want at least 10", rate)
		}
		if rep.ProbeInterval.D() != 100*time.Millisecond {
			t.Errorf("probe interval %s, want arena's default 100ms", rep.ProbeInterval)
		}
		if rep.Clock != clock.KindSimulated {
			t.Errorf("clock %q, want simulated", rep.Clock)
		}
	}, arenatest.WithSeed(24))
}
