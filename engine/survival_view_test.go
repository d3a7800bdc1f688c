package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// listedCluster is a fake cluster without its change feeds: the methods
// below, of other signatures, hide the promoted ones, so survival lists
// the system at every tick instead.
type listedCluster struct{ *fakes.Cluster }

func (listedCluster) AppendAgentChanges() {}
func (listedCluster) AppendNodeChanges()  {}
func (listedCluster) AppendEdgeChanges()  {}

var (
	_ fault.AgentFeed = (*fakes.Cluster)(nil)
	_ fault.DAGFeed   = (*fakes.Cluster)(nil)
)

// TestSurvivalViewMatchesListing runs the same seeded survival days on a
// fake cluster through its feeds and through listing, and wants the same
// report to the byte: the view's trees count and pick exactly the targets
// the walk over the lists does, filters and DAG faults included.
func TestSurvivalViewMatchesListing(t *testing.T) {
	if _, ok := any(listedCluster{}).(fault.AgentFeed); ok {
		t.Fatal("listedCluster still has the agent feed")
	}
	for _, tc := range []struct {
		workers int
		targets engine.TargetFilter
		mix     map[fault.Type]float64
	}{
		{workers: 3},
		{workers: 40},
		{workers: 40, targets: engine.TargetFilter{Types: []string{fault.TypeWorker}, Exclude: []string{"worker-7", "worker-12"}}},
		{workers: 25, mix: map[fault.Type]float64{
			fault.RemoveNode: 2, fault.RemoveEdge: 2, fault.KillAgent: 1,
			fault.PauseAgent: 1, fault.ResumeAgent: 1, fault.KillLeader: 1,
		}},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("workers=%d/targets=%v/seed=%d", tc.workers, tc.targets.Exclude != nil, seed), func(t *testing.T) {
				cfg := engine.SurvivalConfig{Duration: 2 * time.Hour, Interval: 5 * time.Second, Seed: seed, MaxActiveFaults: 6, Targets: tc.targets, Mix: tc.mix}
				fed := surviveFedOrListed(t, cfg, tc.workers, false)
				listed := surviveFedOrListed(t, cfg, tc.workers, true)
				if fed != listed {
					i := 0
					for i < min(len(fed), len(listed)) && fed[i] == listed[i] {
						i++
					}
					lo := max(i-300, 0)
					t.Fatalf("reports differ at byte %d\nthrough the feeds: …%.600s\nlisted:           …%.600s", i, fed[lo:], listed[lo:])
				}
			})
		}
	}
}

func surviveFedOrListed(t *testing.T, cfg engine.SurvivalConfig, workers int, listed bool) string {
	t.Helper()
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithWorkers(workers))
	var rt interface {
		fault.RuntimeProvider
		fault.DAGProvider
	} = c
	if listed {
		rt = listedCluster{c}
	}
	svc := engine.NewService(fault.NewInjector(rt, rt), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
	rep, err := svc.RunSurvival(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Actions < 100 {
		t.Fatalf("%d actions: too few to compare", rep.Actions)
	}
	rep.Report.WallTime = 0 // the one field that is not the run's
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
