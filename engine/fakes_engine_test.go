package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// rig is a service over a fresh fake cluster on a virtual clock.
type rig struct {
	clock   *clock.Virtual
	cluster *fakes.Cluster
	svc     *engine.Service
	store   *events.MemoryStore
}

func newRig(opts ...fakes.Option) *rig {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(append([]fakes.Option{fakes.WithClock(clk)}, opts...)...)
	store := events.NewMemoryStore()
	svc := engine.NewService(fault.NewInjector(c, c), store, nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
	return &rig{clock: clk, cluster: c, svc: svc, store: store}
}

func (e *rig) run(t *testing.T, d time.Duration, steps ...engine.Step) *engine.Report {
	t.Helper()
	rep, err := engine.RunSchedule(context.Background(), e.svc, engine.RunOptions{Seed: 1, Duration: d}, steps...)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.InjectionErrors) > 0 {
		t.Fatalf("injection errors: %+v", rep.InjectionErrors)
	}
	return rep
}

func at(d time.Duration, typ fault.Type, target string, meta map[string]any) engine.Step {
	return engine.Step{At: d, Action: fault.Action{Type: typ, TargetID: target, Metadata: meta}}
}

// noFailover makes role losses heal only by resurrection, so TTRs are the
// resurrection delay exactly.
var noFailover = fakes.WithoutFailover()

