package fakes

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

func TestNewClusterStartsHealthy(t *testing.T) {
	s := newClusterSim(t)
	agents, err := s.c.ListAgents(bgCtx)
	if err != nil {
		t.Fatal(err)
	}
	want := []fault.AgentInfo{
		{ID: "leader-0", Type: fault.TypeLeader, Status: fault.StatusRunning},
		{ID: "orchestrator-0", Type: fault.TypeOrchestrator, Status: fault.StatusRunning},
		{ID: "worker-1", Type: fault.TypeWorker, Status: fault.StatusRunning},
		{ID: "worker-2", Type: fault.TypeWorker, Status: fault.StatusRunning},
		{ID: "worker-3", Type: fault.TypeWorker, Status: fault.StatusRunning},
	}
	if diff := cmp.Diff(want, agents); diff != "" {
		t.Errorf("ListAgents (-want +got):\n%s", diff)
	}
	if got := s.c.Leader(); got != "leader-0" {
		t.Errorf("Leader() = %q, want leader-0", got)
	}
	if got := s.c.Orchestrator(); got != "orchestrator-0" {
		t.Errorf("Orchestrator() = %q, want orchestrator-0", got)
	}
	nodes, _ := s.c.ListNodes(bgCtx)
	if diff := cmp.Diff([]string{"leader-0", "orchestrator-0", "worker-1", "worker-2", "worker-3"}, nodes); diff != "" {
		t.Errorf("ListNodes (-want +got):\n%s", diff)
	}
	edges, _ := s.c.ListEdges(bgCtx)
	wantEdges := []fault.Edge{
		{Source: "leader-0", Target: "orchestrator-0"},
		{Source: "orchestrator-0", Target: "worker-1"},
		{Source: "orchestrator-0", Target: "worker-2"},
		{Source: "orchestrator-0", Target: "worker-3"},
	}
	if diff := cmp.Diff(wantEdges, edges); diff != "" {
		t.Errorf("ListEdges (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]probeChange{{0, ""}}, s.timeline(60*time.Second)); diff != "" {
		t.Errorf("timeline without faults (-want +got):\n%s", diff)
	}
	if got := s.checks(); len(got) != 0 {
		t.Errorf("checks failed without faults: %v", got)
	}
	st := s.c.Tasks()
	ledgerBalances(t, st)
	if st.Created < 200 || st.Completed < st.Created-5 || st.Failed != 0 || st.Lost != 0 || st.Retries != 0 {
		t.Errorf("Tasks() after 60s without faults = %+v, want ~240 created, all completed", st)
	}
	if got := s.c.Clock(); got != clock.Clock(s.clock) {
		t.Errorf("Clock() = %v, want the virtual clock", got)
	}
}

func TestNewClusterManyWorkersSortedByID(t *testing.T) {
	s := newClusterSim(t, WithWorkers(10))
	agents, _ := s.c.ListAgents(bgCtx)
	var ids []string
	for _, a := range agents {
		ids = append(ids, a.ID)
	}
	want := "leader-0 orchestrator-0 worker-1 worker-10 worker-2 worker-3 worker-4 worker-5 worker-6 worker-7 worker-8 worker-9"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("ListAgents IDs = %s, want %s", got, want)
	}
	s.must(s.c.StopAgent(bgCtx, "worker-1"))
	s.must(s.c.StopAgent(bgCtx, "worker-2"))
	s.must(s.c.StopAgent(bgCtx, "worker-3"))
	s.must(s.c.StopAgent(bgCtx, "worker-4"))
	s.must(s.c.StopAgent(bgCtx, "worker-5"))
	if got, want := s.probe(), "quorum lost: 5 of 10 workers available"; got != want {
		t.Errorf("probe = %q, want %q", got, want)
	}
}

