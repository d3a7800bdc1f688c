package netfault

import (
	"context"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/netrules"
)

// updateLift is update for a fault arena lifts: it hands back the fault's
// Lift, which runs undo on the agent's faults (and so ends the waits under
// them at once). undo ends the fault whatever happened since, so lifting
// twice changes nothing.
func (n *Network) updateLift(ctx context.Context, id string, f func(*netrules.Faults) error, undo func(*netrules.Faults)) (fault.Lift, error) {
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

// RefusedScopes says why the network refuses every scope but the network:
// it lands faults on the calls between the agents of a Go system, and
// nothing else of it.
func (n *Network) RefusedScopes() map[fault.Scope]string {
	return map[fault.Scope]string{
		fault.ScopeProcess: "netfault lands faults on the calls between agents, not on their processes: kill, pause or slow them through your own hooks (a fault.Spec of yours)",
		fault.ScopeAgent:   "netfault lands faults on the calls between agents, not inside an agent: give your agent a fault.Spec of its own",
		fault.ScopeDAG:     "netfault has no task DAG",
	}
}

// cutLift is updateLift for a fault that cuts open ties (connection_reset,
// network_partition): landing it and lifting it put the agent's faults in
// force on the ties open over its links, so that they are reset when due,
// and are off the network's schedule once no reset is in force.
func (n *Network) cutLift(ctx context.Context, id string, f func(*netrules.Faults) error, undo func(*netrules.Faults)) (fault.Lift, error) {
	lift, err := n.updateLift(ctx, id, f, undo)
	if err != nil {
		return nil, err
	}
	n.reschedule(id)
	return func(ctx context.Context) error {
		err := lift(ctx)
		n.reschedule(id)
		return err
	}, nil
}