// TestEveryFaultHealsOnTheFakes: the fault types against the fake
// cluster, with the TTR computed by hand from the healing knobs. The probe
// samples every 100ms; faults land on a sample instant, and the sample at
// that instant sees the fault (same-instant rule), so TTR = healing delay.
func TestEveryFaultHealsOnTheFakes(t *testing.T) {
	s := time.Second
	cases := []struct {
		name    string
		opts    []fakes.Option
		steps   []engine.Step
		wantTTR []time.Duration // per landed fault; -1 = recovered without degrading (TTR 0)
	}{
		{"kill_leader resurrected after 2s", []fakes.Option{noFailover, fakes.WithResurrection(2 * s)},
			[]engine.Step{at(s, fault.KillLeader, "", nil)}, []time.Duration{2 * s}},
		{"kill_leader failover after 1s", []fakes.Option{fakes.WithFailover(s, 0)},
			[]engine.Step{at(s, fault.KillLeader, "", nil)}, []time.Duration{s}},
		{"kill_orchestrator failover after 1.5s", []fakes.Option{fakes.WithFailover(1500*time.Millisecond, 0), fakes.WithResurrection(5 * s)},
			[]engine.Step{at(s, fault.KillOrchestrator, "", nil)}, []time.Duration{1500 * time.Millisecond}},
		{"kill_agent below quorum resurrected after 2s", []fakes.Option{fakes.WithWorkers(2), fakes.WithResurrection(2 * s)},
			[]engine.Step{at(s, fault.KillAgent, "worker-1", nil)}, []time.Duration{2 * s}},
		{"kill_agent above quorum does not degrade", []fakes.Option{fakes.WithWorkers(3)},
			[]engine.Step{at(s, fault.KillAgent, "worker-1", nil)}, []time.Duration{-1}},
		{"pause_agent lifted after 1.5s", []fakes.Option{fakes.WithWorkers(2)},
			[]engine.Step{at(s, fault.PauseAgent, "worker-2", map[string]any{"duration": "1.5s"})}, []time.Duration{1500 * time.Millisecond}},
		{"resume_agent ends a pause after 3s", []fakes.Option{fakes.WithWorkers(2)},
			[]engine.Step{at(s, fault.PauseAgent, "worker-2", nil), at(4*s, fault.ResumeAgent, "worker-2", nil)},
			[]time.Duration{3 * s, -1}},
		{"slow_agent on the leader lifted after 2s", []fakes.Option{noFailover},
			[]engine.Step{at(s, fault.SlowAgent, "leader-0", map[string]any{"delay": "5s", "duration": 2})}, []time.Duration{2 * s}},
		{"network_partition healed after 3s", []fakes.Option{fakes.WithWorkers(2), fakes.WithPartitionHealing(3 * s)},
			[]engine.Step{at(s, fault.NetworkPartition, "worker-1", nil)}, []time.Duration{3 * s}},
		{"network_partition lifted after 1s", []fakes.Option{fakes.WithWorkers(2), fakes.WithPartitionHealing(3 * s)},
			[]engine.Step{at(s, fault.NetworkPartition, "worker-1", map[string]any{"duration": "1s"})}, []time.Duration{s}},
		{"tool_timeout routed around by retries", nil,
			[]engine.Step{at(s, fault.ToolTimeout, "worker-1", map[string]any{"timeout": "2s", "duration": "10s"})}, []time.Duration{-1}},
		{"memory_corrupt routed around by retries", nil,
			[]engine.Step{at(1500*time.Millisecond, fault.MemoryCorrupt, "worker-1", nil)}, []time.Duration{-1}},
		{"mcp_disconnect routed around by retries", nil,
			[]engine.Step{at(s, fault.MCPDisconnect, "worker-1", nil)}, []time.Duration{-1}},
		{"llm_failure routed around by retries", nil,
			[]engine.Step{at(s, fault.LLMFailure, "worker-1", map[string]any{"error_type": "invalid_response", "duration": "5s"})}, []time.Duration{-1}},
		{"remove_node repaired after 1s", []fakes.Option{fakes.WithDAGRepair(s)},
			[]engine.Step{at(s, fault.RemoveNode, "worker-2", nil)}, []time.Duration{s}},
		{"remove_edge repaired after 2s", []fakes.Option{fakes.WithDAGRepair(2 * s)},
			[]engine.Step{{At: s, Action: fault.Action{Type: fault.RemoveEdge, SourceID: "orchestrator-0", TargetID: "worker-3"}}}, []time.Duration{2 * s}},
		{"network_latency on the leader replaced by election after 1s", []fakes.Option{fakes.WithFailover(s, 0)},
			[]engine.Step{at(s, fault.NetworkLatency, "leader-0", map[string]any{"latency": "2s", "duration": "10s"})}, []time.Duration{s}},
		{"network_latency on the leader lifted after 2s", []fakes.Option{noFailover},
			[]engine.Step{at(s, fault.NetworkLatency, "leader-0", map[string]any{"latency": "2s", "duration": "2s"})}, []time.Duration{2 * s}},
		{"network_latency past the deadline routed around by retries", nil,
			[]engine.Step{at(s, fault.NetworkLatency, "worker-1", map[string]any{"latency": "4s", "duration": "10s"})}, []time.Duration{-1}},
		{"network_bandwidth routed around by retries", nil,
			[]engine.Step{at(s, fault.NetworkBandwidth, "worker-2", map[string]any{"rate": 5000, "duration": "10s"})}, []time.Duration{-1}},
		{"connection_reset routed around by retries", nil,
			[]engine.Step{at(s, fault.ConnectionReset, "worker-3", map[string]any{"duration": "10s"})}, []time.Duration{-1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := newRig(tc.opts...).run(t, 20*time.Second, tc.steps...)
			if len(rep.Faults) != len(tc.wantTTR) {
				t.Fatalf("faults = %d, want %d", len(rep.Faults), len(tc.wantTTR))
			}
			for i, want := range tc.wantTTR {
				f := rep.Faults[i]
				if !f.Recovered {
					t.Errorf("fault %d (%s) unrecovered:\n%s", i, f.Action.Type, rep)
					continue
				}
				if want < 0 {
					if f.Degraded || f.TTR != 0 {
						t.Errorf("fault %d (%s): degraded %v TTR %s, want no impact", i, f.Action.Type, f.Degraded, f.TTR)
					}
					continue
				}
				if f.TTR.D() != want {
					t.Errorf("fault %d (%s): TTR = %s, want %s\n%s", i, f.Action.Type, f.TTR, want, rep)
				}
			}
		})
	}
}