func TestOptionsPanic(t *testing.T) {
	tests := []struct {
		opt  Option
		want string
	}{
		{WithWorkers(0), "fakes: WithWorkers(0)"},
		{WithClock(nil), "fakes: WithClock(nil)"},
		{WithTaskInterval(0), "fakes: WithTaskInterval(0s)"},
		{WithTaskDuration(-time.Second), "fakes: WithTaskDuration(-1s)"},
		{WithTaskTimeout(0), "fakes: WithTaskTimeout(0s)"},
		{WithErrorThreshold(1.5), "fakes: WithErrorThreshold(1.5)"},
		{WithErrorThreshold(-0.1), "fakes: WithErrorThreshold(-0.1)"},
		{WithErrorThreshold(math.NaN()), "fakes: WithErrorThreshold(NaN)"},
		{WithErrorWindow(-time.Second), "fakes: WithErrorWindow(-1s)"},
		{WithResurrection(-time.Second), "fakes: WithResurrection(-1s)"},
		{WithFailover(0, 0), "fakes: WithFailover(0s)"},
		{WithFailover(time.Second, -1), "fakes: WithFailover(-1ns)"},
		{WithCheckpoints(0), "fakes: WithCheckpoints(0s)"},
		{WithDAGRepair(-1), "fakes: WithDAGRepair(-1ns)"},
		{WithRetries(-1, 0), "fakes: WithRetries(-1, 0s)"},
		{WithRetries(1, -1), "fakes: WithRetries(-1ns)"},
		{WithPartitionHealing(-1), "fakes: WithPartitionHealing(-1ns)"},
		{WithMCPReconnect(-1), "fakes: WithMCPReconnect(-1ns)"},
		{WithHealing(Healing{ResurrectionDelay: -1}), "fakes: WithHealing: ResurrectionDelay is negative"},
		{WithHealing(Healing{MaxRetries: -1}), "fakes: WithHealing: MaxRetries is negative"},
		{WithHealing(Healing{Checkpoints: true}), "fakes: WithHealing: CheckpointInterval must be positive"},
		{WithHealing(Healing{Failover: true}), "fakes: WithHealing: ElectionTimeout must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				if !strings.HasPrefix(msg, tt.want) {
					t.Errorf("NewCluster(%#v) panicked with %q, want prefix %q", tt.opt, r, tt.want)
				}
			}()
			NewCluster(WithClock(clock.NewVirtual(time.Time{})), tt.opt)
		})
	}
}

func TestOptionsAreComparable(t *testing.T) {
	if WithWorkers(3) != WithWorkers(3) || WithWorkers(3) == WithWorkers(4) {
		t.Error("WithWorkers values do not compare by value")
	}
	if WithHealing(DefaultHealing()) != WithHealing(DefaultHealing()) {
		t.Error("WithHealing(DefaultHealing()) values differ")
	}
	if WithoutHealing() != WithoutHealing() || WithRetries(3, time.Second) != WithRetries(3, time.Second) {
		t.Error("option values differ")
	}
	clk := clock.NewVirtual(time.Time{})
	if WithClock(clk) != WithClock(clk) {
		t.Error("WithClock values differ")
	}
	if WithResurrection(time.Second) == WithDAGRepair(time.Second) || WithoutResurrection() == WithoutDAGRepair() {
		t.Error("options of two mechanisms compare equal")
	}
	if WithRetries(3, time.Second) == WithRetries(4, time.Second) || WithFailover(time.Second, 0) == WithFailover(time.Second, 1) {
		t.Error("options with different knobs compare equal")
	}
	if WithoutRetries() != WithoutRetries() || WithRetries(0, 0) == WithoutRetries() {
		t.Error("WithoutRetries() values differ, or equal WithRetries(0, 0)")
	}
}

// TestHealingRejectsEveryNegativeKnob: WithHealing panics on each knob of
// Healing made negative, naming it, new knobs included.
func TestHealingRejectsEveryNegativeKnob(t *testing.T) {
	typ := reflect.TypeFor[Healing]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type.Kind() != reflect.Int64 && f.Type.Kind() != reflect.Int {
			continue
		}
		h := DefaultHealing()
		reflect.ValueOf(&h).Elem().Field(i).SetInt(-1)
		want := "fakes: WithHealing: " + f.Name + " is negative (-1)"
		if f.Type == reflect.TypeFor[time.Duration]() {
			want = "fakes: WithHealing: " + f.Name + " is negative (-1ns)"
		}
		func() {
			defer func() {
				if r := recover(); r != want {
					t.Errorf("NewCluster(WithHealing(%s: -1)) panicked with %v, want %q", f.Name, r, want)
				}
			}()
			NewCluster(WithClock(clock.NewVirtual(time.Time{})), WithHealing(h))
		}()
	}
}

