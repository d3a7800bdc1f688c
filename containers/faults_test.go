package containers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/fault"
)

// TestFaults lands each agent and DAG fault on a reference cluster through
// an arena service (the network faults are Proxied's: links_test.go), and
// observes its effect from outside: through
// the Docker API, the agents' mapped ports, and what the agents report.
// The subtests share the cluster and run in order; each leaves it healthy.
func TestFaults(t *testing.T) {
	t.Parallel()
	rt := containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(3))
	svc := service(rt)
	ctx := context.Background()
	waitHealthy(t, rt, 10*time.Second)

	kill := func(t *testing.T, a fault.Action, id string) {
		eventually(t, 5*time.Second, "a checkpoint of "+id, func() (bool, string) {
			return !state(t, rt, id).Memory.CheckpointAt.IsZero(), "none yet"
		})
		before := inspect(t, rt, id)
		started := state(t, rt, id).Started
		// A prober samples the system from before the kill until after it,
		// as a run's observer would: the restart may be quicker than any
		// poll started after the kill.
		seen := make(chan string, 1)
		stop := make(chan struct{})
		go func() {
			defer close(seen)
			for {
				if err := rt.Probe(ctx); err != nil && strings.Contains(err.Error(), id) {
					seen <- err.Error()
					return
				}
				select {
				case <-stop:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
		res := execute(t, svc, a)
		if res.Action.TargetID != id {
			t.Fatalf("%s hit %q, want %q", a.Type, res.Action.TargetID, id)
		}
		// The probe sees the loss of a role (a worker's is covered by the
		// quorum)…
		time.AfterFunc(3*time.Second, func() { close(stop) })
		if why, ok := <-seen; a.Type != fault.KillAgent && !ok {
			t.Errorf("the probe never saw %s gone", id)
		} else if ok {
			t.Logf("probe: %s", why)
		}
		// …Docker's restart policy resurrects it, and counts it…
		eventually(t, 10*time.Second, "RestartCount of "+id+" to rise", func() (bool, string) {
			now := inspect(t, rt, id)
			return now.RestartCount > before.RestartCount && now.State.Running,
				fmt.Sprintf("restarts %d→%d, %s", before.RestartCount, now.RestartCount, now.State.Status)
		})
		if now := inspect(t, rt, id); now.State.Pid == before.State.Pid {
			t.Errorf("%s still runs as pid %d", id, now.State.Pid)
		}
		// …and it is a new process that took up its ledger from the volume.
		waitHealthy(t, rt, 10*time.Second)
		eventually(t, 5*time.Second, id+" answers again", func() (bool, string) {
			code, err := healthFromOutside(rt, id, time.Second)
			return err == nil && code == 200, fmt.Sprint(code, err)
		})
		st := state(t, rt, id)
		if !st.Started.After(started) {
			t.Errorf("%s started at %s, as before the kill", id, st.Started)
		}
		if st.Memory.Restores == 0 {
			t.Errorf("%s did not restore its memory from the checkpoint: %+v", id, st.Memory)
		}
		info, _ := rt.ListAgents(ctx)
		for _, ai := range info {
			if ai.ID == id && ai.Restarts == 0 {
				t.Errorf("ListAgents: %+v, want restarts counted", ai)
			}
		}
	}

	t.Run("kill_leader", func(t *testing.T) {
		kill(t, fault.Action{Type: fault.KillLeader}, "leader-0")
	})
	t.Run("kill_orchestrator", func(t *testing.T) {
		kill(t, fault.Action{Type: fault.KillOrchestrator}, "orchestrator-0")
	})
	t.Run("kill_agent", func(t *testing.T) {
		accepted := state(t, rt, "worker-1").Tasks.Accepted
		kill(t, fault.Action{Type: fault.KillAgent, TargetID: "worker-1"}, "worker-1")
		if got := state(t, rt, "worker-1").Tasks.Accepted; got < accepted {
			t.Errorf("worker-1 had accepted %d tasks before the kill, %d after: its ledger was lost", accepted, got)
		}
		for _, c := range rt.Checks() {
			if err := c.Run(ctx); err != nil {
				t.Errorf("check %s after the kill: %v", c.Name, err)
			}
		}
	})

	t.Run("pause_agent", func(t *testing.T) {
		pause := execute(t, svc, fault.Action{Type: fault.PauseAgent, TargetID: "worker-2"})
		if !inspect(t, rt, "worker-2").State.Paused {
			t.Fatal("docker inspect: worker-2 not paused")
		}
		// The health request times out: the process is frozen, not dead.
		code, err := healthFromOutside(rt, "worker-2", 500*time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), "Timeout") {
			t.Errorf("health of a paused agent = %d, %v; want a timeout", code, err)
		}
		if info, _ := rt.ListAgents(ctx); info[3].ID != "worker-2" || info[3].Status != fault.StatusPaused {
			t.Errorf("ListAgents: %+v, want worker-2 paused", info[3])
		}
		if err := svc.LiftFault(ctx, pause.Action.ID); err != nil {
			t.Fatal(err)
		}
		if code, err := healthFromOutside(rt, "worker-2", time.Second); err != nil || code != 200 {
			t.Errorf("health after the lift = %d, %v; want 200", code, err)
		}
	})

	t.Run("resume_agent", func(t *testing.T) {
		if _, err := rt.PauseAgent(ctx, "worker-3"); err != nil {
			t.Fatal(err)
		}
		res := svc.Execute(ctx, fault.Action{Type: fault.ResumeAgent, TargetID: "worker-1"})
		if res.Success || !strings.Contains(res.Error, "not paused") {
			t.Errorf("resume of a running agent = %+v, want it refused", res)
		}
		execute(t, svc, fault.Action{Type: fault.ResumeAgent, TargetID: "worker-3"})
		if inspect(t, rt, "worker-3").State.Paused {
			t.Error("docker inspect: worker-3 still paused")
		}
		if code, err := healthFromOutside(rt, "worker-3", time.Second); err != nil || code != 200 {
			t.Errorf("health after resume = %d, %v; want 200", code, err)
		}
	})

	t.Run("slow_agent", func(t *testing.T) {
		base := state(t, rt, "worker-3").Attempts.LastWork.D()
		throttledBefore := throttledPeriods(t, rt, "worker-3")
		slow := execute(t, svc, fault.Action{Type: fault.SlowAgent, TargetID: "worker-3",
			Metadata: map[string]any{"delay": "2s"}})
		hc := inspect(t, rt, "worker-3").HostConfig
		// 100ms of work made 2s longer: 100/2100 of a CPU.
		if want := int64(100_000 * 100 / 2100); hc.CPUPeriod != 100_000 || hc.CPUQuota != want {
			t.Errorf("docker inspect: CPU quota %d/%d, want %d/100000", hc.CPUQuota, hc.CPUPeriod, want)
		}
		eventually(t, 10*time.Second, "the kernel to throttle worker-3", func() (bool, string) {
			n := throttledPeriods(t, rt, "worker-3")
			return n > throttledBefore+3, fmt.Sprintf("%d → %d throttled periods", throttledBefore, n)
		})
		eventually(t, 10*time.Second, "worker-3's work to take longer", func() (bool, string) {
			w := state(t, rt, "worker-3").Attempts.LastWork.D()
			return w > 3*base, fmt.Sprintf("%s, unthrottled %s", w, base)
		})
		if err := svc.LiftFault(ctx, slow.Action.ID); err != nil {
			t.Fatal(err)
		}
		if hc := inspect(t, rt, "worker-3").HostConfig; hc.CPUQuota > 0 {
			t.Errorf("docker inspect after the lift: CPU quota %d, want none", hc.CPUQuota)
		}
	})

	t.Run("network_partition", func(t *testing.T) {
		part := execute(t, svc, fault.Action{Type: fault.NetworkPartition, TargetID: "worker-1"})
		if nets := inspect(t, rt, "worker-1").NetworkSettings.Networks; nets[rt.Network()] != nil {
			t.Errorf("docker inspect: worker-1 still on %s", rt.Network())
		}
		if code, err := healthFromOutside(rt, "worker-1", 500*time.Millisecond); err == nil {
			t.Errorf("health of a partitioned agent = %d, want no answer", code)
		}
		if err := svc.LiftFault(ctx, part.Action.ID); err != nil {
			t.Fatal(err)
		}
		if nets := inspect(t, rt, "worker-1").NetworkSettings.Networks; nets[rt.Network()] == nil {
			t.Errorf("docker inspect after the lift: worker-1 not on %s", rt.Network())
		}
		eventually(t, 2*time.Second, "worker-1 reachable again", func() (bool, string) {
			code, err := healthFromOutside(rt, "worker-1", 500*time.Millisecond)
			return err == nil && code == 200, fmt.Sprint(code, err)
		})
		// Its peers reach it again too: the orchestrator hands it tasks.
		handed := len(state(t, rt, "orchestrator-0").Ledger.Handed["worker-1"])
		eventually(t, 5*time.Second, "the orchestrator to hand worker-1 tasks again", func() (bool, string) {
			n := len(state(t, rt, "orchestrator-0").Ledger.Handed["worker-1"])
			return n > handed, fmt.Sprint(n)
		})
	})

	t.Run("network_partition_heals", func(t *testing.T) {
		// Nothing lifts this one: the network heals after 3s on its own.
		execute(t, svc, fault.Action{Type: fault.NetworkPartition, TargetID: "worker-2"})
		start := time.Now()
		if _, err := healthFromOutside(rt, "worker-2", 300*time.Millisecond); err == nil {
			t.Error("partitioned worker-2 answered")
		}
		eventually(t, 8*time.Second, "the partition to heal", func() (bool, string) {
			code, err := healthFromOutside(rt, "worker-2", 300*time.Millisecond)
			return err == nil && code == 200, fmt.Sprint(code, err)
		})
		if d := time.Since(start); d < 2500*time.Millisecond {
			t.Errorf("healed after %s, want about 3s", d)
		}
		eventually(t, time.Second, "the runtime to know", func() (bool, string) { return !rt.Partitioned("worker-2"), "partitioned" })
	})

	agentFault := func(t *testing.T, a fault.Action, kind, failure string) fault.Result {
		res := execute(t, svc, a)
		st := state(t, rt, a.TargetID)
		if !slices.ContainsFunc(st.Faults, func(f agentapi.ActiveFault) bool { return f.Kind == kind }) {
			t.Fatalf("%s reports faults %+v, want %s", a.TargetID, st.Faults, kind)
		}
		before := st.Attempts.Failed[failure]
		eventually(t, 10*time.Second, "attempts to fail with "+failure, func() (bool, string) {
			n := state(t, rt, a.TargetID).Attempts.Failed[failure]
			return n > before, fmt.Sprint(n)
		})
		return res
	}

	t.Run("tool_timeout", func(t *testing.T) {
		res := agentFault(t, fault.Action{Type: fault.ToolTimeout, TargetID: "worker-2",
			Metadata: map[string]any{"timeout": "300ms"}}, agentapi.KindToolTimeout, "tool_timeout")
		if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
			t.Fatal(err)
		}
		if f := state(t, rt, "worker-2").Faults; len(f) != 0 {
			t.Errorf("faults after the lift: %+v", f)
		}
	})

	t.Run("mcp_disconnect", func(t *testing.T) {
		agentFault(t, fault.Action{Type: fault.MCPDisconnect, TargetID: "worker-3"},
			agentapi.KindMCPDisconnect, "mcp_disconnect")
		// agentd reconnects on its own after 1s.
		eventually(t, 3*time.Second, "the MCP session to reconnect", func() (bool, string) {
			f := state(t, rt, "worker-3").Faults
			return len(f) == 0, fmt.Sprint(f)
		})
	})

	t.Run("llm_failure", func(t *testing.T) {
		res := agentFault(t, fault.Action{Type: fault.LLMFailure, TargetID: "worker-1",
			Metadata: map[string]any{"error_type": "overloaded"}}, agentapi.KindLLMFailure, "llm_failure:overloaded")
		if f := state(t, rt, "worker-1").Faults; f[0].ErrorType != "overloaded" {
			t.Errorf("fault = %+v, want error type overloaded", f[0])
		}
		if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("memory_corrupt", func(t *testing.T) {
		eventually(t, 5*time.Second, "a checkpoint of worker-3", func() (bool, string) {
			return !state(t, rt, "worker-3").Memory.CheckpointAt.IsZero(), "none yet"
		})
		restores := state(t, rt, "worker-3").Memory.Restores
		execute(t, svc, fault.Action{Type: fault.MemoryCorrupt, TargetID: "worker-3"})
		// The tick after the corruption restores the memory from the checkpoint.
		eventually(t, 3*time.Second, "worker-3's memory restored", func() (bool, string) {
			m := state(t, rt, "worker-3").Memory
			return m.OK && m.Restores > restores, fmt.Sprintf("%+v", m)
		})
	})

	t.Run("remove_node", func(t *testing.T) {
		execute(t, svc, fault.Action{Type: fault.RemoveNode, TargetID: "worker-2"})
		nodes, _ := rt.ListNodes(ctx)
		if slices.Contains(nodes, "worker-2") {
			t.Errorf("ListNodes = %v, want worker-2 gone", nodes)
		}
		if err := rt.Probe(ctx); err == nil || !strings.Contains(err.Error(), "dag broken: node worker-2 removed") {
			t.Errorf("Probe = %v, want the DAG broken", err)
		}
		// agentd repairs the DAG after 1s.
		eventually(t, 3*time.Second, "worker-2 back in the DAG", func() (bool, string) {
			nodes, _ := rt.ListNodes(ctx)
			return slices.Contains(nodes, "worker-2"), fmt.Sprint(nodes)
		})
	})

	t.Run("remove_edge", func(t *testing.T) {
		execute(t, svc, fault.Action{Type: fault.RemoveEdge, SourceID: "orchestrator-0", TargetID: "worker-3"})
		edges, _ := rt.ListEdges(ctx)
		if slices.Contains(edges, fault.Edge{Source: "orchestrator-0", Target: "worker-3"}) {
			t.Errorf("ListEdges = %v, want orchestrator-0->worker-3 gone", edges)
		}
		if err := rt.Probe(ctx); err == nil || !strings.Contains(err.Error(), "missing edge orchestrator-0->worker-3") {
			t.Errorf("Probe = %v, want the edge missing", err)
		}
		eventually(t, 3*time.Second, "the edge repaired", func() (bool, string) {
			edges, _ := rt.ListEdges(ctx)
			return len(edges) == 4, fmt.Sprint(edges)
		})
	})

	t.Run("refusals", func(t *testing.T) {
		for _, tt := range []struct {
			a    fault.Action
			want error
		}{
			{fault.Action{Type: fault.KillAgent, TargetID: "nobody"}, fault.ErrNoAgent},
			{fault.Action{Type: fault.RemoveEdge, SourceID: "worker-1", TargetID: "leader-0"}, containers.ErrNoEdge},
		} {
			if res := svc.Execute(ctx, tt.a); res.Success || !errors.Is(res.Err, tt.want) {
				t.Errorf("Execute(%s %s) = %v, want %v", tt.a.Type, tt.a.TargetID, res.Err, tt.want)
			}
		}
		lift, err := rt.PartitionNetwork(ctx, "worker-1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.PartitionNetwork(ctx, "worker-1"); !errors.Is(err, fault.ErrCannotLand) {
			t.Errorf("second partition = %v, want fault.ErrCannotLand", err)
		}
		if _, err := rt.ToolTimeout(ctx, "worker-1", time.Second); !errors.Is(err, fault.ErrCannotLand) {
			t.Errorf("tool_timeout of a partitioned agent = %v, want fault.ErrCannotLand", err)
		}
		if err := lift(ctx); err != nil {
			t.Fatal(err)
		}
	})

	waitHealthy(t, rt, 10*time.Second)
	for _, c := range rt.Checks() {
		if err := c.Run(ctx); err != nil {
			t.Errorf("check %s at the end: %v", c.Name, err)
		}
	}
}

// throttledPeriods reads the CFS periods in which the container was
// throttled, from Docker's stats.
func throttledPeriods(t *testing.T, rt *containers.Runtime, id string) uint64 {
	t.Helper()
	a, _ := rt.Agent(id)
	res, err := rt.Docker().ContainerStats(context.Background(), a.ContainerID(), client.ContainerStatsOptions{})
	if err != nil {
		t.Fatalf("stats of %s: %v", id, err)
	}
	defer res.Body.Close()
	var s struct {
		CPUStats struct {
			Throttling struct {
				Periods uint64 `json:"throttled_periods"`
			} `json:"throttling_data"`
		} `json:"cpu_stats"`
	}
	if err := json.NewDecoder(res.Body).Decode(&s); err != nil {
		t.Fatalf("stats of %s: %v", id, err)
	}
	return s.CPUStats.Throttling.Periods
}
