// Package downstream is a project that uses arena as any other module
// would: it imports github.com/ares-arena/arena by its path (go.mod replaces
// it with this checkout) and uses only the public API. It holds a runtime
// of its own, Agents, which passes arena's conformance suite, and its tests
// hold the README's three usage snippets.
//
//	cd examples/downstream && go test ./...
package downstream

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ares-arena/arena"
)

// Agents is a minimal in-memory arena.RuntimeProvider: agents with a status
// and a set of active faults, and a supervisor that restarts a stopped agent
// RestartDelay after it stopped. Each fault arena can lift hands back its
// lift; the network and DAG faults are refused (Refusals). It is what a
// user would write around their own process manager.
type Agents struct {
	// RestartDelay is how long the supervisor leaves a stopped agent down.
	RestartDelay time.Duration

	mu     sync.Mutex
	agents map[string]*agent
}

type agent struct {
	info    arena.AgentInfo
	faults  map[arena.ActionType]bool
	stopped time.Time
}

var (
	_ arena.RuntimeProvider = (*Agents)(nil)
	_ arena.Refuser         = (*Agents)(nil)
)

// NewAgents returns running agents: the first is the leader, the rest are
// workers.
func NewAgents(ids ...string) *Agents {
	a := &Agents{RestartDelay: 100 * time.Millisecond, agents: map[string]*agent{}}
	for i, id := range ids {
		typ := arena.TypeWorker
		if i == 0 {
			typ = arena.TypeLeader
		}
		a.agents[id] = &agent{info: arena.AgentInfo{ID: id, Type: typ, Status: arena.StatusRunning}, faults: map[arena.ActionType]bool{}}
	}
	return a
}

// Healthy is a probe: every agent running and free of faults.
func (a *Agents) Healthy(context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.supervise()
	var sick []string
	for id, ag := range a.agents {
		if ag.info.Status != arena.StatusRunning || len(ag.faults) > 0 {
			sick = append(sick, id)
		}
	}
	if len(sick) > 0 {
		slices.Sort(sick)
		return fmt.Errorf("unhealthy: %s", strings.Join(sick, ", "))
	}
	return nil
}

// supervise restarts the agents stopped for RestartDelay. Called with the
// lock held, by every method that reads the agents' state.
func (a *Agents) supervise() {
	for _, ag := range a.agents {
		if ag.info.Status == arena.StatusStopped && time.Since(ag.stopped) >= a.RestartDelay {
			ag.info.Status = arena.StatusRunning
			ag.info.Restarts++
		}
	}
}

// ListAgents lists the agents by ID.
func (a *Agents) ListAgents(ctx context.Context) ([]arena.AgentInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.supervise()
	out := make([]arena.AgentInfo, 0, len(a.agents))
	for _, ag := range a.agents {
		out = append(out, ag.info)
	}
	slices.SortFunc(out, func(x, y arena.AgentInfo) int { return strings.Compare(x.ID, y.ID) })
	return out, nil
}

// with runs fn on agent id under the lock.
func (a *Agents) with(ctx context.Context, id string, fn func(*agent) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.supervise()
	ag, ok := a.agents[id]
	if !ok {
		return fmt.Errorf("agent %q: %w", id, arena.ErrNoAgent)
	}
	return fn(ag)
}

// fault marks the agent with kind, and hands back the lift that clears
// the mark (lifting twice, or after a restart, clears nothing more).
func (a *Agents) fault(ctx context.Context, id string, kind arena.ActionType) (arena.Lift, error) {
	err := a.with(ctx, id, func(ag *agent) error {
		ag.faults[kind] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		return a.with(ctx, id, func(ag *agent) error {
			delete(ag.faults, kind)
			return nil
		})
	}, nil
}

// StopAgent kills an agent; the supervisor restarts it.
func (a *Agents) StopAgent(ctx context.Context, id string) error {
	return a.with(ctx, id, func(ag *agent) error {
		if ag.info.Status == arena.StatusStopped {
			return fmt.Errorf("agent %q: already stopped", id)
		}
		ag.info.Status, ag.stopped = arena.StatusStopped, time.Now()
		return nil
	})
}

// PauseAgent freezes a running agent; its lift resumes it if it is still
// paused.
func (a *Agents) PauseAgent(ctx context.Context, id string) (arena.Lift, error) {
	err := a.with(ctx, id, func(ag *agent) error {
		if ag.info.Status != arena.StatusRunning {
			return fmt.Errorf("agent %q: is %s, not running: %w", id, ag.info.Status, arena.ErrCannotLand)
		}
		ag.info.Status = arena.StatusPaused
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		return a.with(ctx, id, func(ag *agent) error {
			if ag.info.Status == arena.StatusPaused {
				ag.info.Status = arena.StatusRunning
			}
			return nil
		})
	}, nil
}

// ResumeAgent resumes a paused agent.
func (a *Agents) ResumeAgent(ctx context.Context, id string) error {
	return a.with(ctx, id, func(ag *agent) error {
		if ag.info.Status != arena.StatusPaused {
			return fmt.Errorf("agent %q: is %s, not paused", id, ag.info.Status)
		}
		ag.info.Status = arena.StatusRunning
		return nil
	})
}

// SlowAgent marks the agent slow (the delay is not simulated).
func (a *Agents) SlowAgent(ctx context.Context, id string, _ time.Duration) (arena.Lift, error) {
	return a.fault(ctx, id, arena.ActionSlowAgent)
}

// PartitionNetwork cuts the agent off.
func (a *Agents) PartitionNetwork(ctx context.Context, id string) (arena.Lift, error) {
	return a.fault(ctx, id, arena.ActionNetworkPartition)
}

// ToolTimeout makes the agent's tools time out.
func (a *Agents) ToolTimeout(ctx context.Context, id string, _ time.Duration) (arena.Lift, error) {
	return a.fault(ctx, id, arena.ActionToolTimeout)
}

// CorruptMemory corrupts the agent's memory; nothing here repairs it (nor
// does arena: it is never lifted).
func (a *Agents) CorruptMemory(ctx context.Context, id string) error {
	_, err := a.fault(ctx, id, arena.ActionMemoryCorrupt)
	return err
}

// DisconnectMCP drops the agent's MCP session.
func (a *Agents) DisconnectMCP(ctx context.Context, id string) (arena.Lift, error) {
	return a.fault(ctx, id, arena.ActionMCPDisconnect)
}

// InjectLLMFailure makes the agent's LLM calls fail.
func (a *Agents) InjectLLMFailure(ctx context.Context, id string, _ arena.LLMErrorType) (arena.Lift, error) {
	return a.fault(ctx, id, arena.ActionLLMFailure)
}

// Refusals says why Agents refuses the built-in types it does not land.
func (a *Agents) Refusals() map[arena.ActionType]string {
	const network = "Agents has no network between its agents to slow or reset"
	const dag = "Agents has no task DAG"
	return map[arena.ActionType]string{
		arena.ActionNetworkLatency:   network,
		arena.ActionNetworkBandwidth: network,
		arena.ActionConnectionReset:  network,
		arena.ActionRemoveNode:       dag,
		arena.ActionRemoveEdge:       dag,
		arena.ActionClockJump:        "Agents has no clock of its own to move",
	}
}
