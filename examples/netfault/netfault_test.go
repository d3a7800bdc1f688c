package netfaultexample

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/matchers"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// run plays the scenario on a fresh system in virtual time.
func run(t testing.TB, seed uint64, breaker bool) *arena.ScenarioReport {
	t.Helper()
	sys := NewSystem(arena.NewVirtualClock(time.Time{}), seed, breaker)
	defer sys.Close()
	data, err := os.ReadFile("testdata/quotes-network.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := arena.LoadScenario(data, "quotes-network.yaml", sys.Service.Injector().FaultTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	sc.Config.Seed = seed
	rep, err := arena.RunScenarioReport(context.Background(), sys.Service, sc)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// With the breaker the client passes the scenario's gate for any seed;
// without it, the latency keeps callers waiting on timeouts until it is
// lifted, and the gate fails.
func TestScenarioGate(t *testing.T) {
	for _, seed := range []uint64{1, 2, 7, 42, 1234} {
		if rep := run(t, seed, true); !rep.OK() {
			t.Errorf("seed %d: with the breaker the gate fails:\n%s", seed, rep)
		}
		rep := run(t, seed, false)
		if rep.Gate.Verdict != arena.GateFailed {
			t.Errorf("seed %d: without the breaker the gate passes:\n%s", seed, rep)
		}
		if f := rep.Faults[0]; f.Action.Type != arena.ActionNetworkLatency || f.TTR.D() < 5*time.Second {
			t.Errorf("seed %d: without the breaker, %s TTR %s, want the latency to hurt for most of its 6s", seed, f.Action.Type, f.TTR)
		}
	}
}

// A virtual run is reproducible: the same seed gives the same report, byte
// for byte (the wall time aside), and another seed another one.
func TestReproducible(t *testing.T) {
	report := func(seed uint64) []byte {
		rep := run(t, seed, false)
		rep.Report.WallTime = 0
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := report(7), report(7), report(8)
	if !bytes.Equal(a, b) {
		t.Errorf("seed 7 twice, different reports:\n%s\n%s", a, b)
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 7 and 8 gave the same report")
	}
}

// The breaker is significantly better than none: an A/B test of the two
// clients, each run the scenario on a fresh system with the trial's seed.
func TestBreakerIsBetter(t *testing.T) {
	g := NewWithT(t)
	scorer := arena.ScorerFunc(func(input any) (float64, error) {
		tr := input.(arena.Trial)
		return run(t, tr.Seed, tr.Strategy.(bool)).Report.Score.Total, nil
	})
	var res *arena.RegressionResult
	g.Expect(true).To(matchers.SignificantlyBetterThan(false,
		matchers.WithScorer(scorer), matchers.WithSeed(5), matchers.WithMaxRuns(30), matchers.SaveResult(&res)))
	t.Logf("breaker vs none: %s", res)
}
