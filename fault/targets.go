package fault

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ares-arena/arena/internal/faulterr"
)

// Targets is what a system lists before a run: its agents, with their
// roles now, and its DAG's nodes and edges. Check resolves an action's
// target against it, so that a run refuses a step that could land nowhere
// before it starts (as it refuses a type the runtime does not support),
// instead of failing it minutes in.
type Targets struct {
	in     *Injector
	agents []AgentInfo
	nodes  []string
	edges  []Edge
	roles  map[string]bool // the roles of the injector's TargetRole types
}

// Targets lists the runtime's agents (with live roles, WithRoles) and the
// DAG's nodes and edges, once, for Check. Without a runtime or a DAG the
// lists are empty: the types that need them are unsupported anyway.
func (in *Injector) Targets(ctx context.Context) (*Targets, error) {
	t := &Targets{in: in, roles: map[string]bool{}}
	for _, k := range in.kinds {
		if k.spec.Target == TargetRole {
			t.roles[k.spec.Role] = true
		}
	}
	err := faulterr.Safely(func() (err error) {
		if in.runtime != nil {
			if t.agents, err = in.ListAgents(ctx); err != nil {
				return fmt.Errorf("list agents: %w", err)
			}
		}
		if in.dag != nil {
			if t.nodes, err = in.dag.ListNodes(ctx); err != nil {
				return fmt.Errorf("list DAG nodes: %w", err)
			}
			if t.edges, err = in.dag.ListEdges(ctx); err != nil {
				return fmt.Errorf("list DAG edges: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// TargetError says that an action's target resolves to nothing the
// system lists: which field, what it says, why, what the system lists and
// the fix. It wraps ErrNoTarget.
//
// Role is set when the target is a role nobody holds now (kill_leader,
// type:leader before the first election): a run may check it again once
// the system has settled (a scenario does, at the end of its warmup).
type TargetError struct {
	Field  string // "target_id", "source_id"; "type" for a fault that hits a role
	Target string // as written: "worker-1", "type:worker"; "" for a role
	Why    string // "no agent has that ID"
	Listed string // "the runtime lists raft-1 (follower), client (client)"
	Fix    string
	Role   string // the role nobody holds, when that is why
}

func (e *TargetError) Error() string {
	var b strings.Builder
	if e.Target != "" {
		fmt.Fprintf(&b, "%q: ", e.Target)
	}
	fmt.Fprintf(&b, "%s (%s)", e.Why, e.Listed)
	if e.Fix != "" {
		b.WriteString("; " + e.Fix)
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrNoTarget) true.
func (e *TargetError) Unwrap() error { return ErrNoTarget }

// fixID is the fix for an agent ID the runtime does not list.
const fixID = "target an agent it lists, or a role or selector that fits any system: " +
	"type:<type>, not:<type> (not:leader: anyone but the leader) or any"

// Check resolves a's target against the lists: an agent's ID must be
// listed, a selector must fit some agent (type:worker on a system without
// workers does not), a role must be held (a *TargetError with Role set
// when not), a DAG node or edge must be in the DAG (any: the DAG must have
// one). The agents' statuses do not matter: a stopped agent may restart.
// A type the injector does not know or cannot land is not its to judge
// (nil: Validate and Unsupported say so).
func (t *Targets) Check(a Action) error {
	k, ok := t.in.kinds[a.Type]
	if !ok || k.unsupported != nil {
		return nil
	}
	spec := k.spec
	switch spec.Target {
	case TargetRole:
		if !t.hasType(selector{typ: spec.Role}) {
			return &TargetError{Field: "type", Why: fmt.Sprintf("%s hits the %s, and no agent holds that role", a.Type, spec.Role),
				Listed: t.listedAgents(), Fix: roleFix(spec.Role), Role: spec.Role}
		}
	case TargetAgent:
		sel, isSel := parseSelector(a.TargetID)
		switch {
		case !isSel && !slices.ContainsFunc(t.agents, func(ag AgentInfo) bool { return ag.ID == a.TargetID }):
			return &TargetError{Field: "target_id", Target: a.TargetID, Why: "no agent has that ID", Listed: t.listedAgents(), Fix: fixID}
		case isSel && !t.hasType(sel):
			e := &TargetError{Field: "target_id", Target: a.TargetID, Listed: t.listedAgents()}
			switch {
			case len(t.agents) == 0:
				e.Why = "no agent fits"
			case sel.not:
				e.Why, e.Fix = "every agent has type "+sel.typ, "target the "+sel.typ+" with type:"+sel.typ+", or any"
			default:
				e.Why, e.Fix = "no agent has type "+sel.typ, "use a type it lists, not:<type> or any"
			}
			if !sel.not && t.roles[sel.typ] {
				e.Fix, e.Role = roleFix(sel.typ), sel.typ
			}
			return e
		}
	case TargetNode:
		if !slices.Contains(t.nodes, a.TargetID) && !(anyID(a.TargetID) && len(t.nodes) > 0) {
			return &TargetError{Field: "target_id", Target: a.TargetID, Why: "the DAG has no such node", Listed: t.listedNodes(),
				Fix: "target a node it lists, or any"}
		}
	case TargetEdge:
		if _, _, err := pickEdge(a, t.edges, nil); err != nil {
			field := "target_id"
			if !slices.ContainsFunc(t.edges, func(e Edge) bool { return anyID(a.SourceID) || e.Source == a.SourceID }) {
				field = "source_id"
			}
			return &TargetError{Field: field, Target: a.TargetText(), Why: "the DAG has no such edge", Listed: t.listedEdges(),
				Fix: "cut an edge it lists, or any edge (source_id and target_id any)"}
		}
	}
	return nil
}

// roleFix is the fix for a role nobody holds.
func roleFix(role string) string {
	return "if the system elects its " + role + " later, resolve roles live (fault.WithRoles, sim.World.SetRoles) " +
		"and give it a warmup; if it has no " + role + ", leave this fault out"
}

func (t *Targets) hasType(sel selector) bool {
	return slices.ContainsFunc(t.agents, func(ag AgentInfo) bool { return sel.matches(ag.Type) })
}

// maxListed bounds the agents, nodes or edges an error names one by one.
const maxListed = 12

// listedAgents names what the runtime lists: each agent with its type, or
// for a large system the first ones and a count by type.
func (t *Targets) listedAgents() string {
	if len(t.agents) == 0 {
		return "the runtime lists no agents"
	}
	var b strings.Builder
	b.WriteString("the runtime lists ")
	for i, ag := range t.agents[:min(len(t.agents), maxListed)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", ag.ID, ag.Type)
	}
	if len(t.agents) > maxListed {
		count := map[string]int{}
		for _, ag := range t.agents {
			count[ag.Type]++
		}
		types := make([]string, 0, len(count))
		for _, typ := range slices.Sorted(maps.Keys(count)) {
			types = append(types, fmt.Sprintf("%s ×%d", typ, count[typ]))
		}
		fmt.Fprintf(&b, " and %d more; %d agents: %s", len(t.agents)-maxListed, len(t.agents), strings.Join(types, ", "))
	}
	return b.String()
}

func (t *Targets) listedNodes() string {
	if len(t.nodes) == 0 {
		return "the DAG lists no nodes"
	}
	nodes := slices.Sorted(slices.Values(t.nodes))
	s := "the DAG lists " + strings.Join(nodes[:min(len(nodes), maxListed)], ", ")
	if len(nodes) > maxListed {
		s += fmt.Sprintf(" and %d more", len(nodes)-maxListed)
	}
	return s
}

func (t *Targets) listedEdges() string {
	if len(t.edges) == 0 {
		return "the DAG lists no edges"
	}
	edges := slices.SortedFunc(slices.Values(t.edges), func(x, y Edge) int {
		return cmp.Or(strings.Compare(x.Source, y.Source), strings.Compare(x.Target, y.Target))
	})
	names := make([]string, 0, min(len(edges), maxListed))
	for _, e := range edges[:min(len(edges), maxListed)] {
		names = append(names, e.Source+"->"+e.Target)
	}
	s := "the DAG lists " + strings.Join(names, ", ")
	if len(edges) > maxListed {
		s += fmt.Sprintf(" and %d more", len(edges)-maxListed)
	}
	return s
}
