package fault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ares-arena/arena/internal/faulterr"
)

// Injector lands faults through a runtime and a DAG provider, reading each
// type's Spec. Either provider may be nil, and a runtime may have only
// some capabilities (see AgentLister): a fault it cannot land fails with
// ErrNoRuntime, ErrNoDAG or ErrUnsupported, and Supports says so ahead. A
// provider that panics yields an error; the injector keeps working.
type Injector struct {
	runtime AgentLister
	dag     DAGProvider
	faults  *Registry
	roles   RoleResolver // nil: the roles ListAgents reports
	// kinds is what the injector can do with each type it knows, worked
	// out once by NewInjectorFor: the providers never change afterwards.
	kinds map[Type]Binding
	// clash: types registered with WithFault under a built-in's name
	// (ErrBuiltinName); actions of those names are refused.
	clash map[Type]error
	busy  busyFaults // liftable faults landed and not yet lifted, for selectors
	// hidden: agents the runtime lists that are not the system under test
	// (WithoutAgents).
	hidden map[string]bool
}

// Binding is one fault type as an injector sees it: its spec, its place
// among the injector's types, and whether the injector can land and lift
// it. Resolve hands it back with a prepared action so that the engine
// lands the action (Land) and counts it without looking the type up again.
// The zero Binding is an unknown type, which no injector lands; a
// Binding lands only through the injector that made it.
type Binding struct {
	in          *Injector // the injector that made it; nil: an unknown type
	idx         int       // the type's position among the injector's (FaultTypes)
	spec        *Spec
	unsupported error // nil when the injector can land it
	canLift     bool
	// land lands a prepared action of the type through the provider that
	// has its capability (nil when unsupported). Its Lift is nil for a
	// type arena does not lift.
	land func(ctx context.Context, a Action, p Params) (Lift, error)
}

// Known reports whether the type is one the injector knows.
func (k Binding) Known() bool { return k.spec != nil }

// Spec returns the injector's own spec of the type (nil when unknown):
// read it, never write it.
func (k Binding) Spec() *Spec { return k.spec }

// Index returns the type's position among the injector's (FaultTypes),
// -1 when unknown.
func (k Binding) Index() int {
	if k.spec == nil {
		return -1
	}
	return k.idx
}

// CanLift reports whether the injector can lift a timed fault of the type
// (see Injector.CanLift).
func (k Binding) CanLift() bool { return k.canLift }

// Err says why the injector cannot land the type (see Unsupported), nil
// when it can; for an unknown type, that it is unknown.
func (k Binding) Err() error {
	if k.spec == nil {
		return errUnknownBinding
	}
	return k.unsupported
}

// errUnknownBinding is the Err of the zero Binding.
var errUnknownBinding = Invalid("type", "unknown action type")

// InjectorOption configures NewInjectorFor.
type InjectorOption interface{ apply(*Injector) }

type dagOption struct{ dag DAGProvider }

func (o dagOption) apply(in *Injector) { in.dag = o.dag }

// WithDAG gives the injector the DAG provider that remove_node and
// remove_edge go through.
func WithDAG(dag DAGProvider) InjectorOption { return dagOption{dag} }

type faultOption struct{ spec Spec }

func (o faultOption) apply(in *Injector) {
	if err := o.spec.Check(); errors.Is(err, ErrBuiltinName) {
		if in.clash == nil {
			in.clash = map[Type]error{}
		}
		in.clash[o.spec.Type] = err
		return
	} else if err != nil {
		panic("arena: WithFault: " + err.Error())
	}
	if _, dup := in.faults.Lookup(o.spec.Type); dup {
		panic("arena: WithFault: fault " + string(o.spec.Type) + " registered twice")
	}
	spec := o.spec
	if spec.Category == "" {
		spec.Category = CategoryRuntime
	}
	spec.Metadata = slices.Clone(spec.Metadata)
	in.faults = in.faults.with([]Spec{spec})
}

// WithFault registers a user-defined fault type on the injector: it is then
// valid in actions, scenarios (scenario.Load with the same spec, or
// ValidateFor), survival mixes, the HTTP API
// (POST /arena/fault/{type}) and the schema (schema.For). A spec
// that fails Check, or a name given twice, panics: it is a programming error.
// A name that is a built-in's (one a later release of arena adopted) does
// not: actions of that name are refused with ErrBuiltinName until yours is
// renamed, and Injector.Err says so. Name your types in a namespace of your
// own, "acme.disk_full", and no release can take their name.
func WithFault(spec Spec) InjectorOption { return faultOption{spec} }

