package fault

import (
	"context"
)

// AgentFeed is a runtime that says which of its agents changed, so that a
// reader keeping a copy of the list keeps it in step in the time of the
// changes, not of the list: a survival run looks at the system before every
// injection, and with a feed a tick costs O(changed agents) however large
// the system (fakes.Cluster has one). Its agents are fixed in number and in
// ID order; only their listings change.
type AgentFeed interface {
	// AppendAgentChanges appends to dst each agent whose listing (as
	// ListAgents gives it) may have changed since cursor, at its position in
	// ID order, and returns the cursor to pass next time. Cursor 0, or one
	// older than the changes the runtime remembers, gets every agent.
	AppendAgentChanges(ctx context.Context, cursor uint64, dst []AgentChange) ([]AgentChange, uint64, error)
}

// AgentChange is an entry of an AgentFeed: the agent at Index of the list,
// as it is now.
type AgentChange struct {
	Index int
	Agent AgentInfo
}

// DAGFeed is AgentFeed for a DAGProvider: its canonical nodes and edges are
// fixed in number and order (nodes by ID, edges by source then target) and
// each is present or removed.
type DAGFeed interface {
	// AppendNodeChanges appends each node whose presence may have changed
	// since cursor (every node for cursor 0 or a forgotten one).
	AppendNodeChanges(ctx context.Context, cursor uint64, dst []NodeChange) ([]NodeChange, uint64, error)
	// AppendEdgeChanges is AppendNodeChanges for edges; an edge is present
	// when it and both its nodes are.
	AppendEdgeChanges(ctx context.Context, cursor uint64, dst []EdgeChange) ([]EdgeChange, uint64, error)
}

// NodeChange is an entry of a DAGFeed's nodes.
type NodeChange struct {
	Index   int
	ID      string
	Present bool
}

// EdgeChange is an entry of a DAGFeed's edges.
type EdgeChange struct {
	Index   int
	Edge    Edge
	Present bool
}

// AgentAppender is a runtime that lists its agents into the caller's slice
// (fakes.Cluster): survival lists the system before every injection, and
// with it a tick does not allocate a copy of it (Injector.AppendAgents).
type AgentAppender interface {
	AppendAgents(ctx context.Context, dst []AgentInfo) ([]AgentInfo, error)
}
