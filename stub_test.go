package arena

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// stubRuntime is a scripted system for engine tests: a fault makes the probe
// unhealthy for a fixed outage (forever when outage < 0), lifts end it.
type stubRuntime struct {
	clock  Clock
	outage time.Duration

	mu        sync.Mutex
	calls     []string
	downUntil time.Time
	downSet   bool
	forever   bool
	panicOn   string // method name that panics
	failOn    string // method name that fails
	agents    []AgentInfo
	nodes     []string
}

func newStub(clock Clock, outage time.Duration) *stubRuntime {
	return &stubRuntime{clock: clock, outage: outage, agents: []AgentInfo{
		{ID: "leader-0", Type: TypeLeader, Status: StatusRunning},
		{ID: "orchestrator-0", Type: TypeOrchestrator, Status: StatusRunning},
		{ID: "worker-1", Type: TypeWorker, Status: StatusRunning},
		{ID: "worker-2", Type: TypeWorker, Status: StatusPaused},
		{ID: "worker-3", Type: TypeWorker, Status: StatusRunning},
		{ID: "worker-4", Type: TypeWorker, Status: StatusStopped},
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
func (s *stubRuntime) PauseAgent(_ context.Context, id string) (Lift, error) {
	return s.lifted(ActionPauseAgent, id, s.fault("PauseAgent", id))
}
func (s *stubRuntime) ResumeAgent(_ context.Context, id string) error {
	return s.fault("ResumeAgent", id)
}
func (s *stubRuntime) SlowAgent(_ context.Context, id string, d time.Duration) (Lift, error) {
	return s.lifted(ActionSlowAgent, id, s.fault("SlowAgent", id+","+d.String()))
}
func (s *stubRuntime) PartitionNetwork(_ context.Context, id string) (Lift, error) {
	return s.lifted(ActionNetworkPartition, id, s.fault("PartitionNetwork", id))
}
func (s *stubRuntime) ToolTimeout(_ context.Context, id string, d time.Duration) (Lift, error) {
	return s.lifted(ActionToolTimeout, id, s.fault("ToolTimeout", id+","+d.String()))
}
func (s *stubRuntime) CorruptMemory(_ context.Context, id string) error {
	return s.fault("CorruptMemory", id)
}
func (s *stubRuntime) DisconnectMCP(_ context.Context, id string) (Lift, error) {
	return s.lifted(ActionMCPDisconnect, id, s.fault("DisconnectMCP", id))
}
func (s *stubRuntime) InjectLLMFailure(_ context.Context, id string, e LLMErrorType) (Lift, error) {
	return s.lifted(ActionLLMFailure, id, s.fault("InjectLLMFailure", id+","+string(e)))
}
func (s *stubRuntime) ListAgents(context.Context) ([]AgentInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.panicOn == "ListAgents" {
		panic("boom in ListAgents")
	}
	return append([]AgentInfo(nil), s.agents...), nil
}
func (s *stubRuntime) ListNodes(context.Context) ([]string, error) {
	return append([]string(nil), s.nodes...), nil
}
func (s *stubRuntime) ListEdges(context.Context) ([]Edge, error) {
	return []Edge{{Source: "a", Target: "b"}}, nil
}
func (s *stubRuntime) RemoveNode(_ context.Context, id string) error {
	return s.fault("RemoveNode", id)
}
func (s *stubRuntime) RemoveEdge(_ context.Context, src, dst string) error {
	return s.fault("RemoveEdge", src+"->"+dst)
}

// lifted hands back the lift of a fault of kind on id that landed (err
// nil): it ends the outage at once.
func (s *stubRuntime) lifted(kind ActionType, id string, err error) (Lift, error) {
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
	_ RuntimeProvider = (*stubRuntime)(nil)
	_ DAGProvider     = (*stubRuntime)(nil)
)
