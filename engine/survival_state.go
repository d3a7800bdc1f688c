package engine

import (
	"context"
	"errors"
	"slices"
	"sort"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/faulterr"
)

// systemState is what survival reads of the system before each choice.
type systemState struct {
	agents []fault.AgentInfo
	nodes  []string
	edges  []fault.Edge
	filter TargetFilter
	// byStatus counts the agents the filter allows, by status, so that
	// counting the targets of a fault on agents reads a few statuses
	// instead of every agent.
	byStatus []statusCount
	// agentTrees and dagTrees, when set, count and pick the targets on
	// agents, and on nodes and edges, in place of byStatus and the lists
	// (the runtime has feeds: systemView).
	agentTrees, dagTrees *systemView
	// reach, when set, says which agents a fault type reaches (the runtime
	// is a fault.Reacher): the targets on agents are then counted and
	// picked by walking them.
	reach func(t fault.Type, agentID string) bool
}

type statusCount struct {
	status fault.AgentStatus
	n      int
}

type target struct{ id, src string }

type dagAppender interface {
	AppendNodes(ctx context.Context, dst []string) ([]string, error)
	AppendEdges(ctx context.Context, dst []fault.Edge) ([]fault.Edge, error)
}

// state reads the system before a choice: through the runtime's feeds
// when it has them (systemView), else by listing it.
func (c *chaos) state(ctx context.Context) systemState {
	in := c.svc.Injector()
	st := systemState{filter: c.sv.cfg.Targets}
	c.view.filter = st.filter
	if in.HasReacher() {
		st.reach = in.Reaches
	}
	if in.HasRuntime() { // every runtime lists its agents
		if feed := in.AgentFeed(); feed != nil && !c.view.agentsOff && st.reach == nil {
			if err := faulterr.Safely(func() error { return c.view.syncAgents(ctx, feed) }); err == nil {
				st.agents, st.agentTrees = c.view.agents, &c.view
			} else {
				c.view.agentsOff = errors.Is(err, errFeedOrder)
			}
		}
		if st.agentTrees == nil {
			c.listAgents(ctx, in, &st)
		}
	}
	if dag := in.DAG(); dag != nil {
		if feed, ok := dag.(fault.DAGFeed); ok && !c.view.dagOff {
			if err := faulterr.Safely(func() error { return c.view.syncDAG(ctx, feed) }); err == nil {
				st.dagTrees = &c.view
			} else {
				c.view.dagOff = errors.Is(err, errFeedOrder)
			}
		}
		if st.dagTrees == nil {
			c.listDAG(ctx, dag, &st)
		}
	}
	return st
}

// listAgents lists the agents into st, in ID order, and counts the ones
// the filter allows by status.
func (c *chaos) listAgents(ctx context.Context, in *fault.Injector, st *systemState) {
	_ = faulterr.Safely(func() error {
		var err error
		c.agentBuf, err = in.AppendAgents(ctx, c.agentBuf[:0])
		st.agents = c.agentBuf
		return err
	})
	// Runtimes list in ID order as a rule: check before sorting (a
	// strictly ordered list has one sorted order, so skipping the sort
	// changes nothing).
	if !idsIncrease(st.agents) {
		sort.Slice(st.agents, func(i, j int) bool { return st.agents[i].ID < st.agents[j].ID })
	}
	st.byStatus = c.byStatus[:0]
next:
	for i := range st.agents {
		a := &st.agents[i]
		if !st.filter.allows(*a) {
			continue
		}
		for k := range st.byStatus {
			if st.byStatus[k].status == a.Status {
				st.byStatus[k].n++
				continue next
			}
		}
		st.byStatus = append(st.byStatus, statusCount{a.Status, 1})
	}
	c.byStatus = st.byStatus
}

// listDAG lists the present nodes and edges into st, in order.
func (c *chaos) listDAG(ctx context.Context, dag fault.DAGProvider, st *systemState) {
	_ = faulterr.Safely(func() error {
		var err error
		if ap, ok := dag.(dagAppender); ok {
			c.nodeBuf, err = ap.AppendNodes(ctx, c.nodeBuf[:0])
			if st.nodes = c.nodeBuf; err != nil {
				return err
			}
			c.edgeBuf, err = ap.AppendEdges(ctx, c.edgeBuf[:0])
			st.edges = c.edgeBuf
			return err
		}
		if st.nodes, err = dag.ListNodes(ctx); err != nil {
			return err
		}
		st.edges, err = dag.ListEdges(ctx)
		return err
	})
	if !slices.IsSorted(st.nodes) {
		slices.Sort(st.nodes)
	}
	if !slices.IsSortedFunc(st.edges, edgeOrder) {
		slices.SortFunc(st.edges, edgeOrder)
	}
}