// Err reports what went wrong registering the injector's own fault types
// (WithFault): a name that is a built-in's (ErrBuiltinName). nil when
// nothing did.
func (in *Injector) Err() error {
	var errs []error
	for _, t := range in.faults.order {
		if err := in.clash[t]; err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// NewInjectorFor returns an injector over a runtime that implements the
// capabilities it has (AgentStopper, Pauser, …), found by type assertion,
// and may refuse built-in types with a reason (Refuser). rt may be nil for
// a system without agents (only TargetSystem faults, or a DAG).
//
//	in := NewInjectorFor(myRuntime, WithFault(diskFull))
//
// A runtime written against the capabilities as they were before Lift
// (methods that return only an error, and Lifter to lift) still
// works: where it lacks a capability's current method but has the old
// one, the injector lands through the old one and lifts through its
// LiftFault. That shape is deprecated (see Lifter).
func NewInjectorFor(rt AgentLister, opts ...InjectorOption) *Injector {
	in := &Injector{runtime: rt, faults: builtins}
	for _, o := range opts {
		o.apply(in)
	}
	refusals := RefusalsOf(rt)
	in.kinds = make(map[Type]Binding, len(in.faults.order))
	for i, t := range in.faults.order {
		k := Binding{in: in, idx: i, spec: in.faults.byType[t]}
		in.bind(&k, refusals[t])
		if err := in.clash[t]; err != nil {
			k.unsupported = Invalid("type", "%v", err)
		}
		in.kinds[t] = k
	}
	return in
}

// NewInjector returns an injector over a full runtime and a DAG provider
// (either may be nil): NewInjectorFor(rt, WithDAG(dag), opts...).
func NewInjector(runtime RuntimeProvider, dag DAGProvider, opts ...InjectorOption) *Injector {
	var rt AgentLister
	if runtime != nil {
		rt = runtime
	}
	return NewInjectorFor(rt, append([]InjectorOption{WithDAG(dag)}, opts...)...)
}

// agentBufs holds the buffers of AppendAgents' callers.
var agentBufs = sync.Pool{New: func() any { return new([]AgentInfo) }}

// AppendAgents appends the runtime's agents, with their live roles, to
// dst. A runtime that appends (AgentAppender) appends them itself when no
// roles are resolved (WithRoles): picking a holder for every kill_leader of
// a long run, or a survival tick, then copies the agents into a reused
// buffer, not a new list.
func (in *Injector) AppendAgents(ctx context.Context, dst []AgentInfo) ([]AgentInfo, error) {
	if ap, ok := in.runtime.(AgentAppender); ok && in.roles == nil && in.hidden == nil {
		return ap.AppendAgents(ctx, dst)
	}
	agents, err := in.ListAgents(ctx)
	return append(dst, agents...), err
}

// ListAgents lists the runtime's agents with their live roles (WithRoles);
// ErrNoRuntime without a runtime.
func (in *Injector) ListAgents(ctx context.Context) ([]AgentInfo, error) {
	if in.runtime == nil {
		return nil, ErrNoRuntime
	}
	agents, err := in.runtime.ListAgents(ctx)
	if err == nil && in.hidden != nil {
		agents = slices.DeleteFunc(slices.Clone(agents), func(a AgentInfo) bool { return in.hidden[a.ID] })
	}
	if err != nil || in.roles == nil {
		return agents, err
	}
	agents, err = in.roles(ctx, agents)
	if err != nil {
		return nil, fmt.Errorf("resolve roles: %w", err)
	}
	return agents, nil
}

type hideOption []string

func (o hideOption) apply(in *Injector) {
	if in.hidden == nil {
		in.hidden = map[string]bool{}
	}
	for _, id := range o {
		in.hidden[id] = true
	}
}

// WithoutAgents leaves agents the runtime lists out of the injector's
// listing: those that are not the system under test, such as the node a
// test's workload runs its clients on. Selectors (any, not:leader) then
// never pick them, survival never hits them, and a target naming one is
// refused before a run starts.
func WithoutAgents(ids ...string) InjectorOption { return hideOption(slices.Clone(ids)) }

// Reaches reports whether a fault of type t can land on the agent, as the
// runtime says when it is a Reacher; true otherwise.
func (in *Injector) Reaches(t Type, agentID string) bool {
	r, ok := in.runtime.(Reacher)
	return !ok || r.Reaches(t, agentID)
}

// HasReacher reports whether the runtime is a Reacher: not every fault type
// reaches every agent.
func (in *Injector) HasReacher() bool {
	_, ok := in.runtime.(Reacher)
	return ok
}

// HasRuntime reports whether the injector has a runtime, and so agents to
// list (ListAgents) and to target.
func (in *Injector) HasRuntime() bool { return in.runtime != nil }

// AgentFeed returns the runtime's feed of changed agents, or nil when it
// has none or when roles are resolved at each selection (WithRoles): a
// feed says whose listing changed, not whose role did.
func (in *Injector) AgentFeed() AgentFeed {
	if feed, ok := in.runtime.(AgentFeed); ok && in.roles == nil && in.hidden == nil {
		return feed
	}
	return nil
}

// Runtime returns the injector's runtime if it implements the whole
// RuntimeProvider, else nil; Supports answers for one fault type.
func (in *Injector) Runtime() RuntimeProvider {
	rt, _ := in.runtime.(RuntimeProvider)
	return rt
}

// DAG returns the injector's DAG provider (nil if none).
func (in *Injector) DAG() DAGProvider { return in.dag }

// Registry returns the fault types the injector knows: the built-ins, then
// those registered with WithFault.
func (in *Injector) Registry() *Registry { return in.faults }

// FaultTypes returns the specs of every type the injector knows: the
// built-ins, then those registered with WithFault.
func (in *Injector) FaultTypes() []Spec { return in.faults.Specs() }

// Fault returns the spec of a type the injector knows.
func (in *Injector) Fault(t Type) (Spec, bool) {
	if k, ok := in.kinds[t]; ok {
		return *k.spec, true
	}
	return Spec{}, false
}

// Binding returns what the injector knows of type t (the zero Binding for
// a type it does not know).
func (in *Injector) Binding(t Type) Binding { return in.kinds[t] }

// Supports reports whether the injector can land faults of type t.
func (in *Injector) Supports(t Type) bool { return in.Unsupported(t) == nil }

// Unsupported says why the injector cannot land faults of type t (nil when
// it can): an unknown type (*ValidationError), no provider at all
// (ErrNoRuntime, ErrNoDAG), a type the runtime refuses (ErrUnsupported
// with the runtime's reason: "network_latency is not supported by this
// runtime: …"), or a runtime without the capability (ErrUnsupported:
// "mcp_disconnect is not supported by this runtime (it does not implement
// MCPDisconnecter)").
func (in *Injector) Unsupported(t Type) error {
	k, ok := in.kinds[t]
	if !ok {
		return Invalid("type", "unknown action type %q (want one of %s)", t, in.faults.Names())
	}
	return k.unsupported
}

// bind works out how the injector lands k's type and whether it can lift
// it, from the providers; refusal is the runtime's reason to refuse a
// built-in type ("" none). A capability the runtime implements wins over a
// refusal of its type (arenatest.TestRuntime fails a runtime that does
// both).
func (in *Injector) bind(k *Binding, refusal string) {
	spec := k.spec
	if !spec.BuiltIn() {
		if (spec.Target == TargetRole || spec.Target == TargetAgent) && in.runtime == nil {
			k.unsupported = ErrNoRuntime // roles and selectors are resolved from ListAgents
			return
		}
		canLift := spec.Lifts && spec.Lift != nil
		k.canLift = canLift
		k.land = func(ctx context.Context, a Action, p Params) (Lift, error) {
			if err := spec.Inject(ctx, a, p); err != nil || !canLift {
				return nil, err
			}
			return func(ctx context.Context) error { return spec.Lift(ctx, a) }, nil
		}
		return
	}
	c := spec.capability
	var provider any = in.runtime
	switch {
	case c.dag && in.dag == nil && refusal != "":
		k.unsupported = fmt.Errorf("%w: %s", ErrNoDAG, refusal) // the runtime says why it has none
		return
	case c.dag && in.dag == nil:
		k.unsupported = ErrNoDAG
		return
	case c.dag:
		provider = in.dag
	case in.runtime == nil:
		k.unsupported = ErrNoRuntime
		return
	}
	if c.has(provider) {
		k.canLift = spec.Lifts
		k.land = func(ctx context.Context, a Action, p Params) (Lift, error) {
			lift, err := c.land(ctx, provider, a, p)
			if err == nil && spec.Lifts && lift == nil {
				lift = noLift(a)
			}
			return lift, err
		}
		return
	}
	if old, ok := legacy[spec.Type]; ok && !c.dag && old.has(provider) {
		lifter, _ := provider.(Lifter)
		canLift := spec.Lifts && lifter != nil
		k.canLift = canLift
		k.land = func(ctx context.Context, a Action, p Params) (Lift, error) {
			if _, err := old.land(ctx, provider, a, p); err != nil || !canLift {
				return nil, err
			}
			return func(ctx context.Context) error { return lifter.LiftFault(ctx, a.Type, a.TargetID) }, nil
		}
		return
	}
	if refusal != "" {
		k.unsupported = fmt.Errorf("%s %w: %s", spec.Type, ErrUnsupported, refusal)
		return
	}
	k.unsupported = fmt.Errorf("%s %w (it does not implement fault.%s)", spec.Type, ErrUnsupported, c.name)
}

// noLift is the Lift of a liftable fault whose runtime handed back none: a
// bug of the runtime (arenatest.TestRuntime finds it), said when arena
// tries to lift the fault.
func noLift(a Action) Lift {
	return func(context.Context) error {
		return fmt.Errorf("%s on %q: the runtime landed it but handed back no Lift", a.Type, a.TargetID)
	}
}

// Validate checks a's type, target and metadata against the types the
// injector knows, without calling any provider (Action.Validate knows the
// built-ins only).
func (in *Injector) Validate(a Action) error {
	if err := in.clash[a.Type]; err != nil {
		return Invalid("type", "%v", err)
	}
	_, err := in.faults.Params(a)
	return err
}

// Prepare validates a and resolves its target: selectors (any, random,
// type:<t>, not:<t>; see SelectAny) become a concrete ID chosen with rng
// among eligible targets,
// kill_leader and kill_orchestrator get the current holder of the role. The
// returned action carries the resolved IDs, so a run can be replayed.
func (in *Injector) Prepare(ctx context.Context, a Action, rng *rand.Rand) (Action, Params, error) {
	a, p, _, err := in.Resolve(ctx, a, rng)
	return a, p, err
}

// Resolve is Prepare that also returns what the injector knows of a's
// type (the zero Binding for an unknown type), for the engine to hand
// back to Land.
func (in *Injector) Resolve(ctx context.Context, a Action, rng *rand.Rand) (Action, Params, Binding, error) {
	k, ok := in.kinds[a.Type]
	if !ok {
		_, err := in.faults.Params(a) // the error that names the type
		return a, Params{}, k, err
	}
	p, err := a.paramsFor(k.spec)
	if err != nil {
		return a, p, k, err
	}
	if k.unsupported != nil {
		return a, p, k, k.unsupported
	}
	switch spec := k.spec; spec.Target {
	case TargetNode:
		if anyID(a.TargetID) && in.dag != nil {
			err = faulterr.Safely(func() error {
				nodes, err := in.dag.ListNodes(ctx)
				if err != nil {
					return err
				}
				a.TargetID, err = pick(slices.Sorted(slices.Values(nodes)), rng)
				return err
			})
		}
	case TargetEdge:
		if (anyID(a.SourceID) || anyID(a.TargetID)) && in.dag != nil {
			err = faulterr.Safely(func() error {
				edges, err := in.dag.ListEdges(ctx)
				if err != nil {
					return err
				}
				a.SourceID, a.TargetID, err = pickEdge(a, edges, rng)
				return err
			})
		}
	case TargetRole, TargetAgent:
		if spec.Target == TargetRole || IsSelector(a.TargetID) {
			err = faulterr.Safely(func() error {
				buf := agentBufs.Get().(*[]AgentInfo)
				defer agentBufs.Put(buf)
				agents, err := in.AppendAgents(ctx, (*buf)[:0])
				*buf = agents
				if err != nil {
					return fmt.Errorf("list agents: %w", err)
				}
				if r, ok := in.runtime.(Reacher); ok {
					agents = slices.DeleteFunc(agents, func(ag AgentInfo) bool { return !r.Reaches(a.Type, ag.ID) })
				}
				a.TargetID, err = resolveAgent(a, spec, agents, rng, in.busy.holds)
				return err
			})
		}
	}
	return a, p, k, err
}

// resolveAgent picks the agent for a role or selector. Eligible agents are
// those the fault can land on (Spec.Eligible: not stopped for kills
// and most faults, paused for resume_agent); among them, those on which
// no fault of a's type is unlifted (busy) when there are some. Candidates
// are sorted by ID before the seeded choice so that the choice depends
// only on the seed and the cluster state.
func resolveAgent(a Action, spec *Spec, agents []AgentInfo, rng *rand.Rand, busy func(Type, string) bool) (string, error) {
	sel := selector{typ: spec.Role}
	if spec.Target != TargetRole {
		sel, _ = parseSelector(a.TargetID)
	}
	var ids []string
	for _, ag := range agents {
		if sel.matches(ag.Type) && spec.LandsOn(ag.Status) {
			ids = append(ids, ag.ID)
		}
	}
	slices.Sort(ids)
	if spec.Target == TargetRole {
		if len(ids) == 0 {
			return "", fmt.Errorf("%w: no running %s%s", ErrNoTarget, spec.Role, noSuchType(spec.Role, agents))
		}
		return ids[0], nil
	}
	if spec.Lifts && busy != nil {
		free := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return busy(a.Type, id) })
		if len(free) > 0 {
			ids = free
		}
	}
	id, err := pick(ids, rng)
	if err != nil {
		why := ""
		if !sel.not {
			why = noSuchType(sel.typ, agents)
		}
		return "", fmt.Errorf("%w for %s %q%s", ErrNoTarget, a.Type, a.TargetID, why)
	}
	return id, nil
}

