package fault_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// TestRolesAreResolvedAtEachSelection: kill_leader and type:leader follow a
// leader that moves, as the resolver reads it at the moment of selection.
func TestRolesAreResolvedAtEachSelection(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3), fakes.WithWorkers(3))
	leader := "worker-1"
	var asked []string
	roles := func(_ context.Context, agents []fault.AgentInfo) ([]fault.AgentInfo, error) {
		asked = append(asked, leader)
		for i := range agents {
			switch {
			case agents[i].ID == leader:
				agents[i].Type = fault.TypeLeader
			case agents[i].Type == fault.TypeLeader:
				agents[i].Type = fault.TypeWorker
			}
		}
		return agents, nil
	}
	svc := engine.NewService(fault.NewInjector(cluster, nil, fault.WithRoles(roles)), nil, nil, engine.WithClock(clk))
	r, err := svc.NewRun(engine.RunOptions{Seed: 1, Duration: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	r.At(time.Second, engine.KindInject, func(ctx context.Context) {
		got = append(got, r.Inject(ctx, fault.Action{Type: fault.KillLeader}).Action.TargetID)
		leader = "worker-3" // the system elects another
		got = append(got, r.Inject(ctx, fault.Action{Type: fault.PauseAgent, TargetID: "type:leader"}).Action.TargetID)
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
type typedAgents []fault.AgentInfo

func (a typedAgents) ListAgents(context.Context) ([]fault.AgentInfo, error) { return a, nil }
func (typedAgents) StopAgent(context.Context, string) error                 { return nil }

// TestNoLeaderMessageNamesTheTypesAndTheFix: a runtime whose leader is one
// of several agents of one type gets a message that lists the types it
// reported and names WithRoles, not a bare "no running leader".
func TestNoLeaderMessageNamesTheTypesAndTheFix(t *testing.T) {
	rt := typedAgents{{ID: "n1", Type: "node"}, {ID: "n2", Type: "node"}, {ID: "n3", Type: "node"}, {ID: "c", Type: "client"}}
	svc := engine.NewService(fault.NewInjectorFor(rt), nil, nil)
	res := svc.Execute(context.Background(), fault.Action{Type: fault.KillLeader})
	want := "no eligible target: no running leader: no agent has type leader (the runtime lists client ×1, node ×3); " +
		"if a role moves between agents, resolve it at each selection with fault.WithRoles (arenatest.WithRoles, containers.WithRoles)"
	if res.Success || res.Error != want {
		t.Errorf("kill_leader = success %v, error %q; want %q", res.Success, res.Error, want)
	}
	res = svc.Execute(context.Background(), fault.Action{Type: fault.KillAgent, TargetID: "type:gpu"})
	if !strings.Contains(res.Error, `no eligible target for kill_agent "type:gpu": no agent has type gpu (the runtime lists client ×1, node ×3)`) {
		t.Errorf("type:gpu error = %q", res.Error)
	}
	// With a resolver the leader is found.
	roles := func(_ context.Context, agents []fault.AgentInfo) ([]fault.AgentInfo, error) {
		agents[1].Type = fault.TypeLeader
		return agents, nil
	}
	svc = engine.NewService(fault.NewInjectorFor(rt, fault.WithRoles(roles)), nil, nil)
	if res := svc.Execute(context.Background(), fault.Action{Type: fault.KillLeader}); !res.Success || res.Action.TargetID != "n2" {
		t.Errorf("with WithRoles: kill_leader = %+v, want it on n2", res)
	}
}
