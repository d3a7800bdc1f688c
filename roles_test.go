package arena_test

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/fakes"
)

// TestRolesAreResolvedAtEachSelection: kill_leader and type:leader follow a
// leader that moves, as the resolver reads it at the moment of selection.
func TestRolesAreResolvedAtEachSelection(t *testing.T) {
	clock := arena.NewVirtualClock(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clock), fakes.WithSeed(3), fakes.WithWorkers(3))
	leader := "worker-1"
	var asked []string
	roles := func(_ context.Context, agents []arena.AgentInfo) ([]arena.AgentInfo, error) {
		asked = append(asked, leader)
		for i := range agents {
			switch {
			case agents[i].ID == leader:
				agents[i].Type = arena.TypeLeader
			case agents[i].Type == arena.TypeLeader:
				agents[i].Type = arena.TypeWorker
			}
		}
		return agents, nil
	}
	svc := arena.NewService(arena.NewInjector(cluster, nil, arena.WithRoles(roles)), nil, nil, arena.WithClock(clock))
	r, err := svc.NewRun(arena.RunOptions{Seed: 1, Duration: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	r.At(time.Second, arena.KindInject, func(ctx context.Context) {
		got = append(got, r.Inject(ctx, arena.Action{Type: arena.ActionKillLeader}).Action.TargetID)
		leader = "worker-3" // the system elects another
		got = append(got, r.Inject(ctx, arena.Action{Type: arena.ActionPauseAgent, TargetID: "type:leader"}).Action.TargetID)
	})
	if _, err := r.Play(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"worker-1", "worker-3"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("targets = %v, want %v (the leader at each selection); resolver asked %v", got, want, asked)
	}
}