// pickEdge picks, with rng, an edge whose ends fit a's: an ID, or any.
// Edges are sorted first, so that the choice depends only on the seed and
// the graph.
func pickEdge(a Action, edges []Edge, rng *rand.Rand) (src, dst string, err error) {
	var fit []Edge
	for _, e := range edges {
		if (anyID(a.SourceID) || e.Source == a.SourceID) && (anyID(a.TargetID) || e.Target == a.TargetID) {
			fit = append(fit, e)
		}
	}
	if len(fit) == 0 {
		return a.SourceID, a.TargetID, fmt.Errorf("%w for %s %s->%s: the DAG has no such edge", ErrNoTarget, a.Type, a.SourceID, a.TargetID)
	}
	slices.SortFunc(fit, func(x, y Edge) int {
		return cmp.Or(strings.Compare(x.Source, y.Source), strings.Compare(x.Target, y.Target))
	})
	e := fit[0]
	if rng != nil {
		e = fit[rng.IntN(len(fit))]
	}
	return e.Source, e.Target, nil
}

// noSuchType explains a selection that found nothing because no agent has
// the type at all (as opposed to none running): the types the runtime
// reports, and the fix when a role such as the leader moves between agents
// of one type (an election) — a RoleResolver. "" when some agent has it.
func noSuchType(want string, agents []AgentInfo) string {
	if want == "" {
		return ""
	}
	seen := map[string]int{}
	for _, ag := range agents {
		if ag.Type == want {
			return ""
		}
		seen[ag.Type]++
	}
	if len(agents) == 0 {
		return ": the runtime lists no agents"
	}
	types := make([]string, 0, len(seen))
	for _, t := range slices.Sorted(maps.Keys(seen)) {
		types = append(types, fmt.Sprintf("%s ×%d", t, seen[t]))
	}
	return fmt.Sprintf(": no agent has type %s (the runtime lists %s); if a role moves between agents, "+
		"resolve it at each selection with fault.WithRoles (arenatest.WithRoles, containers.WithRoles)", want, strings.Join(types, ", "))
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

// Inject lands a prepared action and hands back its Lift: nil for a type
// the injector cannot lift (see CanLift). It never panics: a provider panic
// becomes an error that says so.
func (in *Injector) Inject(ctx context.Context, a Action, p Params) (Lift, error) {
	k, ok := in.kinds[a.Type]
	if !ok {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, Invalid("type", "unknown action type %q", a.Type)
	}
	return in.Land(ctx, k, a, p)
}

// Land is Inject for an action whose Binding this injector's Resolve (or
// Binding) returned: a Binding of another injector, or of an unknown type,
// is refused.
func (in *Injector) Land(ctx context.Context, k Binding, a Action, p Params) (Lift, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch {
	case k.in != in || k.spec == nil:
		return nil, Invalid("type", "%s: not a type of this injector's (land a Binding where Resolve made it)", a.Type)
	case k.unsupported != nil:
		return nil, k.unsupported
	}
	var lift Lift
	err := faulterr.Safely(func() (err error) {
		lift, err = k.land(ctx, a, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return in.busy.landed(a, lift), nil
}

// CanLift reports whether the injector can lift a timed fault of type t:
// exactly the liftable types it can land (for a built-in, its capability
// hands back the Lift), and the user types with a Lift function.
func (in *Injector) CanLift(t Type) bool { return in.kinds[t].canLift }

// HealedAt asks the runtime when it healed a (landed at since), if it did.
func (in *Injector) HealedAt(a Action, since time.Time) (time.Time, bool) {
	hr, ok := in.runtime.(HealReporter)
	if !ok {
		return time.Time{}, false
	}
	return hr.HealedAt(a.Type, a.TargetID, since)
}
