package arena

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
)

// Injector lands faults through a runtime and a DAG provider, reading each
// type's FaultSpec. Either provider may be nil, and a runtime may have only
// some capabilities (see AgentLister): a fault it cannot land fails with
// ErrNoRuntime, ErrNoDAG or ErrUnsupported, and Supports says so ahead. A
// provider that panics yields an error; the injector keeps working.
type Injector struct {
	runtime AgentLister
	dag     DAGProvider
	faults  *faultSet
	roles   RoleResolver // nil: the roles ListAgents reports
	// kinds is what the injector can do with each type it knows, worked
	// out once by NewInjectorFor: the providers never change afterwards.
	kinds map[ActionType]faultKind
	// clash: types registered with WithFault under a built-in's name
	// (ErrBuiltinName); actions of those names are refused.
	clash map[ActionType]error
}

// faultKind is one type as this injector sees it.
type faultKind struct {
	idx         int // the type's position among the injector's (FaultTypes)
	spec        *FaultSpec
	unsupported error // nil when the injector can land it
	canLift     bool
	// land lands a prepared action of the type through the provider that
	// has its capability (nil when unsupported). Its Lift is nil for a
	// type arena does not lift.
	land func(ctx context.Context, a Action, p Params) (Lift, error)
}

// InjectorOption configures NewInjectorFor.
type InjectorOption interface{ apply(*Injector) }

type dagOption struct{ dag DAGProvider }

func (o dagOption) apply(in *Injector) { in.dag = o.dag }

// WithDAG gives the injector the DAG provider that remove_node and
// remove_edge go through.
func WithDAG(dag DAGProvider) InjectorOption { return dagOption{dag} }

type faultOption struct{ spec FaultSpec }

func (o faultOption) apply(in *Injector) {
	if err := o.spec.Check(); errors.Is(err, ErrBuiltinName) {
		if in.clash == nil {
			in.clash = map[ActionType]error{}
		}
		in.clash[o.spec.Type] = err
		return
	} else if err != nil {
		panic("arena: WithFault: " + err.Error())
	}
	if _, dup := in.faults.lookup(o.spec.Type); dup {
		panic("arena: WithFault: fault " + string(o.spec.Type) + " registered twice")
	}
	spec := o.spec
	if spec.Category == "" {
		spec.Category = CategoryRuntime
	}
	spec.Metadata = slices.Clone(spec.Metadata)
	in.faults = in.faults.with([]FaultSpec{spec})
}

