package fakes

import (
	"context"

	"github.com/ares-arena/arena/fault"
)

var (
	_ fault.AgentFeed = (*Cluster)(nil)
	_ fault.DAGFeed   = (*Cluster)(nil)
)

// changeLog numbers the changes of one of the cluster's fixed lists
// (agents, DAG nodes, DAG edges): the feeds (AppendAgentChanges) tell a
// reader which entries changed since its cursor, the log's count of
// changes when it last looked.
type changeLog struct {
	first uint64  // the cursor just before idx[0] (base: 1 for 0, so that cursor 0 is never current)
	idx   []int32 // the entries changed, in order, repeats allowed
}

// add records that entry i of a list of n changed. The log keeps about
// twice the list's length: a reader further behind gets the whole list.
func (l *changeLog) add(i, n int) {
	if len(l.idx) >= 2*n+64 {
		drop := len(l.idx) / 2
		l.first = l.base() + uint64(drop)
		l.idx = append(l.idx[:0], l.idx[drop:]...)
	}
	l.idx = append(l.idx, int32(i))
}

// base is the cursor just before idx[0].
func (l *changeLog) base() uint64 { return max(l.first, 1) }

// cursor returns the cursor of the present.
func (l *changeLog) cursor() uint64 { return l.base() + uint64(len(l.idx)) }

// since returns the entries changed after cursor, and false when the log
// does not reach back to it (cursor 0, forgotten, or not its own).
func (l *changeLog) since(cursor uint64) ([]int32, bool) {
	if cursor < l.base() || cursor > l.cursor() {
		return nil, false
	}
	return l.idx[cursor-l.base():], true
}

// AppendAgentChanges appends to dst each agent whose listing (AppendAgents)
// may have changed since cursor, and returns the cursor for the next call
// (fault.AgentFeed): a survival run keeps its copy of the agents in step at
// each tick in the time of the changes. Cursor 0 gets every agent.
func (c *Cluster) AppendAgentChanges(ctx context.Context, cursor uint64, dst []fault.AgentChange) ([]fault.AgentChange, uint64, error) {
	return appendChanges(ctx, c, cursor, dst, &c.agentLog, len(c.agents), func(i int) fault.AgentChange {
		a := &c.agents[i]
		return fault.AgentChange{Index: i, Agent: fault.AgentInfo{ID: a.id, Type: a.typ, Status: a.status, Restarts: a.restarts}}
	})
}

// AppendNodeChanges is AppendAgentChanges for the DAG's canonical nodes
// (fault.DAGFeed).
func (c *Cluster) AppendNodeChanges(ctx context.Context, cursor uint64, dst []fault.NodeChange) ([]fault.NodeChange, uint64, error) {
	return appendChanges(ctx, c, cursor, dst, &c.dag.nodeLog, len(c.dag.nodes), func(i int) fault.NodeChange {
		return fault.NodeChange{Index: i, ID: c.agents[i].id, Present: !c.dag.nodes[i].removed}
	})
}

// AppendEdgeChanges is AppendAgentChanges for the DAG's canonical edges, by
// source then target; an edge is present when it and both its nodes are
// (fault.DAGFeed).
func (c *Cluster) AppendEdgeChanges(ctx context.Context, cursor uint64, dst []fault.EdgeChange) ([]fault.EdgeChange, uint64, error) {
	return appendChanges(ctx, c, cursor, dst, &c.dag.edgeLog, len(c.dag.edges), func(e int) fault.EdgeChange {
		x := &c.dag.edges[e]
		return fault.EdgeChange{Index: e, Edge: fault.Edge{Source: c.agents[x.src].id, Target: c.agents[x.dst].id}, Present: c.dag.edgePresent(e)}
	})
}

// appendChanges is the feeds' common part: with the cluster brought up to
// now, it appends item of each entry of a list of n that log says changed
// since cursor (all n when the log does not reach back to it).
func appendChanges[T any](ctx context.Context, c *Cluster, cursor uint64, dst []T, log *changeLog, n int, item func(i int) T) ([]T, uint64, error) {
	if err := ctx.Err(); err != nil {
		return dst, cursor, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	changed, ok := log.since(cursor)
	if !ok {
		for i := range n {
			dst = append(dst, item(i))
		}
	}
	for _, i := range changed {
		dst = append(dst, item(int(i)))
	}
	return dst, log.cursor(), nil
}
