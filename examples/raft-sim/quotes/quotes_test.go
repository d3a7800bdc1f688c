package quotes

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/netfault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/sim"
)

// play runs the scenario against a fresh system in simulated time.
func play(t *testing.T, seed uint64, breaker bool) *scenario.Report {
	t.Helper()
	var rep *scenario.Report
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
		if rep.Clock != clock.KindSimulated {
			t.Errorf("clock %q, want simulated", rep.Clock)
		}
		if rep.Landed != 3 || rep.InjectionErrorCount != 0 {
			t.Errorf("seed %d: %d faults landed, %d did not: want latency, resets and 503s landed", seed, rep.Landed, rep.InjectionErrorCount)
		}
	}
}

// playQuiet runs the scenario with arena's own calls, whose failed gate is
// a value to look at, not a failed test.
func playQuiet(t *testing.T, seed uint64, breaker bool) *scenario.Report {
	t.Helper()
	var rep *scenario.Report
	arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
		s, err := Start(w, breaker)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Stop()
		httpErrors := netfault.HTTPErrorFault(s.HTTPErrors)
		svc := engine.NewService(fault.NewInjectorFor(w, fault.WithFault(httpErrors)), events.NewMemoryStore(), nil,
			engine.WithProbe(s.Probe), engine.WithSeed(seed))
		sc, err := scenario.LoadFile("testdata/quotes-network.yaml", httpErrors)
		if err != nil {
			t.Fatal(err)
		}
		sc.Config.Seed = seed
		if rep, err = scenario.Run(context.Background(), svc, sc); err != nil {
			t.Fatal(err)
		}
	}, arenatest.WithSeed(seed))
	return rep
}

func TestWithoutBreakerFails(t *testing.T) {
	rep := playQuiet(t, 7, false)
	if rep.Gate.Verdict != scenario.GateFailed {
		t.Fatalf("without the breaker the gate passes:\n%v", rep)
	}
	if f := rep.Faults[0]; f.Action.Type != fault.NetworkLatency || f.TTR.D() < 5*time.Second {
		t.Errorf("without the breaker, %s TTR %s, want the latency to hurt for most of its 6s", f.Action.Type, f.TTR)
	}
}
