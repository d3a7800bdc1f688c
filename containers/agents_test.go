package containers_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/fault"
)

// TestUserAgents runs agents the way a user brings their own: WithAgent with
// a container request (here agentd's image, on another port, with types and
// routes of their own), kills through the Docker API and the runtime's
// supervisor, and a fault hook in place of the fault-control endpoint.
func TestUserAgents(t *testing.T) {
	containers.RequireDocker(t)
	t.Parallel()
	ctx := context.Background()
	image, err := containers.BuildAgentImage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req := func(id, typ, routes string) testcontainers.ContainerRequest {
		return testcontainers.ContainerRequest{
			Image:        image,
			ExposedPorts: []string{"9090/tcp"},
			Env: map[string]string{
				"AGENTD_ID": id, "AGENTD_TYPE": typ, "AGENTD_ROUTES": routes, "AGENTD_SOURCE": fmt.Sprint(typ == "leader"),
				"AGENTD_ADDR": ":9090", "AGENTD_ROUTE_PORT": "9090", "AGENTD_DATA": "/state",
			},
		}
	}
	var mu sync.Mutex
	var hooked []string
	record := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		hooked = append(hooked, s)
	}
	rt := containers.ForTest(t, containers.WithProject(testProject),
		containers.WithKillMode(containers.KillAPI), containers.WithRestartDelay(300*time.Millisecond),
		containers.WithAgent("gateway", fault.TypeLeader, req("gateway", "leader", "planner"), containers.AgentRoutes("planner"), containers.AgentVolume("/state")),
		containers.WithAgent("planner", "planner", req("planner", "planner", "solver"), containers.AgentRoutes("solver"), containers.AgentVolume("/state")),
		containers.WithAgent("solver", fault.TypeWorker, req("solver", "worker", ""), containers.AgentVolume("/state")),
		containers.WithFaultHook(fault.LLMFailure, containers.FaultHook{
			Inject: func(_ context.Context, a *containers.Agent, f agentapi.Fault) error {
				record("inject " + a.ID + " " + f.Kind + " " + f.ErrorType)
				return nil
			},
			Lift: func(_ context.Context, a *containers.Agent) error { record("lift " + a.ID); return nil },
		}),
	)
	waitHealthy(t, rt, 10*time.Second)
	if a, _ := rt.Agent("solver"); !strings.HasPrefix(a.Endpoint(), "http://") || a.Volume == "" {
		t.Errorf("solver: endpoint %q, volume %q", a.Endpoint(), a.Volume)
	}
	eventually(t, 10*time.Second, "tasks to reach the solver", func() (bool, string) {
		st := state(t, rt, "solver")
		return st.Tasks.Done >= 2, fmt.Sprintf("%+v", st.Tasks)
	})

	t.Run("kill through the API and the supervisor", func(t *testing.T) {
		accepted := state(t, rt, "solver").Tasks.Accepted
		if err := rt.StopAgent(ctx, "solver"); err != nil {
			t.Fatal(err)
		}
		eventually(t, 10*time.Second, "the supervisor to restart the solver", func() (bool, string) {
			info, err := rt.ListAgents(ctx)
			if err != nil {
				return false, err.Error()
			}
			return info[2].ID == "solver" && info[2].Restarts == 1 && info[2].Status == fault.StatusRunning, fmt.Sprintf("%+v", info[2])
		})
		// Docker itself did not restart it: a kill through its API is a stop.
		if n := inspect(t, rt, "solver").RestartCount; n != 0 {
			t.Errorf("docker RestartCount = %d, want 0 (the supervisor restarted it)", n)
		}
		eventually(t, 5*time.Second, "the solver to answer", func() (bool, string) {
			code, err := healthFromOutside(rt, "solver", time.Second)
			return err == nil && code == 200, fmt.Sprint(code, err)
		})
		if got := state(t, rt, "solver").Tasks.Accepted; got < accepted {
			t.Errorf("solver accepted %d tasks before the kill, %d after", accepted, got)
		}
	})

	t.Run("hook", func(t *testing.T) {
		lift, err := rt.InjectLLMFailure(ctx, "solver", fault.LLMOverloaded)
		if err != nil {
			t.Fatal(err)
		}
		if err := lift(ctx); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := strings.Join(hooked, "; ")
		mu.Unlock()
		if want := "inject solver llm_failure overloaded; lift solver"; got != want {
			t.Errorf("hook calls %q, want %q", got, want)
		}
		if f := state(t, rt, "solver").Faults; len(f) != 0 {
			t.Errorf("the hook's fault reached the agent's endpoint: %+v", f)
		}
	})

	t.Run("probe by type", func(t *testing.T) {
		waitHealthy(t, rt, 10*time.Second)
		for _, tt := range []struct{ id, want string }{
			{"planner", "planner unavailable: planner: no answer within 100ms"},
			{"solver", "quorum lost: 0 of 1 workers available"},
		} {
			if _, err := rt.PauseAgent(ctx, tt.id); err != nil {
				t.Fatal(err)
			}
			if err := rt.Probe(ctx); err == nil || err.Error() != tt.want {
				t.Errorf("Probe with %s paused = %v, want %q", tt.id, err, tt.want)
			}
			if err := rt.ResumeAgent(ctx, tt.id); err != nil {
				t.Fatal(err)
			}
		}
		waitHealthy(t, rt, 10*time.Second)
	})

	t.Run("DAG", func(t *testing.T) {
		edges, _ := rt.ListEdges(ctx)
		want := []fault.Edge{{Source: "gateway", Target: "planner"}, {Source: "planner", Target: "solver"}}
		if fmt.Sprint(edges) != fmt.Sprint(want) {
			t.Errorf("ListEdges = %v, want %v", edges, want)
		}
		if err := rt.RemoveEdge(ctx, "gateway", "solver"); !errors.Is(err, containers.ErrNoEdge) {
			t.Errorf("RemoveEdge(gateway, solver) = %v, want ErrNoEdge", err)
		}
	})
}

// TestChecksCatchALostLedger keeps the reference agents' ledgers in memory
// only (no volume): a killed worker comes back without the tasks it had
// accepted, and the tasks check says so.
func TestChecksCatchALostLedger(t *testing.T) {
	t.Parallel()
	rt := containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(1),
		containers.WithReferenceEnv(map[string]string{"AGENTD_DATA": ""}))
	ctx := context.Background()
	tasks := rt.Checks()[0]
	eventually(t, 10*time.Second, "tasks handed to worker-1", func() (bool, string) {
		n := len(state(t, rt, "orchestrator-0").Ledger.Handed["worker-1"])
		return n >= 3, fmt.Sprint(n)
	})
	if err := tasks.Run(ctx); err != nil {
		t.Fatalf("tasks check before the kill: %v", err)
	}
	before := inspect(t, rt, "worker-1").RestartCount
	if err := rt.StopAgent(ctx, "worker-1"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "worker-1 to restart", func() (bool, string) {
		code, err := healthFromOutside(rt, "worker-1", time.Second)
		return inspect(t, rt, "worker-1").RestartCount > before && err == nil && code == 200, fmt.Sprint(code, err)
	})
	err := tasks.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "tasks lost") || !strings.Contains(err.Error(), "orchestrator-0->worker-1") {
		t.Errorf("tasks check after the kill = %v, want tasks lost", err)
	}
}
