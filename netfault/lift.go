package netfault

import (
	"context"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/internal/netrules"
)

// updateLift is update for a fault arena lifts: it hands back the fault's
// Lift, which runs undo on the agent's faults (and so ends the waits under
// them at once). undo ends the fault whatever happened since, so lifting
// twice changes nothing.
func (n *Network) updateLift(ctx context.Context, id string, f func(*netrules.Faults) error, undo func(*netrules.Faults)) (arena.Lift, error) {
	if err := n.update(ctx, id, f); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		return n.update(ctx, id, func(f *netrules.Faults) error {
			undo(f)
			return nil
		})
	}, nil
}

// Refusals says why the network refuses the built-in types it does not
// land: it lands faults on the calls between the agents of a Go system,
// and nothing else of it.
func (n *Network) Refusals() map[arena.ActionType]string {
	const process = "netfault lands faults on the calls between agents, not on their processes: kill, pause or slow them through your own hooks (a FaultSpec of yours)"
	const inside = "netfault lands faults on the calls between agents, not inside an agent: give your agent a FaultSpec of its own"
	const dag = "netfault has no task DAG"
	return map[arena.ActionType]string{
		arena.ActionKillLeader:       process,
		arena.ActionKillOrchestrator: process,
		arena.ActionKillAgent:        process,
		arena.ActionPauseAgent:       process,
		arena.ActionResumeAgent:      process,
		arena.ActionSlowAgent:        process,
		arena.ActionToolTimeout:      inside,
		arena.ActionMemoryCorrupt:    inside,
		arena.ActionMCPDisconnect:    inside,
		arena.ActionLLMFailure:       inside,
		arena.ActionRemoveNode:       dag,
		arena.ActionRemoveEdge:       dag,
		arena.ActionClockJump:        process,
	}
}