// TestFaultsWithoutHealing: with the healing mechanism off, the same faults
// stay unrecovered, or show up in the consistency checks.
func TestFaultsWithoutHealing(t *testing.T) {
	s := time.Second
	cases := []struct {
		name        string
		opts        []fakes.Option
		step        engine.Step
		recovered   bool
		failedCheck string
	}{
		{"kill_leader", []fakes.Option{fakes.WithoutResurrection(), noFailover}, at(s, fault.KillLeader, "", nil), false, ""},
		{"kill_agent below quorum", []fakes.Option{fakes.WithWorkers(2), fakes.WithoutResurrection()}, at(s, fault.KillAgent, "worker-1", nil), false, ""},
		{"network_partition", []fakes.Option{fakes.WithWorkers(2), fakes.WithoutPartitionHealing()}, at(s, fault.NetworkPartition, "worker-2", nil), false, ""},
		{"tool_timeout", []fakes.Option{fakes.WithoutRetries()}, at(s, fault.ToolTimeout, "worker-1", nil), false, ""},
		{"llm_failure", []fakes.Option{fakes.WithoutRetries()}, at(s, fault.LLMFailure, "worker-1", nil), false, ""},
		{"mcp_disconnect", []fakes.Option{fakes.WithoutRetries(), fakes.WithoutMCPReconnect()}, at(s, fault.MCPDisconnect, "worker-1", nil), false, ""},
		{"memory_corrupt", []fakes.Option{fakes.WithoutCheckpoints()}, at(s, fault.MemoryCorrupt, "worker-1", nil), true, "memory"},
		{"remove_node", []fakes.Option{fakes.WithoutDAGRepair()}, at(s, fault.RemoveNode, "worker-1", nil), false, "dag"},
		{"kill_agent loses tasks", []fakes.Option{fakes.WithoutCheckpoints(), fakes.WithTaskDuration(time.Second)}, at(s, fault.KillAgent, "worker-1", nil), true, "tasks"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := newRig(tc.opts...).run(t, 40*time.Second, tc.step)
			f := rep.Faults[0]
			if f.Recovered != tc.recovered {
				t.Fatalf("recovered = %v, want %v\n%s", f.Recovered, tc.recovered, rep)
			}
			if !tc.recovered && (rep.Score.Recovery.Score != 0 || !rep.Score.Recovery.Measured) {
				t.Errorf("recovery = %+v, want measured 0 for the one unrecovered fault", rep.Score.Recovery)
			}
			if tc.failedCheck == "" {
				return
			}
			var failed bool
			for _, c := range rep.Checks {
				if c.Name == tc.failedCheck && !c.Passed {
					failed = true
				}
			}
			if !failed || rep.Score.Consistency.Score == 100 {
				t.Errorf("check %q did not fail: %+v", tc.failedCheck, rep.Checks)
			}
		})
	}
}

// TestScoreOfAKillIsComputable pins a whole report on the fakes against the
// formulas by hand: leader killed at 1s, resurrected at 3s, 10s observed.
func TestScoreOfAKillIsComputable(t *testing.T) {
	rep := newRig(noFailover, fakes.WithResurrection(2*time.Second)).run(t, 20*time.Second, at(time.Second, fault.KillLeader, "", nil))
	// 201 samples (0s…20s), unhealthy 1.0…2.9 = 20. Checks: 3 after the
	// recovery is settled (11s) + 3 at the end, all passing.
	a := 100 * 181.0 / 201
	r := 100 * (0.7 + 0.3*8.0/9.0)
	want := 0.4*a + 0.3*r + 0.3*100
	if rep.Samples != 201 || rep.HealthySamples != 181 || len(rep.Checks) != 6 {
		t.Fatalf("samples %d healthy %d checks %d, want 201, 181, 6", rep.Samples, rep.HealthySamples, len(rep.Checks))
	}
	if d := rep.Score.Total - want; d > 1e-9 || d < -1e-9 {
		t.Errorf("total = %.6f, want %.6f", rep.Score.Total, want)
	}
	if rep.Score.Grade != engine.GradeAPlus {
		t.Errorf("grade = %s, want A+ (%.2f)", rep.Score.Grade, want)
	}
	info, _ := newRig().cluster.Agent("leader-0")
	if info.Restarts != 0 {
		t.Errorf("fresh cluster restarts = %d", info.Restarts)
	}

	// Without resurrection: unrecovered. The run observes past its 10s
	// until the fault's recovery deadline (30s after 1s) has passed, to the
	// sample at 31.1s: A = 10/312 (0.0…0.9 healthy), R = 0, C = 3/3 at the
	// end (no recovery, so no recovery checks).
	rep = newRig(noFailover, fakes.WithoutResurrection()).run(t, 10*time.Second, at(time.Second, fault.KillLeader, "", nil))
	if rep.Samples != 312 || rep.Overtime.D() != 21100*time.Millisecond {
		t.Errorf("samples %d overtime %s, want 312 and 21.1s (to the first sample past the deadline)", rep.Samples, rep.Overtime)
	}
	a = 100 * 10.0 / 312
	want = 0.4*a + 0.3*0 + 0.3*100
	if d := rep.Score.Total - want; d > 1e-9 || d < -1e-9 || rep.Unrecovered != 1 {
		t.Errorf("total = %.6f unrecovered %d, want %.6f and 1", rep.Score.Total, rep.Unrecovered, want)
	}
	if rep.Score.Grade != engine.GradeF {
		t.Errorf("grade = %s, want F", rep.Score.Grade)
	}
}
