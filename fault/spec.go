package fault

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// Spec is everything arena knows about one fault type, in one value:
// validation (targets, metadata), the injector's dispatch and lifting, the
// flight and evolution bridges, the HTTP route and the JSON Schema all read
// it. The built-in types are listed by Specs; a user adds a type of
// their own to one injector with WithFault (there is no global registry).
type Spec struct {
	Type Type   // the name in YAML, JSON, events and metrics: lower case, digits, _
	Doc  string // one sentence: what the fault does (JSON Schema description, docs)

	Target TargetRule // what target_id (and source_id) name
	Role   string     // TargetRole: the agent type whose holder is hit
	// Scope says where a built-in acts (ScopeProcess, ScopeAgent,
	// ScopeNetwork, ScopeDAG), so that a runtime that reaches none of a
	// scope refuses it once (ScopeRefuser), not type by type. A user type
	// lands through Inject and needs none.
	Scope Scope
	// Eligible says which agents the fault can land on, for selectors and
	// survival; nil means every agent that is not stopped.
	Eligible func(AgentStatus) bool

	Metadata []MetaKey // the metadata keys it takes, in documentation order
	// Lifts: with a `duration` the engine lifts the fault once it elapsed
	// (with the Lift function for a user type; for a built-in, with the
	// Lift its capability handed back when it landed). Needs a
	// MetaKindDuration key named "duration".
	Lifts bool

	// Inject lands a user-defined fault on the resolved action (TargetID is
	// a concrete ID, Params.Values holds the decoded metadata). Built-ins
	// have none: they land through a runtime capability (Capability).
	Inject func(ctx context.Context, a Action, p Params) error
	// Lift ends a user-defined fault when its duration has elapsed
	// (optional; with Lifts). A user type keeps this pair, Inject and Lift,
	// rather than a Lift handed back by Inject: the engine pairs them, so
	// Lift is given the action Inject landed.
	Lift func(ctx context.Context, a Action) error

	// Route is the built-in HTTP route's path ("/arena/agent/{id}/pause");
	// every type, user-defined ones too, is also POST /arena/fault/{type}.
	Route string

	Category   string // the flight recorder's category when the injection is refused (default CategoryRuntime)
	Fix        string // the flight recorder's suggested fix then
	Priority   int    // evolution priority of an unhealed fault, 1–10 (see EmergencyPriority)
	Suggestion string // what the evolution proposal suggests

	capability capability // built-ins: the runtime interface that lands it
}

// Scope is where a built-in fault acts. A runtime reaches some scopes and
// not others (sim and netfault reach no agent's code; a runtime without a
// task DAG reaches no DAG), and may refuse a whole scope with one reason
// (ScopeRefuser): a built-in type added to a scope it refuses is then
// refused too, with that reason, while one added to a scope it reaches
// asks it to decide (arenatest.TestRuntime).
type Scope string

// The scopes of the built-in faults.
const (
	ScopeProcess Scope = "process" // an agent's process, from outside it: kills, pauses, slowdowns
	ScopeAgent   Scope = "agent"   // inside an agent: its tools, memory, MCP session, model calls, clock
	ScopeNetwork Scope = "network" // the links between agents: partitions, latency, bandwidth, resets
	ScopeDAG     Scope = "dag"     // the task DAG that wires the agents
)

// Scopes lists the scopes in documentation order.
func Scopes() []Scope { return []Scope{ScopeProcess, ScopeAgent, ScopeNetwork, ScopeDAG} }

// TargetRule says what an action's target_id and source_id name.
type TargetRule string

// Target rules.
const (
	TargetSystem TargetRule = "system" // no target: the fault hits the system as a whole
	TargetRole   TargetRule = "role"   // no target_id: the holder of Role is hit (kill_leader)
	TargetAgent  TargetRule = "agent"  // target_id: an agent, or a selector: any, type:<agent type>, not:<agent type>
	TargetNode   TargetRule = "node"   // target_id: a DAG node or any
	TargetEdge   TargetRule = "edge"   // source_id → target_id: a DAG edge; either end may be any
)

