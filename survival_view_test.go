package arena_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
)

// listedCluster is a fake cluster without its change feeds: the methods
// below, of other signatures, hide the promoted ones, so survival lists
// the system at every tick instead.
type listedCluster struct{ *fakes.Cluster }

func (listedCluster) AppendAgentChanges() {}
func (listedCluster) AppendNodeChanges()  {}
func (listedCluster) AppendEdgeChanges()  {}

var (
	_ arena.AgentFeed = (*fakes.Cluster)(nil)
	_ arena.DAGFeed   = (*fakes.Cluster)(nil)
)

// TestSurvivalViewMatchesListing runs the same seeded survival days on a
// fake cluster through its feeds and through listing, and wants the same
// report to the byte: the view's trees count and pick exactly the targets
// the walk over the lists does, filters and DAG faults included.
func TestSurvivalViewMatchesListing(t *testing.T) {
	if _, ok := any(listedCluster{}).(arena.AgentFeed); ok {
		t.Fatal("listedCluster still has the agent feed")
	}
	for _, tc := range []struct {
		workers int
		targets arena.TargetFilter
		mix     map[arena.ActionType]float64
	}{
		{workers: 3},
		{workers: 40},
		{workers: 40, targets: arena.TargetFilter{Types: []string{arena.TypeWorker}, Exclude: []string{"worker-7", "worker-12"}}},
		{workers: 25, mix: map[arena.ActionType]float64{
			arena.ActionRemoveNode: 2, arena.ActionRemoveEdge: 2, arena.ActionKillAgent: 1,
			arena.ActionPauseAgent: 1, arena.ActionResumeAgent: 1, arena.ActionKillLeader: 1,
		}},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("workers=%d/targets=%v/seed=%d", tc.workers, tc.targets.Exclude != nil, seed), func(t *testing.T) {
				cfg := arena.SurvivalConfig{Duration: 2 * time.Hour, Interval: 5 * time.Second, Seed: seed, MaxActiveFaults: 6, Targets: tc.targets, Mix: tc.mix}
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

func surviveFedOrListed(t *testing.T, cfg arena.SurvivalConfig, workers int, listed bool) string {
	t.Helper()
	clock := arena.NewVirtualClock(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clock), fakes.WithWorkers(workers))
	var rt interface {
		arena.RuntimeProvider
		arena.DAGProvider
	} = c
	if listed {
		rt = listedCluster{c}
	}
	svc := arena.NewService(arena.NewInjector(rt, rt), events.NewMemoryStore(), nil,
		arena.WithClock(clock), arena.WithProbe(c.Probe), arena.WithChecks(c.Checks()...))
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
