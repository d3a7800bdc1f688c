package fakes

import (
	"context"
	"fmt"

	"github.com/ares-arena/arena/fault"
)

// dagState is the task DAG: the canonical nodes (one per agent, same index)
// and edges, each present or removed. An edge counts as present only when
// it and both its nodes are, so removing a node takes its edges with it and
// restoring the node brings back those not removed on their own.
type dagState struct {
	nodes   []dagNode
	edges   []dagEdge // canonical order: by source, then target
	in      [][]int   // per node, its incoming canonical edges
	out     [][]int   // per node, its outgoing canonical edges
	missing int       // removed nodes + removed edges
	// The feeds' logs (AppendNodeChanges): a node's change is also one of
	// each of its edges.
	nodeLog, edgeLog changeLog
}

type dagNode struct {
	removed bool
	gen     uint32
}

type dagEdge struct {
	src, dst int
	removed  bool
	gen      uint32
}

func (d *dagState) init(c *Cluster) {
	d.nodes = make([]dagNode, len(c.agents))
	d.in = make([][]int, len(c.agents))
	d.out = make([][]int, len(c.agents))
	leader, orch := c.index["leader-0"], c.index["orchestrator-0"]
	d.add(leader, orch)
	for i := range c.agents {
		if c.agents[i].typ == fault.TypeWorker {
			d.add(orch, i)
		}
	}
}

func (d *dagState) add(src, dst int) {
	d.in[dst] = append(d.in[dst], len(d.edges))
	d.out[src] = append(d.out[src], len(d.edges))
	d.edges = append(d.edges, dagEdge{src: src, dst: dst})
}

func (d *dagState) edgePresent(e int) bool {
	x := &d.edges[e]
	return !x.removed && !d.nodes[x.src].removed && !d.nodes[x.dst].removed
}

// reachable reports whether node i and all its incoming edges are present:
// only then can the orchestrator send it tasks.
func (d *dagState) reachable(i int) bool {
	if d.nodes[i].removed {
		return false
	}
	for _, e := range d.in[i] {
		if !d.edgePresent(e) {
			return false
		}
	}
	return true
}

func (d *dagState) firstMissing(c *Cluster) string {
	for i, n := range d.nodes {
		if n.removed {
			return "missing node " + c.agents[i].id
		}
	}
	for _, e := range d.edges {
		if e.removed {
			return "missing edge " + c.agents[e.src].id + "->" + c.agents[e.dst].id
		}
	}
	return ""
}

func (d *dagState) allMissing(c *Cluster) []string {
	var out []string
	for i, n := range d.nodes {
		if n.removed {
			out = append(out, "missing node "+c.agents[i].id)
		}
	}
	for _, e := range d.edges {
		if e.removed {
			out = append(out, "missing edge "+c.agents[e.src].id+"->"+c.agents[e.dst].id)
		}
	}
	return out
}

func (d *dagState) repairNode(i int, gen uint32) {
	if n := &d.nodes[i]; n.removed && n.gen == gen {
		n.removed = false
		d.missing--
		d.nodeChanged(i)
	}
}

func (d *dagState) repairEdge(e int, gen uint32) {
	if x := &d.edges[e]; x.removed && x.gen == gen {
		x.removed = false
		d.missing--
		d.edgeLog.add(e, len(d.edges))
	}
}

// nodeChanged logs a change of node i, and of its edges' presence.
func (d *dagState) nodeChanged(i int) {
	d.nodeLog.add(i, len(d.nodes))
	for _, e := range d.in[i] {
		d.edgeLog.add(e, len(d.edges))
	}
	for _, e := range d.out[i] {
		d.edgeLog.add(e, len(d.edges))
	}
}

// ListNodes returns the present nodes in ID order.
func (c *Cluster) ListNodes(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.AppendNodes(ctx, make([]string, 0, len(c.agents)))
}

// AppendNodes appends the present nodes, in ID order, to dst: ListNodes into
// a caller's buffer.
func (c *Cluster) AppendNodes(ctx context.Context, dst []string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	for i, n := range c.dag.nodes {
		if !n.removed {
			dst = append(dst, c.agents[i].id)
		}
	}
	return dst, nil
}

// ListEdges returns the present edges, by source then target.
func (c *Cluster) ListEdges(ctx context.Context) ([]fault.Edge, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.AppendEdges(ctx, make([]fault.Edge, 0, len(c.dag.edges)))
}

// AppendEdges appends the present edges, by source then target, to dst:
// ListEdges into a caller's buffer.
func (c *Cluster) AppendEdges(ctx context.Context, dst []fault.Edge) ([]fault.Edge, error) {
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	for e, x := range c.dag.edges {
		if c.dag.edgePresent(e) {
			dst = append(dst, fault.Edge{Source: c.agents[x.src].id, Target: c.agents[x.dst].id})
		}
	}
	return dst, nil
}

// RemoveNode removes a node and, with it, its edges. DAG repair restores it
// after the repair delay.
func (c *Cluster) RemoveNode(ctx context.Context, nodeID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	i, ok := c.index[nodeID]
	if !ok {
		return fmt.Errorf("fakes: node %q: %w", nodeID, ErrNoNode)
	}
	n := &c.dag.nodes[i]
	if n.removed {
		return fmt.Errorf("fakes: node %q: %w: already removed", nodeID, fault.ErrCannotLand)
	}
	n.removed = true
	n.gen++
	c.dag.missing++
	c.dag.nodeChanged(i)
	if h := &c.opts.healing; h.DAGRepair {
		c.schedule(h.DAGRepairDelay, evNodeRepair, i, n.gen)
	}
	c.settle()
	return nil
}

// RemoveEdge removes a canonical edge. DAG repair restores it after the
// repair delay.
func (c *Cluster) RemoveEdge(ctx context.Context, sourceID, targetID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	src, okSrc := c.index[sourceID]
	dst, okDst := c.index[targetID]
	e := -1
	if okSrc && okDst {
		for _, k := range c.dag.in[dst] {
			if c.dag.edges[k].src == src {
				e = k
			}
		}
	}
	if e < 0 {
		return fmt.Errorf("fakes: edge %q->%q: %w", sourceID, targetID, ErrNoEdge)
	}
	if !c.dag.edgePresent(e) {
		return fmt.Errorf("fakes: edge %q->%q: %w: already missing", sourceID, targetID, fault.ErrCannotLand)
	}
	x := &c.dag.edges[e]
	x.removed = true
	x.gen++
	c.dag.missing++
	c.dag.edgeLog.add(e, len(c.dag.edges))
	if h := &c.opts.healing; h.DAGRepair {
		c.schedule(h.DAGRepairDelay, evEdgeRepair, e, x.gen)
	}
	c.settle()
	return nil
}
