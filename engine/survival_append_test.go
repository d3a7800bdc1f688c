package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// listingCluster is the fake cluster without its Append methods: a runtime
// that only lists (each method of the same name and another signature hides
// the cluster's).
type listingCluster struct{ *fakes.Cluster }

func (listingCluster) AppendAgents() {}
func (listingCluster) AppendNodes()  {}
func (listingCluster) AppendEdges()  {}

// A survival run reads the system the same through the cluster's Append
// methods (into buffers kept across ticks) as through fresh lists: the same
// seed gives the same report, filters and all.
func TestSurvivalAppendersMatchLists(t *testing.T) {
	for _, cfg := range []engine.SurvivalConfig{
		{Duration: 2 * time.Hour, Seed: 5},
		{Duration: time.Hour, Seed: 9, MaxActiveFaults: 50, Interval: time.Second,
			Targets: engine.TargetFilter{Exclude: []string{"worker-1", "leader-0"}}},
	} {
		var out [2][]byte
		for i, wrap := range []bool{false, true} {
			clk := clock.NewVirtual(time.Time{})
			c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithWorkers(12), fakes.WithSeed(3))
			var in *fault.Injector
			if wrap {
				lc := listingCluster{c}
				in = fault.NewInjector(lc, lc)
			} else {
				in = fault.NewInjector(c, c)
			}
			svc := engine.NewService(in, events.NewMemoryStore(), nil,
				engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
			rep, err := svc.RunSurvival(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Actions < 100 {
				t.Fatalf("only %d actions: too few to compare", rep.Actions)
			}
			rep.WallTime = 0 // the one field that is not a function of the seed
			if out[i], err = json.Marshal(rep); err != nil {
				t.Fatal(err)
			}
		}
		if a, b := string(out[0]), string(out[1]); a != b {
			i := 0
			for i < min(len(a), len(b)) && a[i] == b[i] {
				i++
			}
			t.Errorf("seed %d: the reports differ with and without the Append methods, from byte %d:\n%.300s\n%.300s", cfg.Seed, i, a[max(i-200, 0):], b[max(i-200, 0):])
		}
	}
}
