package quotes

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/netfault"
	"github.com/ares-arena/arena/sim"
)

// play runs the scenario against a fresh system in simulated time.
func play(t *testing.T, seed uint64, breaker bool) *arena.ScenarioReport {
	t.Helper()
	var rep *arena.ScenarioReport
	arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
		s, err := Start(w, breaker)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Stop()
		rep = arenatest.Run(t, "testdata/quotes-network.yaml", arenatest.WithProbe(s.Probe),
			arenatest.WithFaults(netfault.HTTPErrorFault(s.HTTPErrors)))
	}, arenatest.WithSeed(seed))
	return rep
}

// With the breaker the client passes the scenario's gate; without it, the
// latency keeps callers waiting on timeouts until it is lifted, and the
// gate fails (the test checks that it does).
func TestScenarioGate(t *testing.T) {
	for _, seed := range []uint64{1, 7, 42} {
		rep := play(t, seed, true)
		if !rep.OK() {
			t.Errorf("seed %d: with the breaker the gate fails:\n%s", seed, rep)
		}
		if rep.Clock != arena.ClockSimulated {
			t.Errorf("clock %q, want simulated", rep.Clock)
		}
		if rep.Landed != 3 || rep.InjectionErrorCount != 0 {
			t.Errorf("seed %d: %d faults landed, %d did not: want latency, resets and 503s landed", seed, rep.Landed, rep.InjectionErrorCount)
		}
	}
}

// playQuiet runs the scenario with arena's own calls, whose failed gate is
// a value to look at, not a failed test.
func playQuiet(t *testing.T, seed uint64, breaker bool) *arena.ScenarioReport {
	t.Helper()
	var rep *arena.ScenarioReport
	arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
		s, err := Start(w, breaker)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Stop()
		httpErrors := netfault.HTTPErrorFault(s.HTTPErrors)
		svc := arena.NewService(arena.NewInjectorFor(w, arena.WithFault(httpErrors)), events.NewMemoryStore(), nil,
			arena.WithProbe(s.Probe), arena.WithSeed(seed))
		sc, err := arena.LoadScenarioFile("testdata/quotes-network.yaml", httpErrors)
		if err != nil {
			t.Fatal(err)
		}
		sc.Config.Seed = seed
		if rep, err = arena.RunScenarioReport(context.Background(), svc, sc); err != nil {
			t.Fatal(err)
		}
	}, arenatest.WithSeed(seed))
	return rep
}

func TestWithoutBreakerFails(t *testing.T) {
	rep := playQuiet(t, 7, false)
	if rep.Gate.Verdict != arena.GateFailed {
		t.Fatalf("without the breaker the gate passes:\n%v", rep)
	}
	if f := rep.Faults[0]; f.Action.Type != arena.ActionNetworkLatency || f.TTR.D() < 5*time.Second {
		t.Errorf("without the breaker, %s TTR %s, want the latency to hurt for most of its 6s", f.Action.Type, f.TTR)
	}
}