// capability is how a built-in lands: through one interface of the runtime
// (or of the DAG provider), whose name and place are derived from the
// interface type itself (landVia, liftVia), never written by hand.
type capability struct {
	name  string // the interface, for messages: "Pauser"
	dag   bool   // found on the DAG provider, not the runtime
	lifts bool   // its method hands back the fault's Lift
	has   func(provider any) bool
	land  func(ctx context.Context, provider any, a Action, p Params) (Lift, error)
}

// landVia is the capability C, landing with f a fault that is never lifted.
func landVia[C any](f func(c C, ctx context.Context, a Action, p Params) error) capability {
	c := liftVia(func(c C, ctx context.Context, a Action, p Params) (Lift, error) { return nil, f(c, ctx, a, p) })
	c.lifts = false
	return c
}

// liftVia is the capability C, landing with f a fault whose Lift f hands
// back.
func liftVia[C any](f func(c C, ctx context.Context, a Action, p Params) (Lift, error)) capability {
	t := reflect.TypeFor[C]()
	if t.Kind() != reflect.Interface || t.PkgPath() != reflect.TypeFor[Lift]().PkgPath() {
		panic("arena: a capability is an interface of package fault, not " + t.String())
	}
	return capability{
		name: t.Name(), dag: t == reflect.TypeFor[DAGProvider](), lifts: true,
		has:  func(p any) bool { _, ok := p.(C); return ok },
		land: func(ctx context.Context, p any, a Action, pr Params) (Lift, error) { return f(p.(C), ctx, a, pr) },
	}
}

// Capability names what lands the fault: a runtime interface of this
// package for a built-in ("Pauser", "DAGProvider"), "Inject" for a
// user-defined type.
func (s Spec) Capability() string {
	if s.Inject != nil {
		return "Inject"
	}
	return s.capability.name
}

// BuiltIn reports whether s is one of arena's own types.
func (s Spec) BuiltIn() bool { return s.capability.land != nil }

// metaKey returns the key named name.
func (s Spec) metaKey(name string) (MetaKey, bool) {
	for _, k := range s.Metadata {
		if k.Name == name {
			return k, true
		}
	}
	return MetaKey{}, false
}

func (s Spec) metaNames() []string {
	var names []string
	for _, k := range s.Metadata {
		names = append(names, k.Name)
	}
	return names
}

// LandsOn reports whether the fault can land on an agent in status st:
// the spec's Eligible, or by default any agent that is not stopped.
func (s Spec) LandsOn(st AgentStatus) bool {
	if s.Eligible != nil {
		return s.Eligible(st)
	}
	return st != StatusStopped
}

