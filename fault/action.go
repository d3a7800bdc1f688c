package fault

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/bound"
	"github.com/ares-arena/arena/internal/faulterr"
)

// Type names a fault type: a built-in (Types) or one registered
// with WithFault. The string value is the wire format in YAML, JSON and
// events.
type Type string

// Default fault parameters, used when the metadata leaves them out.
const (
	DefaultSlowDelay   = 5 * time.Second
	DefaultToolTimeout = 5 * time.Second
	DefaultLLMError    = LLMRateLimit
)

// Metadata keys.
const (
	MetaDuration  = "duration"
	MetaDelay     = "delay"
	MetaTimeout   = "timeout"
	MetaErrorType = "error_type"
)

// Types returns the built-in fault types in documentation order (the
// order of their specs: Specs).
func Types() []Type {
	return slices.Clone(builtins.order)
}

// Valid reports whether t is one of the built-in fault types.
func (t Type) Valid() bool { _, ok := builtins.Lookup(t); return ok }

// NeedsDAG reports whether the built-in t is injected through the DAGProvider.
func (t Type) NeedsDAG() bool { s, ok := builtins.Lookup(t); return ok && s.capability.dag }

// MetadataKeys returns the metadata keys the built-in t accepts.
func (t Type) MetadataKeys() []string {
	s, ok := builtins.Lookup(t)
	if !ok {
		return nil
	}
	return s.metaNames()
}

// Liftable reports whether a `duration` on the built-in t makes the engine
// lift the fault.
func (t Type) Liftable() bool { s, ok := builtins.Lookup(t); return ok && s.Lifts }

// Action is one fault to inject. ID and CreatedAt are filled by the engine
// when empty. TargetID may be a selector: any (random), type:<agent type>
// or not:<agent type> (see SelectAny); a DAG node or an edge's end, any.
type Action struct {
	ID        string         `json:"id" yaml:"id,omitempty"`
	Type      Type           `json:"type" yaml:"type"`
	TargetID  string         `json:"target_id,omitempty" yaml:"target_id,omitempty"`
	SourceID  string         `json:"source_id,omitempty" yaml:"source_id,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty" yaml:"metadata,omitempty"`
	CreatedAt time.Time      `json:"created_at" yaml:"-"`
}

// Result is what Execute did with an action. Success means the fault landed;
// whether the system healed is the observer's finding, not the injector's.
type Result struct {
	Action    Action         `json:"action"` // with TargetID resolved
	Success   bool           `json:"success"`
	Error     string         `json:"error,omitempty"`
	Err       error          `json:"-"`          // the error itself, for errors.Is
	StartedAt time.Time      `json:"started_at"` // when arena started landing it: the fault's time (see FaultOutcome)
	Duration  clock.Duration `json:"duration"`   // how long the injection call took
}

// Params are an action's metadata, decoded and defaulted.
type Params struct {
	Duration  time.Duration // 0: the fault stays until healed or lifted by another action
	Delay     time.Duration // slow_agent
	Timeout   time.Duration // tool_timeout
	ErrorType LLMErrorType  // llm_failure
	// Values holds every metadata key of the type that was given or has a
	// default, decoded (time.Duration, string or float64: see MetaKind).
	// User-defined faults read their parameters here. It is nil when there
	// are none (reading a nil map is fine).
	Values map[string]any
}

// Errors of validation and injection.
var (
	// ErrInvalidAction is wrapped by every *ValidationError.
	ErrInvalidAction = errors.New("invalid action")
	// ErrNoRuntime: the action needs a RuntimeProvider and there is none.
	ErrNoRuntime = errors.New("no runtime provider")
	// ErrNoDAG: the action needs a DAGProvider and there is none.
	ErrNoDAG = errors.New("no DAG provider")
	// ErrProviderPanic: the provider panicked while injecting (or a probe,
	// check or bridge panicked while arena called it).
	ErrProviderPanic = faulterr.ProviderPanic
	// ErrNoTarget: a selector found no eligible agent or node.
	ErrNoTarget = errors.New("no eligible target")
	// ErrUnsupported: the runtime does not land the fault type: it lacks
	// the capability, refuses the type (Refuser), or its agent answered
	// that it does not implement the fault (agentapi). Its text reads
	// after the type's name: "mcp_disconnect is not supported by this
	// runtime". Every runtime wraps this one value.
	ErrUnsupported = faulterr.Unsupported
	// ErrCannotLand: the target's state rules the fault out now (pause a
	// paused agent, kill a stopped one, partition a partitioned one, reach
	// an agent that is cut off). Every runtime wraps this one value.
	ErrCannotLand = faulterr.CannotLand
	// ErrNoAgent: the runtime has no agent with the ID given. Every runtime
	// wraps this one value (arenatest.TestRuntime checks it).
	ErrNoAgent = faulterr.NoAgent
)