// TestMechanismsCoverHealing: every switch of Healing belongs to one entry
// of mechanisms, so WithoutHealing, which follows the table, turns it off.
func TestMechanismsCoverHealing(t *testing.T) {
	var h Healing
	owner := map[*bool]int{}
	for m := range mechanisms {
		p := mechanisms[m].on(&h)
		if prev, ok := owner[p]; ok {
			t.Errorf("mechanisms %d and %d share a switch", prev, m)
		}
		owner[p] = m
	}
	v := reflect.ValueOf(&h).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Bool {
			if _, ok := owner[f.Addr().Interface().(*bool)]; !ok {
				t.Errorf("Healing.%s: no entry in mechanisms, so WithoutHealing leaves it on", v.Type().Field(i).Name)
			}
		}
	}
}

func TestHealingOptions(t *testing.T) {
	off := DefaultHealing()
	off.Resurrection, off.Failover, off.Checkpoints, off.DAGRepair = false, false, false, false
	off.Retries, off.PartitionHealing, off.MCPReconnect = false, false, false
	custom := Healing{
		Resurrection: true, ResurrectionDelay: 5 * time.Second,
		Failover: true, ElectionTimeout: 2 * time.Second, ElectionJitter: time.Second,
		Checkpoints: true, CheckpointInterval: 3 * time.Second,
		DAGRepair: true, DAGRepairDelay: 4 * time.Second,
		Retries: true, MaxRetries: 5, Backoff: time.Second, MaxReroutes: 2,
		PartitionHealing: true, PartitionHealDelay: 6 * time.Second,
		MCPReconnect: true, MCPReconnectDelay: 7 * time.Second,
	}
	tests := []struct {
		name string
		opts []Option
		want Healing
	}{
		{"default", nil, DefaultHealing()},
		{"without", []Option{WithoutHealing()}, off},
		{"replace", []Option{WithoutHealing(), WithHealing(custom)}, custom},
		{"per mechanism on", []Option{
			WithoutHealing(), WithResurrection(5 * time.Second), WithFailover(2*time.Second, time.Second),
			WithCheckpoints(3 * time.Second), WithDAGRepair(4 * time.Second), WithRetries(5, time.Second),
			WithPartitionHealing(6 * time.Second), WithMCPReconnect(7 * time.Second),
		}, custom},
		{"per mechanism off", []Option{
			WithoutResurrection(), WithoutFailover(), WithoutCheckpoints(), WithoutDAGRepair(),
			WithoutRetries(), WithoutPartitionHealing(), WithoutMCPReconnect(),
		}, off},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCluster(append([]Option{WithClock(clock.NewVirtual(time.Time{}))}, tt.opts...)...)
			if diff := cmp.Diff(tt.want, c.opts.healing); diff != "" {
				t.Errorf("healing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProbeDoesNotAllocateWhenHealthy(t *testing.T) {
	s := newClusterSim(t, WithWorkers(8))
	s.advance(10 * time.Second)
	allocs := testing.AllocsPerRun(1000, func() {
		s.clock.Advance(probeStep)
		if err := s.c.Probe(bgCtx); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Probe allocates %v times per call, want 0", allocs)
	}
}

func TestProbeHonoursContext(t *testing.T) {
	s := newClusterSim(t)
	ctx, cancel := contextWithCancel()
	cancel()
	if err := s.c.Probe(ctx); err == nil {
		t.Error("Probe(cancelled ctx) = nil, want the context's error")
	}
	if err := s.c.StopAgent(ctx, "worker-1"); err == nil {
		t.Error("StopAgent(cancelled ctx) = nil, want the context's error")
	}
	if a := s.agent("worker-1"); a.Status != fault.StatusRunning {
		t.Errorf("StopAgent with a cancelled context stopped the agent: %+v", a)
	}
}