// idsIncrease reports whether the agents are in strictly increasing ID
// order.
func idsIncrease(agents []fault.AgentInfo) bool {
	for i := 1; i < len(agents); i++ {
		if agents[i-1].ID >= agents[i].ID {
			return false
		}
	}
	return true
}

// walk visits, in order, where a fault of spec can land now, until visit
// returns false: resume only paused agents, no kills of stopped agents,
// roles only when someone holds them, the system as a whole always, never
// an empty target. Counting and indexing walk instead of listing, so a
// tick allocates nothing per type however many agents there are.
func (st *systemState) walk(spec *fault.Spec, visit func(target) bool) {
	switch spec.Target {
	case fault.TargetSystem:
		visit(target{})
		return
	case fault.TargetNode:
		for _, n := range st.nodes {
			if !visit(target{id: n}) {
				return
			}
		}
		return
	case fault.TargetEdge:
		for _, e := range st.edges {
			if !visit(target{id: e.Target, src: e.Source}) {
				return
			}
		}
		return
	case fault.TargetRole:
		// The holder Prepare will hit: the first running agent of the
		// role that the runtime reaches, filters aside; if the filters
		// exclude it, nothing to hit.
		for i := range st.agents {
			if a := &st.agents[i]; a.Type == spec.Role && spec.LandsOn(a.Status) && st.reaches(spec.Type, a.ID) {
				if st.filter.allows(*a) {
					visit(target{id: a.ID})
				}
				return
			}
		}
		return
	}
	for i := range st.agents {
		if a := &st.agents[i]; st.filter.allows(*a) && spec.LandsOn(a.Status) && st.reaches(spec.Type, a.ID) {
			if !visit(target{id: a.ID}) {
				return
			}
		}
	}
}

func (st *systemState) reaches(t fault.Type, id string) bool {
	return st.reach == nil || st.reach(t, id)
}

// count returns how many targets walk visits, stopping at limit (< 0: no
// limit). For a fault on agents it adds up the counts by status; the view's
// trees, when there are some, count agents, nodes and edges.
func (st *systemState) count(spec *fault.Spec, limit int) int {
	n := 0
	switch spec.Target {
	case fault.TargetNode, fault.TargetEdge:
		if v := st.dagTrees; v != nil {
			n = v.edgeTree.Total()
			if spec.Target == fault.TargetNode {
				n = v.nodeTree.Total()
			}
			break
		}
		fallthrough
	case fault.TargetSystem, fault.TargetRole:
		st.walk(spec, func(target) bool {
			n++
			return n != limit
		})
		return n
	default: // on agents
		if st.reach != nil {
			st.walk(spec, func(target) bool {
				n++
				return n != limit
			})
			return n
		}
		if st.agentTrees != nil {
			n = st.agentTrees.countAgents(spec)
			break
		}
		for _, sc := range st.byStatus {
			if spec.LandsOn(sc.status) {
				n += sc.n
			}
		}
	}
	if limit > 0 && n > limit {
		n = limit
	}
	return n
}

// nth returns the k-th target walk visits (0-based; k < count): found in
// the view's trees when there is one.
func (st *systemState) nth(spec *fault.Spec, k int) target {
	switch v := st.dagTrees; spec.Target {
	case fault.TargetNode, fault.TargetEdge:
		if v != nil && spec.Target == fault.TargetNode {
			return target{id: v.nthNode(k)}
		}
		if v != nil {
			e := v.nthEdge(k)
			return target{id: e.Target, src: e.Source}
		}
	case fault.TargetSystem, fault.TargetRole:
	default:
		if st.agentTrees != nil {
			return target{id: st.agentTrees.nthAgent(spec, k)}
		}
	}
	var out target
	st.walk(spec, func(t target) bool {
		if k == 0 {
			out = t
			return false
		}
		k--
		return true
	})
	return out
}
