package containers

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/fault"
)

// The task DAG of a container system is its agents (the nodes) and their
// routes (AgentRoutes; the reference cluster's leader-0 → orchestrator-0 →
// worker-i): the edges tasks flow along. The agents hold it, so the DAG
// faults go through their fault-control endpoints: remove_node makes the
// target leave the DAG (it takes and routes no tasks), remove_edge makes the
// source stop routing to the target. agentd repairs both after 1s. Agents
// that cannot be asked (partitioned, paused, stopped) are read as their
// canonical selves.

// ListNodes returns the agents that are in the DAG, in ID order.
func (r *Runtime) ListNodes(ctx context.Context) ([]string, error) {
	removed := r.removedNodes(ctx)
	var out []string
	for _, a := range r.agents {
		if !removed[a.ID] {
			out = append(out, a.ID)
		}
	}
	return out, nil
}

// ListEdges returns the present edges, by source then target.
func (r *Runtime) ListEdges(ctx context.Context) ([]fault.Edge, error) {
	sts, _ := r.states(ctx)
	var out []fault.Edge
	for _, a := range r.agents {
		routes := a.Routes
		st, ok := sts[a.ID]
		if ok && st.DAG.Routes != nil {
			routes = st.DAG.Routes
		}
		if ok && st.DAG.Removed {
			continue
		}
		for _, to := range routes {
			if sts[to].DAG.Removed {
				continue
			}
			out = append(out, fault.Edge{Source: a.ID, Target: to})
		}
	}
	slices.SortFunc(out, func(x, y fault.Edge) int {
		return cmp.Or(cmp.Compare(x.Source, y.Source), cmp.Compare(x.Target, y.Target))
	})
	return out, nil
}

func (r *Runtime) removedNodes(ctx context.Context) map[string]bool {
	sts, _ := r.states(ctx)
	out := map[string]bool{}
	for id, st := range sts {
		out[id] = st.DAG.Removed
	}
	return out
}

// RemoveNode takes the agent out of the task DAG.
func (r *Runtime) RemoveNode(ctx context.Context, nodeID string) error {
	return r.agentFault(ctx, nodeID, agentapi.Fault{Kind: agentapi.KindRemoveNode})
}

// RemoveEdge makes sourceID stop routing tasks to targetID.
func (r *Runtime) RemoveEdge(ctx context.Context, sourceID, targetID string) error {
	a, err := r.agent(sourceID)
	if err != nil {
		return err
	}
	if !slices.Contains(a.Routes, targetID) {
		return fmt.Errorf("containers: edge %s->%s: %w", sourceID, targetID, ErrNoEdge)
	}
	return r.agentFault(ctx, sourceID, agentapi.Fault{Kind: agentapi.KindRemoveEdge, Target: targetID})
}
