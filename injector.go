package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Injector lands faults through a RuntimeProvider and a DAGProvider. Either
// may be nil; an action that needs the missing one fails with ErrNoRuntime or
// ErrNoDAG. A provider that panics yields an error; the injector keeps working.
type Injector struct {
	runtime RuntimeProvider
	dag     DAGProvider
	roles   RoleResolver // nil: the roles ListAgents reports
}

// NewInjector returns an injector over the given providers (either may be nil).
func NewInjector(runtime RuntimeProvider, dag DAGProvider, opts ...InjectorOption) *Injector {
	in := &Injector{runtime: runtime, dag: dag}
	for _, o := range opts {
		o.applyInjector(in)
	}
	return in
}

// listAgents lists the runtime's agents with their live roles.
func (in *Injector) listAgents(ctx context.Context) ([]AgentInfo, error) {
	agents, err := in.runtime.ListAgents(ctx)
	if err != nil || in.roles == nil {
		return agents, err
	}
	agents, err = in.roles(ctx, agents)
	if err != nil {
		return nil, fmt.Errorf("resolve roles: %w", err)
	}
	return agents, nil
}

// Runtime returns the injector's runtime provider (nil if none).
func (in *Injector) Runtime() RuntimeProvider { return in.runtime }

// DAG returns the injector's DAG provider (nil if none).
func (in *Injector) DAG() DAGProvider { return in.dag }

// Supports reports whether the injector has the provider that t needs.
func (in *Injector) Supports(t ActionType) bool {
	if t.NeedsDAG() {
		return in.dag != nil
	}
	return t.Valid() && in.runtime != nil
}

// Prepare validates a and resolves its target: selectors ("random",
// "type:<t>") become a concrete ID chosen with rng among eligible targets,
// kill_leader and kill_orchestrator get the current holder of the role. The
// returned action carries the resolved IDs, so a run can be replayed.
func (in *Injector) Prepare(ctx context.Context, a Action, rng *rand.Rand) (Action, Params, error) {
	p, err := a.Params()
	if err != nil {
		return a, p, err
	}
	if a.Type.NeedsDAG() {
		if in.dag == nil {
			return a, p, ErrNoDAG
		}
		if a.Type == ActionRemoveNode && a.TargetID == "random" {
			err = safely(func() error {
				nodes, err := in.dag.ListNodes(ctx)
				if err != nil {
					return err
				}
				a.TargetID, err = pick(nodes, rng)
				return err
			})
		}
		return a, p, err
	}
	if in.runtime == nil {
		return a, p, ErrNoRuntime
	}
	spec := specs[a.Type]
	if spec.target == targetNone || a.TargetID == "random" || strings.HasPrefix(a.TargetID, "type:") {
		err = safely(func() error {
			agents, err := in.listAgents(ctx)
			if err != nil {
				return fmt.Errorf("list agents: %w", err)
			}
			a.TargetID, err = resolveAgent(a, spec, agents, rng)
			return err
		})
	}
	return a, p, err
}

// resolveAgent picks the agent for a role or selector. Eligible agents are
// those the fault can land on: not stopped for kills and most faults,
// paused for resume_agent. Candidates are sorted by ID before the seeded
// choice so that the choice depends only on the seed and the cluster state.
func resolveAgent(a Action, spec actionSpec, agents []AgentInfo, rng *rand.Rand) (string, error) {
	wantType := spec.role
	if t, ok := strings.CutPrefix(a.TargetID, "type:"); ok {
		wantType = t
	}
	var ids []string
	for _, ag := range agents {
		if wantType != "" && ag.Type != wantType {
			continue
		}
		if !eligible(a.Type, ag.Status) {
			continue
		}
		ids = append(ids, ag.ID)
	}
	slices.Sort(ids)
	if spec.target == targetNone {
		if len(ids) == 0 {
			return "", fmt.Errorf("%w: no running %s", ErrNoTarget, spec.role)
		}
		return ids[0], nil
	}
	id, err := pick(ids, rng)
	if err != nil {
		return "", fmt.Errorf("%w for %s %q", ErrNoTarget, a.Type, a.TargetID)
	}
	return id, nil
}

func eligible(t ActionType, s AgentStatus) bool {
	switch t {
	case ActionResumeAgent:
		return s == StatusPaused
	case ActionPauseAgent:
		return s != StatusStopped && s != StatusPaused
	default:
		return s != StatusStopped
	}
}

func pick(ids []string, rng *rand.Rand) (string, error) {
	if len(ids) == 0 {
		return "", ErrNoTarget
	}
	if rng == nil {
		return ids[0], nil
	}
	return ids[rng.IntN(len(ids))], nil
}

// Inject lands a prepared action. It never panics: a provider panic becomes
// an error that says so.
func (in *Injector) Inject(ctx context.Context, a Action, p Params) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return safely(func() error { return in.inject(ctx, a, p) })
}

func (in *Injector) inject(ctx context.Context, a Action, p Params) error {
	if a.Type.NeedsDAG() {
		if in.dag == nil {
			return ErrNoDAG
		}
		if a.Type == ActionRemoveNode {
			return in.dag.RemoveNode(ctx, a.TargetID)
		}
		return in.dag.RemoveEdge(ctx, a.SourceID, a.TargetID)
	}
	rt := in.runtime
	if rt == nil {
		return ErrNoRuntime
	}
	id := a.TargetID
	switch a.Type {
	case ActionKillLeader, ActionKillOrchestrator, ActionKillAgent:
		return rt.StopAgent(ctx, id)
	case ActionPauseAgent:
		return rt.PauseAgent(ctx, id)
	case ActionResumeAgent:
		return rt.ResumeAgent(ctx, id)
	case ActionSlowAgent:
		return rt.SlowAgent(ctx, id, p.Delay)
	case ActionNetworkPartition:
		return rt.PartitionNetwork(ctx, id)
	case ActionToolTimeout:
		return rt.ToolTimeout(ctx, id, p.Timeout)
	case ActionMemoryCorrupt:
		return rt.CorruptMemory(ctx, id)
	case ActionMCPDisconnect:
		return rt.DisconnectMCP(ctx, id)
	case ActionLLMFailure:
		return rt.InjectLLMFailure(ctx, id, p.ErrorType)
	}
	return invalid("type", "unknown action type %q", a.Type)
}

// CanLift reports whether the runtime can lift a timed fault of type t.
func (in *Injector) CanLift(t ActionType) bool {
	_, ok := in.runtime.(FaultLifter)
	return ok && t.Liftable()
}

// Lift ends a timed fault through the runtime's FaultLifter (see CanLift).
func (in *Injector) Lift(ctx context.Context, a Action) error {
	lifter, ok := in.runtime.(FaultLifter)
	if !ok || !a.Type.Liftable() {
		return fmt.Errorf("%s cannot be lifted by this runtime", a.Type)
	}
	return safely(func() error { return lifter.LiftFault(ctx, a.Type, a.TargetID) })
}

// safely runs f and turns a panic into an error.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrProviderPanic, r)
		}
	}()
	return f()
}