// Fault type names: lower case letters, digits and _, starting with a
// letter, at most 63 bytes. A user's type may carry a namespace of its own,
// "acme.disk_full": built-in names never hold a dot, so a namespaced name
// never meets one that a later release of arena adopts. Metadata keys have
// no namespace.
var (
	faultName = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$`)
	metaName  = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
)

// maxFaultName bounds a fault type's name, in bytes.
const maxFaultName = 63

// ErrBuiltinName: a fault type registered with WithFault has the name of a
// built-in type (one a later release of arena adopted, say). The injector
// does not panic: it refuses actions of that name, with this error, until
// the user's type is renamed (into a namespace: acme.disk_full).
var ErrBuiltinName = errors.New("the name of a built-in type")

// Check reports what is missing or wrong in a user-defined spec, naming the
// field; WithFault panics with it, but for ErrBuiltinName (see there).
// Built-ins are checked by a test with stricter rules (every part present).
func (s Spec) Check() error {
	if err := s.checkShape(); err != nil {
		return err
	}
	switch {
	case s.BuiltIn():
		return fmt.Errorf("fault %s: a built-in type cannot be registered again", s.Type)
	case s.Inject == nil:
		return fmt.Errorf("fault %s: Inject: missing", s.Type)
	case s.Lift != nil && !s.Lifts:
		return fmt.Errorf("fault %s: Lift given but Lifts is false", s.Type)
	}
	return nil
}

// checkShape checks the parts every spec must have right.
func (s Spec) checkShape() error {
	if !faultName.MatchString(string(s.Type)) || len(s.Type) > maxFaultName {
		return fmt.Errorf("fault %q: Type: want lower case letters, digits and _, starting with a letter, "+
			"optionally after a namespace and a dot (acme.disk_full), at most %d bytes", s.Type, maxFaultName)
	}
	if _, ok := builtins.Lookup(s.Type); ok && !s.BuiltIn() {
		return fmt.Errorf("fault %s: Type: %w: rename yours into a namespace of your own (acme.%s)", s.Type, ErrBuiltinName, s.Type)
	}
	switch s.Target {
	case TargetSystem, TargetAgent, TargetNode, TargetEdge:
		if s.Role != "" {
			return fmt.Errorf("fault %s: Role: only for TargetRole", s.Type)
		}
	case TargetRole:
		if s.Role == "" {
			return fmt.Errorf("fault %s: Role: missing for TargetRole", s.Type)
		}
	default:
		return fmt.Errorf("fault %s: Target: unknown rule %q", s.Type, s.Target)
	}
	if s.Priority < 1 || s.Priority > 10 {
		return fmt.Errorf("fault %s: Priority: %d is not in 1–10", s.Type, s.Priority)
	}
	if strings.TrimSpace(s.Fix) == "" {
		return fmt.Errorf("fault %s: Fix: missing", s.Type)
	}
	if strings.TrimSpace(s.Suggestion) == "" {
		return fmt.Errorf("fault %s: Suggestion: missing", s.Type)
	}
	seen := map[string]bool{}
	for i, k := range s.Metadata {
		field := fmt.Sprintf("fault %s: Metadata[%d]", s.Type, i)
		switch {
		case !metaName.MatchString(k.Name):
			return fmt.Errorf("%s.Name: %q: want lower case letters, digits and _", field, k.Name)
		case seen[k.Name]:
			return fmt.Errorf("%s.Name: %q given twice", field, k.Name)
		case k.Kind != MetaKindDuration && k.Kind != MetaKindString && k.Kind != MetaKindNumber:
			return fmt.Errorf("%s.Kind: unknown kind %q", field, k.Kind)
		case len(k.Enum) > 0 && k.Kind != MetaKindString:
			return fmt.Errorf("%s.Enum: only for MetaKindString", field)
		case k.MaxLen < 0 || k.MaxLen > 0 && k.Kind != MetaKindString:
			return fmt.Errorf("%s.MaxLen: a positive length, only for MetaKindString", field)
		}
		if err := k.checkRange(); err != nil {
			return fmt.Errorf("%s.%w", field, err)
		}
		seen[k.Name] = true
		if k.Default != nil {
			if _, err := k.decode(k.Default); err != nil {
				return fmt.Errorf("%s.Default: %w", field, err)
			}
		}
	}
	if d, ok := s.metaKey(MetaDuration); s.Lifts && (!ok || d.Kind != MetaKindDuration) {
		return fmt.Errorf("fault %s: Lifts needs a MetaKindDuration key %q", s.Type, MetaDuration)
	}
	return nil
}

// Specs returns the specs of the built-in fault types in documentation
// order (the order of Types).
func Specs() []Spec { return builtins.Specs() }

// Lookup returns the spec of a built-in fault type.
func Lookup(t Type) (Spec, bool) {
	if s, ok := builtins.Lookup(t); ok {
		return *s, true
	}
	return Spec{}, false
}

// The flight recorder's categories of a refused injection (Spec.Category,
// engine.Diagnostic).
const (
	CategoryInvalidAction = "invalid_action"
	CategoryConfiguration = "configuration"
	CategoryTargeting     = "targeting"
	CategoryProviderPanic = "provider_panic"
	CategoryCancelled     = "cancelled"
	CategoryRuntime       = "runtime"
	CategoryDAG           = "dag"
)