// WithFault registers a user-defined fault type on the injector: it is then
// valid in actions, scenarios (LoadScenario with the same spec, or
// Service.ValidateScenario), survival mixes, the HTTP API
// (POST /arena/fault/{type}) and the schema (schema.For). A spec
// that fails Check, or a name given twice, panics: it is a programming error.
// A name that is a built-in's (one a later release of arena adopted) does
// not: actions of that name are refused with ErrBuiltinName until yours is
// renamed, and Injector.Err says so. Name your types in a namespace of your
// own, "acme.disk_full", and no release can take their name.
func WithFault(spec FaultSpec) InjectorOption { return faultOption{spec} }

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
//	in := arena.NewInjectorFor(myRuntime, arena.WithFault(diskFull))
//
// A runtime written against the capabilities as they were before Lift
// (methods that return only an error, and FaultLifter to lift) still
// works: where it lacks a capability's current method but has the old
// one, the injector lands through the old one and lifts through its
// LiftFault. That shape is deprecated (see FaultLifter).
func NewInjectorFor(rt AgentLister, opts ...InjectorOption) *Injector {
	in := &Injector{runtime: rt, faults: builtins}
	for _, o := range opts {
		o.apply(in)
	}
	var refusals map[ActionType]string
	if r, ok := rt.(Refuser); ok {
		refusals = r.Refusals()
	}
	in.kinds = make(map[ActionType]faultKind, len(in.faults.order))
	for i, t := range in.faults.order {
		k := faultKind{idx: i, spec: in.faults.byType[t]}
		in.bind(&k, refusals[t])
		if err := in.clash[t]; err != nil {
			k.unsupported = invalid("type", "%v", err)
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

// listAgents lists the runtime's agents with their live roles.
// appendAgents is listAgents into dst when the runtime appends
// (agentAppender) and no roles are resolved: picking a holder for every
// kill_leader of a long run then copies the agents into a reused buffer
// from agentBufs, not a new list.
// agentBufs holds the buffers of appendAgents' callers.
var agentBufs = sync.Pool{New: func() any { return new([]AgentInfo) }}

func (in *Injector) appendAgents(ctx context.Context, dst []AgentInfo) ([]AgentInfo, error) {
	if ap, ok := in.runtime.(agentAppender); ok && in.roles == nil {
		return ap.AppendAgents(ctx, dst)
	}
	return in.listAgents(ctx)
}

func (in *Injector) listAgents(ctx context.Context) ([]AgentInfo, error) {
	agents, err := in.runtime.ListAgents(ctx)
	if err != nil || in.roles == nil {
		return agents, err
	}
	agents, err = in.roles(ctx, agents)
	if err != nil {
		return nil, fmt.Errorf("resolve roles: %w", err)
	}
	return agents, nil
}

// Runtime returns the injector's runtime if it implements the whole
// RuntimeProvider, else nil; Supports answers for one fault type.
func (in *Injector) Runtime() RuntimeProvider {
	rt, _ := in.runtime.(RuntimeProvider)
	return rt
}

// DAG returns the injector's DAG provider (nil if none).
func (in *Injector) DAG() DAGProvider { return in.dag }

// FaultTypes returns the specs of every type the injector knows: the
// built-ins, then those registered with WithFault.
func (in *Injector) FaultTypes() []FaultSpec { return in.faults.specs() }

// Fault returns the spec of a type the injector knows.
func (in *Injector) Fault(t ActionType) (FaultSpec, bool) {
	if k, ok := in.kinds[t]; ok {
		return *k.spec, true
	}
	return FaultSpec{}, false
}

// spec is Fault without the copy: the injector's own spec, read only.
func (in *Injector) spec(t ActionType) (*FaultSpec, bool) {
	k, ok := in.kinds[t]
	return k.spec, ok
}

// Supports reports whether the injector can land faults of type t.
func (in *Injector) Supports(t ActionType) bool { return in.Unsupported(t) == nil }

// Unsupported says why the injector cannot land faults of type t (nil when
// it can): an unknown type (*ValidationError), no provider at all
// (ErrNoRuntime, ErrNoDAG), a type the runtime refuses (ErrUnsupported
// with the runtime's reason: "network_latency is not supported by this
// runtime: …"), or a runtime without the capability (ErrUnsupported:
// "mcp_disconnect is not supported by this runtime (it does not implement
// arena.MCPDisconnecter)").
func (in *Injector) Unsupported(t ActionType) error {
	k, ok := in.kinds[t]
	if !ok {
		return invalid("type", "unknown action type %q (want one of %s)", t, in.faults.list())
	}
	return k.unsupported
}

// bind works out how the injector lands k's type and whether it can lift
// it, from the providers; refusal is the runtime's reason to refuse a
// built-in type ("" none). A capability the runtime implements wins over a
// refusal of its type (arenatest.TestRuntime fails a runtime that does
// both).
func (in *Injector) bind(k *faultKind, refusal string) {
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
		lifter, _ := provider.(FaultLifter)
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
	k.unsupported = fmt.Errorf("%s %w (it does not implement arena.%s)", spec.Type, ErrUnsupported, c.name)
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
		return invalid("type", "%v", err)
	}
	_, err := in.faults.params(a)
	return err
}

// Prepare validates a and resolves its target: selectors ("random",
// "type:<t>") become a concrete ID chosen with rng among eligible targets,
// kill_leader and kill_orchestrator get the current holder of the role. The
// returned action carries the resolved IDs, so a run can be replayed.
func (in *Injector) Prepare(ctx context.Context, a Action, rng *rand.Rand) (Action, Params, error) {
	a, p, _, err := in.prepare(ctx, a, rng)
	return a, p, err
}

// prepare is Prepare that also returns what the injector knows of a's type
// (the zero faultKind for an unknown type), for the service to hand back to
// land.
func (in *Injector) prepare(ctx context.Context, a Action, rng *rand.Rand) (Action, Params, faultKind, error) {
	k, ok := in.kinds[a.Type]
	if !ok {
		_, err := in.faults.params(a) // the error that names the type
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
		if a.TargetID == "random" && in.dag != nil {
			err = safely(func() error {
				nodes, err := in.dag.ListNodes(ctx)
				if err != nil {
					return err
				}
				a.TargetID, err = pick(nodes, rng)
				return err
			})
		}
	case TargetRole, TargetAgent:
		if spec.Target == TargetRole || a.TargetID == "random" || strings.HasPrefix(a.TargetID, "type:") {
			err = safely(func() error {
				buf := agentBufs.Get().(*[]AgentInfo)
				defer agentBufs.Put(buf)
				agents, err := in.appendAgents(ctx, (*buf)[:0])
				*buf = agents
				if err != nil {
					return fmt.Errorf("list agents: %w", err)
				}
				a.TargetID, err = resolveAgent(a, spec, agents, rng)
				return err
			})
		}
	}
	return a, p, k, err
}

// resolveAgent picks the agent for a role or selector. Eligible agents are
// those the fault can land on (FaultSpec.Eligible: not stopped for kills
// and most faults, paused for resume_agent). Candidates are sorted by ID
// before the seeded choice so that the choice depends only on the seed and
// the cluster state.
func resolveAgent(a Action, spec *FaultSpec, agents []AgentInfo, rng *rand.Rand) (string, error) {
	wantType := spec.Role
	if t, ok := strings.CutPrefix(a.TargetID, "type:"); ok {
		wantType = t
	}
	var ids []string
	for _, ag := range agents {
		if wantType != "" && ag.Type != wantType {
			continue
		}
		if !spec.eligible(ag.Status) {
			continue
		}
		ids = append(ids, ag.ID)
	}
	slices.Sort(ids)
	if spec.Target == TargetRole {
		if len(ids) == 0 {
			return "", fmt.Errorf("%w: no running %s%s", ErrNoTarget, spec.Role, noSuchType(spec.Role, agents))
		}
		return ids[0], nil
	}
	id, err := pick(ids, rng)
	if err != nil {
		return "", fmt.Errorf("%w for %s %q%s", ErrNoTarget, a.Type, a.TargetID, noSuchType(wantType, agents))
	}
	return id, nil
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
		"resolve it at each selection with arena.WithRoles (arenatest.WithRoles, containers.WithRoles)", want, strings.Join(types, ", "))
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
		return nil, invalid("type", "unknown action type %q", a.Type)
	}
	return in.injectKind(ctx, k, a, p)
}

// injectKind is Inject for an action whose kind prepare returned.
func (in *Injector) injectKind(ctx context.Context, k faultKind, a Action, p Params) (Lift, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k.unsupported != nil {
		return nil, k.unsupported
	}
	var lift Lift
	err := safely(func() (err error) {
		lift, err = k.land(ctx, a, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return lift, nil
}

// CanLift reports whether the injector can lift a timed fault of type t:
// exactly the liftable types it can land (for a built-in, its capability
// hands back the Lift), and the user types with a Lift function.
func (in *Injector) CanLift(t ActionType) bool { return in.kinds[t].canLift }

// safely runs f and turns a panic into an error.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrProviderPanic, r)
		}
	}()
	return f()
}
