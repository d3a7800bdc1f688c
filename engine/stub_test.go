package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// stubRuntime is a scripted system for engine tests: a fault makes the probe
// unhealthy for a fixed outage (forever when outage < 0), lifts end it.
type stubRuntime struct {
	clock  clock.Clock
	outage time.Duration

	mu        sync.Mutex
	calls     []string
	downUntil time.Time
	downSet   bool
	forever   bool
	panicOn   string // method name that panics
	failOn    string // method name that fails
	agents    []fault.AgentInfo
	nodes     []string
}

func newStub(clk clock.Clock, outage time.Duration) *stubRuntime {
	return &stubRuntime{clock: clk, outage: outage, agents: []fault.AgentInfo{
		{ID: "leader-0", Type: fault.TypeLeader, Status: fault.StatusRunning},
		{ID: "orchestrator-0", Type: fault.TypeOrchestrator, Status: fault.StatusRunning},
		{ID: "worker-1", Type: fault.TypeWorker, Status: fault.StatusRunning},
		{ID: "worker-2", Type: fault.TypeWorker, Status: fault.StatusPaused},
		{ID: "worker-3", Type: fault.TypeWorker, Status: fault.StatusRunning},
		{ID: "worker-4", Type: fault.TypeWorker, Status: fault.StatusStopped},
	}, nodes: []string{"a", "b", "c"}}
}

func (s *stubRuntime) fault(name, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, name+"("+id+")")
	if s.panicOn == name {
		panic("boom in " + name)
	}
	if s.failOn == name {
		return fmt.Errorf("stub: %s refused", name)
	}
	switch {
	case s.outage < 0:
		s.forever = true
	case s.outage > 0:
		s.downUntil = s.clock.Now().Add(s.outage)
		s.downSet = true
	}
	return nil
}

func (s *stubRuntime) probe(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forever || (s.downSet && s.clock.Now().Before(s.downUntil)) {
		return errors.New("stub down")
	}
	return nil
}

func (s *stubRuntime) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func (s *stubRuntime) StopAgent(_ context.Context, id string) error { return s.fault("StopAgent", id) }
func (s *stubRuntime) PauseAgent(_ context.Context, id string) (fault.Lift, error) {
	return s.lifted(fault.PauseAgent, id, s.fault("PauseAgent", id))
}
func (s *stubRuntime) ResumeAgent(_ context.Context, id string) error {
	return s.fault("ResumeAgent", id)
}
func (s *stubRuntime) SlowAgent(_ context.Context, id string, d time.Duration) (fault.Lift, error) {
	return s.lifted(fault.SlowAgent, id, s.fault("SlowAgent", id+","+d.String()))
}
func (s *stubRuntime) PartitionNetwork(_ context.Context, id string) (fault.Lift, error) {
	return s.lifted(fault.NetworkPartition, id, s.fault("PartitionNetwork", id))
}
func (s *stubRuntime) ToolTimeout(_ context.Context, id string, d time.Duration) (fault.Lift, error) {
	return s.lifted(fault.ToolTimeout, id, s.fault("ToolTimeout", id+","+d.String()))
}
func (s *stubRuntime) CorruptMemory(_ context.Context, id string) error {
	return s.fault("CorruptMemory", id)
}
func (s *stubRuntime) DisconnectMCP(_ context.Context, id string) (fault.Lift, error) {
	return s.lifted(fault.MCPDisconnect, id, s.fault("DisconnectMCP", id))
}
func (s *stubRuntime) InjectLLMFailure(_ context.Context, id string, e fault.LLMErrorType) (fault.Lift, error) {
	return s.lifted(fault.LLMFailure, id, s.fault("InjectLLMFailure", id+","+string(e)))
}
func (s *stubRuntime) ListAgents(context.Context) ([]fault.AgentInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.panicOn == "ListAgents" {
		panic("boom in ListAgents")
	}
	return append([]fault.AgentInfo(nil), s.agents...), nil
}
func (s *stubRuntime) ListNodes(context.Context) ([]string, error) {
	return append([]string(nil), s.nodes...), nil
}
func (s *stubRuntime) ListEdges(context.Context) ([]fault.Edge, error) {
	return []fault.Edge{{Source: "a", Target: "b"}}, nil
}
func (s *stubRuntime) RemoveNode(_ context.Context, id string) error {
	return s.fault("RemoveNode", id)
}
func (s *stubRuntime) RemoveEdge(_ context.Context, src, dst string) error {
	return s.fault("RemoveEdge", src+"->"+dst)
}

// lifted hands back the lift of a fault of kind on id that landed (err
// nil): it ends the outage at once.
func (s *stubRuntime) lifted(kind fault.Type, id string, err error) (fault.Lift, error) {
	if err != nil {
		return nil, err
	}
	return func(context.Context) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.calls = append(s.calls, "Lift("+string(kind)+","+id+")")
		s.forever, s.downSet = false, false
		return nil
	}, nil
}

var (
	_ fault.RuntimeProvider = (*stubRuntime)(nil)
	_ fault.DAGProvider     = (*stubRuntime)(nil)
)
