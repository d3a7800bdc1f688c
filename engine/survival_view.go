package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/fenwick"
)

// systemView is survival's copy of the system kept in step through the
// runtime's feeds (AgentFeed, DAGFeed): a tick reads what changed since the
// last one, and counts and picks targets from order-statistic trees, so its
// cost follows the changes, not the number of agents.
type systemView struct {
	filter TargetFilter

	// Agents, in ID order; the ones the filter allows are counted in one
	// tree per status.
	agentsOff bool // no feed, or it broke its promise of ID order: list instead
	agentCur  uint64
	agents    []fault.AgentInfo
	statuses  []statusTree
	agentBuf  []fault.AgentChange
	eligible  []*fenwick.Tree // reused by nthAgent

	// The DAG's canonical nodes and edges, the present ones counted.
	dagOff      bool
	nodeCur     uint64
	edgeCur     uint64
	nodes       []string
	nodePresent []bool
	nodeTree    fenwick.Tree
	edges       []fault.Edge
	edgePresent []bool
	edgeTree    fenwick.Tree
	nodeBuf     []fault.NodeChange
	edgeBuf     []fault.EdgeChange
}

type statusTree struct {
	status fault.AgentStatus
	tree   fenwick.Tree
}

// errFeedOrder: a feed's full list was out of order (or had a hole): the
// view cannot stand for the list, so survival lists instead.
var errFeedOrder = errors.New("feed out of order")

// syncAgents applies the agents that changed since the last call. On an
// error the next call starts over from a full list.
func (v *systemView) syncAgents(ctx context.Context, feed fault.AgentFeed) error {
	changes, cur, err := feed.AppendAgentChanges(ctx, v.agentCur, v.agentBuf[:0])
	v.agentBuf = changes
	if err != nil {
		v.agentCur = 0
		return err
	}
	grown := false
	for _, ch := range changes {
		if ch.Index < 0 {
			v.agentCur = 0
			return fmt.Errorf("agent feed: index %d", ch.Index)
		}
		if ch.Index >= len(v.agents) {
			v.agents = append(v.agents, make([]fault.AgentInfo, ch.Index+1-len(v.agents))...)
			grown = true
		}
	}
	for _, ch := range changes {
		if !grown {
			v.count(ch.Index, v.agents[ch.Index], -1)
			v.count(ch.Index, ch.Agent, +1)
		}
		v.agents[ch.Index] = ch.Agent
	}
	v.agentCur = cur
	if !grown {
		return nil
	}
	for i := range v.agents {
		if v.agents[i].ID == "" || i > 0 && v.agents[i-1].ID >= v.agents[i].ID {
			return errFeedOrder
		}
	}
	for i := range v.statuses {
		v.statuses[i].tree.Reset(len(v.agents))
	}
	for i, a := range v.agents {
		v.count(i, a, +1)
	}
	return nil
}

// count adds delta to the tree of a's status at position i, if the filter
// allows a.
func (v *systemView) count(i int, a fault.AgentInfo, delta int) {
	if !v.filter.allows(a) {
		return
	}
	for k := range v.statuses {
		if v.statuses[k].status == a.Status {
			v.statuses[k].tree.Add(i, delta)
			return
		}
	}
	v.statuses = append(v.statuses, statusTree{status: a.Status})
	t := &v.statuses[len(v.statuses)-1].tree
	t.Reset(len(v.agents))
	t.Add(i, delta)
}

// countAgents returns how many allowed agents a fault of spec can land on.
func (v *systemView) countAgents(spec *fault.Spec) int {
	n := 0
	for k := range v.statuses {
		if spec.LandsOn(v.statuses[k].status) {
			n += v.statuses[k].tree.Total()
		}
	}
	return n
}

// nthAgent returns the k-th of them in ID order (k < countAgents(spec)).
func (v *systemView) nthAgent(spec *fault.Spec, k int) string {
	v.eligible = v.eligible[:0]
	for i := range v.statuses {
		if spec.LandsOn(v.statuses[i].status) {
			v.eligible = append(v.eligible, &v.statuses[i].tree)
		}
	}
	return v.agents[fenwick.Find(k, v.eligible...)].ID
}

// syncDAG applies the nodes and edges that changed since the last call.
func (v *systemView) syncDAG(ctx context.Context, feed fault.DAGFeed) error {
	nodes, ncur, err := feed.AppendNodeChanges(ctx, v.nodeCur, v.nodeBuf[:0])
	v.nodeBuf = nodes
	if err != nil {
		v.nodeCur = 0
		return err
	}
	edges, ecur, err := feed.AppendEdgeChanges(ctx, v.edgeCur, v.edgeBuf[:0])
	v.edgeBuf = edges
	if err != nil {
		v.nodeCur, v.edgeCur = 0, 0
		return err
	}
	ok := applyDAG(nodes, &v.nodes, &v.nodePresent, &v.nodeTree,
		func(c fault.NodeChange) (int, string, bool) { return c.Index, c.ID, c.Present },
		func(a, b string) bool { return a < b })
	ok = ok && applyDAG(edges, &v.edges, &v.edgePresent, &v.edgeTree,
		func(c fault.EdgeChange) (int, fault.Edge, bool) { return c.Index, c.Edge, c.Present },
		func(a, b fault.Edge) bool { return edgeOrder(a, b) < 0 })
	if !ok {
		v.nodeCur, v.edgeCur = 0, 0
		return errFeedOrder
	}
	v.nodeCur, v.edgeCur = ncur, ecur
	return nil
}

// applyDAG applies the changes of one of the DAG's lists to the view's copy
// (items, present, tree). When the list grows (the first call) it rebuilds
// the tree, after checking the items are in strictly increasing order
// (less); it returns false if they are not, or an index is negative.
func applyDAG[C, T any](changes []C, items *[]T, present *[]bool, tree *fenwick.Tree, read func(C) (int, T, bool), less func(a, b T) bool) bool {
	grown := false
	for _, c := range changes {
		i, _, _ := read(c)
		if i < 0 {
			return false
		}
		if i >= len(*items) {
			*items = append(*items, make([]T, i+1-len(*items))...)
			*present = append(*present, make([]bool, i+1-len(*present))...)
			grown = true
		}
	}
	for _, c := range changes {
		i, item, in := read(c)
		if !grown && in != (*present)[i] {
			tree.Add(i, b2i(in)-b2i((*present)[i]))
		}
		(*items)[i], (*present)[i] = item, in
	}
	if !grown {
		return true
	}
	s := *items
	for i := 1; i < len(s); i++ {
		if !less(s[i-1], s[i]) {
			return false
		}
	}
	tree.Build(len(s), func(i int) bool { return (*present)[i] })
	return true
}

// edgeOrder orders edges by source, then target.
func edgeOrder(a, b fault.Edge) int {
	return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Target, b.Target))
}

// nthNode and nthEdge return the k-th present node or edge in order.
func (v *systemView) nthNode(k int) string     { return v.nodes[fenwick.Find(k, &v.nodeTree)] }
func (v *systemView) nthEdge(k int) fault.Edge { return v.edges[fenwick.Find(k, &v.edgeTree)] }