// ValidationError names the field of an action that is at fault.
type ValidationError struct {
	Field string // "type", "target_id", "metadata.delay", …
	Msg   string
}

// TargetText names what the action hits, for messages and reports: its
// target, or source->target for an edge ("" for a system-wide fault).
func (a Action) TargetText() string {
	if a.SourceID != "" {
		return a.SourceID + "->" + a.TargetID
	}
	return a.TargetID
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Msg }

// Unwrap makes errors.Is(err, ErrInvalidAction) true.
func (e *ValidationError) Unwrap() error { return ErrInvalidAction }

// Invalid returns a *ValidationError naming field, its message formatted
// with bounds: each %q argument and the message are cut (bound.Sprintf).
func Invalid(field, format string, args ...any) error {
	return &ValidationError{Field: bound.Cut(field, bound.MaxText), Msg: bound.Sprintf(format, args...)}
}

// Validate checks the action's type, target and metadata against the
// built-in types, without looking at any provider. It returns the first
// problem as a *ValidationError. Injector.Validate also knows the types
// registered on the injector.
func (a Action) Validate() error {
	_, err := builtins.Params(a)
	return err
}

// Params validates the action against the built-in types and returns its
// decoded, defaulted metadata.
func (a Action) Params() (Params, error) { return builtins.Params(a) }

// paramsFor validates a's target and decodes its metadata against spec, the
// spec of a's type.
func (a Action) paramsFor(spec *Spec) (Params, error) {
	if err := a.validateTarget(spec); err != nil {
		return Params{}, err
	}
	return a.decodeMetadata(spec)
}

func (a Action) validateTarget(spec *Spec) error {
	if a.SourceID != "" && spec.Target != TargetEdge {
		return Invalid("source_id", "%s takes no source_id", a.Type)
	}
	switch spec.Target {
	case TargetRole:
		if a.TargetID != "" {
			return Invalid("target_id", "%s takes no target_id: it hits the %s", a.Type, spec.Role)
		}
	case TargetSystem:
		if a.TargetID != "" {
			return Invalid("target_id", "%s takes no target_id: it hits the system as a whole", a.Type)
		}
	case TargetAgent, TargetNode:
		return checkID("target_id", a.TargetID, spec.Target == TargetAgent)
	case TargetEdge:
		if err := checkID("source_id", a.SourceID, false); err != nil {
			return err
		}
		return checkID("target_id", a.TargetID, false)
	}
	return nil
}

func checkID(field, id string, selectors bool) error {
	switch {
	case id == "":
		return Invalid(field, "missing")
	case IdentifierProblem(id) != "":
		return Invalid(field, "%q %s", id, IdentifierProblem(id))
	case len(id) > 256:
		return Invalid(field, "longer than 256 characters")
	}
	for _, prefix := range []string{SelectType, SelectNot} {
		if typ, ok := strings.CutPrefix(id, prefix); ok && (!selectors || typ == "") {
			if !selectors {
				return Invalid(field, "selector %q is only allowed for agent targets", id)
			}
			return Invalid(field, "selector %q names no agent type", id)
		}
	}
	return nil
}

func (a Action) decodeMetadata(spec *Spec) (Params, error) {
	p := baseParams()
	if len(a.Metadata) == 0 && !spec.hasDefaults() { // most actions: no map, nothing to decode
		return p, nil
	}
	p.Values = map[string]any{}
	for _, k := range spec.Metadata {
		if k.Default != nil {
			p.Values[k.Name], _ = k.decode(k.Default) // checked when the spec was made
		}
	}
	for _, key := range sortedKeys(a.Metadata) {
		k, ok := spec.metaKey(key)
		if !ok {
			if len(spec.Metadata) == 0 {
				return Params{}, Invalid("metadata."+key, "unknown key: %s takes no metadata", a.Type)
			}
			return Params{}, Invalid("metadata."+key, "unknown key for %s (want %s)", a.Type, strings.Join(spec.metaNames(), ", "))
		}
		v, err := k.decode(a.Metadata[key])
		if err != nil {
			return Params{}, Invalid("metadata."+key, "%v", err)
		}
		p.Values[key] = v
	}
	p.typed()
	return p, nil
}

func (s *Spec) hasDefaults() bool {
	for _, k := range s.Metadata {
		if k.Default != nil {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
