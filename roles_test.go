package arena_test

import (
	"context"
	"strings"
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

// typedAgents is a runtime whose agents have types of their own (a Raft
// cluster's "node"s): none is of type leader unless a resolver says so.
type typedAgents []arena.AgentInfo

func (a typedAgents) ListAgents(context.Context) ([]arena.AgentInfo, error) { return a, nil }
func (typedAgents) StopAgent(context.Context, string) error                 { return nil }

// TestNoLeaderMessageNamesTheTypesAndTheFix: a runtime whose leader is one
// of several agents of one type gets a message that lists the types it
// reported and names WithRoles, not a bare "no running leader".
func TestNoLeaderMessageNamesTheTypesAndTheFix(t *testing.T) {
	rt := typedAgents{{ID: "n1", Type: "node"}, {ID: "n2", Type: "node"}, {ID: "n3", Type: "node"}, {ID: "c", Type: "client"}}
	svc := arena.NewService(arena.NewInjectorFor(rt), nil, nil)
	res := svc.Execute(context.Background(), arena.Action{Type: arena.ActionKillLeader})
	want := "no eligible target: no running leader: no agent has type leader (the runtime lists client ×1, node ×3); " +
		"if a role moves between agents, resolve it at each selection with arena.WithRoles (arenatest.WithRoles, containers.WithRoles)"
	if res.Success || res.Error != want {
		t.Errorf("kill_leader = success %v, error %q; want %q", res.Success, res.Error, want)
	}
	res = svc.Execute(context.Background(), arena.Action{Type: arena.ActionKillAgent, TargetID: "type:gpu"})
	if !strings.Contains(res.Error, `no eligible target for kill_agent "type:gpu": no agent has type gpu (the runtime lists client ×1, node ×3)`) {
		t.Errorf("type:gpu error = %q", res.Error)
	}
	// With a resolver the leader is found.
	roles := func(_ context.Context, agents []arena.AgentInfo) ([]arena.AgentInfo, error) {
		agents[1].Type = arena.TypeLeader
		return agents, nil
	}
	svc = arena.NewService(arena.NewInjectorFor(rt, arena.WithRoles(roles)), nil, nil)
	if res := svc.Execute(context.Background(), arena.Action{Type: arena.ActionKillLeader}); !res.Success || res.Action.TargetID != "n2" {
		t.Errorf("with WithRoles: kill_leader = %+v, want it on n2", res)
	}
}
