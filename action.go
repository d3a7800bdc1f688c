package arena

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

// ActionType names one of the thirteen fault types. The string value is the
// wire format in YAML, JSON and events.
type ActionType string

// The fault types. See the table in DESIGN §3 (and ActionTypes) for targets,
// provider calls and metadata.
const (
	ActionKillLeader       ActionType = "kill_leader"
	ActionKillOrchestrator ActionType = "kill_orchestrator"
	ActionKillAgent        ActionType = "kill_agent"
	ActionPauseAgent       ActionType = "pause_agent"
	ActionResumeAgent      ActionType = "resume_agent"
	ActionSlowAgent        ActionType = "slow_agent"
	ActionNetworkPartition ActionType = "network_partition"
	ActionToolTimeout      ActionType = "tool_timeout"
	ActionMemoryCorrupt    ActionType = "memory_corrupt"
	ActionMCPDisconnect    ActionType = "mcp_disconnect"
	ActionLLMFailure       ActionType = "llm_failure"
	ActionRemoveNode       ActionType = "remove_node"
	ActionRemoveEdge       ActionType = "remove_edge"
)

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

// targetKind says what an action's target_id (and source_id) name.
type targetKind int

const (
	targetNone  targetKind = iota // the role decides: kill_leader, kill_orchestrator
	targetAgent                   // target_id is an agent or a selector
	targetNode                    // target_id is a DAG node
	targetEdge                    // source_id → target_id is a DAG edge
)

type actionSpec struct {
	target targetKind
	role   string   // for targetNone: the agent type that is hit
	dag    bool     // needs a DAGProvider instead of a RuntimeProvider
	meta   []string // allowed metadata keys
	lifts  bool     // a `duration` makes the engine lift the fault
}

var specs = map[ActionType]actionSpec{
	ActionKillLeader:       {target: targetNone, role: TypeLeader},
	ActionKillOrchestrator: {target: targetNone, role: TypeOrchestrator},
	ActionKillAgent:        {target: targetAgent},
	ActionPauseAgent:       {target: targetAgent, meta: []string{MetaDuration}, lifts: true},
	ActionResumeAgent:      {target: targetAgent},
	ActionSlowAgent:        {target: targetAgent, meta: []string{MetaDelay, MetaDuration}, lifts: true},
	ActionNetworkPartition: {target: targetAgent, meta: []string{MetaDuration}, lifts: true},
	ActionToolTimeout:      {target: targetAgent, meta: []string{MetaTimeout, MetaDuration}, lifts: true},
	ActionMemoryCorrupt:    {target: targetAgent},
	ActionMCPDisconnect:    {target: targetAgent, meta: []string{MetaDuration}, lifts: true},
	ActionLLMFailure:       {target: targetAgent, meta: []string{MetaErrorType, MetaDuration}, lifts: true},
	ActionRemoveNode:       {target: targetNode, dag: true},
	ActionRemoveEdge:       {target: targetEdge, dag: true},
}

// ActionTypes returns the thirteen fault types in documentation order.
func ActionTypes() []ActionType {
	return []ActionType{
		ActionKillLeader, ActionKillOrchestrator, ActionKillAgent, ActionPauseAgent,
		ActionResumeAgent, ActionSlowAgent, ActionNetworkPartition, ActionToolTimeout,
		ActionMemoryCorrupt, ActionMCPDisconnect, ActionLLMFailure, ActionRemoveNode,
		ActionRemoveEdge,
	}
}

// Valid reports whether t is one of the thirteen fault types.
func (t ActionType) Valid() bool { _, ok := specs[t]; return ok }

// NeedsDAG reports whether t is injected through the DAGProvider.
func (t ActionType) NeedsDAG() bool { return specs[t].dag }

// MetadataKeys returns the metadata keys t accepts.
func (t ActionType) MetadataKeys() []string { return slices.Clone(specs[t].meta) }

// Liftable reports whether a `duration` on t makes the engine lift the fault.
func (t ActionType) Liftable() bool { return specs[t].lifts }

// Action is one fault to inject. ID and CreatedAt are filled by the engine
// when empty. TargetID may be a selector: "random" or "type:<agent type>".
type Action struct {
	ID        string         `json:"id" yaml:"id,omitempty"`
	Type      ActionType     `json:"type" yaml:"type"`
	TargetID  string         `json:"target_id,omitempty" yaml:"target_id,omitempty"`
	SourceID  string         `json:"source_id,omitempty" yaml:"source_id,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty" yaml:"metadata,omitempty"`
	CreatedAt time.Time      `json:"created_at" yaml:"-"`
}

// Result is what Execute did with an action. Success means the fault landed;
// whether the system healed is the observer's finding, not the injector's.
type Result struct {
	Action    Action    `json:"action"` // with TargetID resolved
	Success   bool      `json:"success"`
	Error     string    `json:"error,omitempty"`
	Err       error     `json:"-"`          // the error itself, for errors.Is
	StartedAt time.Time `json:"started_at"` // when arena started landing it: the fault's time (see FaultOutcome)
	Duration  Duration  `json:"duration"`   // how long the injection call took
}

// Params are an action's metadata, decoded and defaulted.
type Params struct {
	Duration  time.Duration // 0: the fault stays until healed or lifted by another action
	Delay     time.Duration // slow_agent
	Timeout   time.Duration // tool_timeout
	ErrorType LLMErrorType  // llm_failure
}

// Errors of validation and injection.
var (
	// ErrInvalidAction is wrapped by every *ValidationError.
	ErrInvalidAction = errors.New("invalid action")
	// ErrNoRuntime: the action needs a RuntimeProvider and there is none.
	ErrNoRuntime = errors.New("no runtime provider")
	// ErrNoDAG: the action needs a DAGProvider and there is none.
	ErrNoDAG = errors.New("no DAG provider")
	// ErrProviderPanic: the provider panicked while injecting.
	ErrProviderPanic = errors.New("provider panicked")
	// ErrNoTarget: a selector found no eligible agent or node.
	ErrNoTarget = errors.New("no eligible target")
)

// ValidationError names the field of an action that is at fault.
type ValidationError struct {
	Field string // "type", "target_id", "metadata.delay", …
	Msg   string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Msg }

// Unwrap makes errors.Is(err, ErrInvalidAction) true.
func (e *ValidationError) Unwrap() error { return ErrInvalidAction }

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks the action's type, target and metadata without looking at
// any provider. It returns the first problem as a *ValidationError.
func (a Action) Validate() error {
	_, err := a.Params()
	return err
}

// Params validates the action and returns its decoded, defaulted metadata.
func (a Action) Params() (Params, error) {
	spec, ok := specs[a.Type]
	if !ok {
		if a.Type == "" {
			return Params{}, invalid("type", "missing")
		}
		return Params{}, invalid("type", "unknown action type %q (want one of %s)", a.Type, typeList())
	}
	if err := a.validateTarget(spec); err != nil {
		return Params{}, err
	}
	return a.decodeMetadata(spec)
}

func (a Action) validateTarget(spec actionSpec) error {
	if a.SourceID != "" && spec.target != targetEdge {
		return invalid("source_id", "%s takes no source_id", a.Type)
	}
	switch spec.target {
	case targetNone:
		if a.TargetID != "" {
			return invalid("target_id", "%s takes no target_id: it hits the %s", a.Type, spec.role)
		}
	case targetAgent, targetNode:
		return checkID("target_id", a.TargetID, spec.target == targetAgent)
	case targetEdge:
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
		return invalid(field, "missing")
	case strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || unicode.IsSpace(r) || unicode.IsControl(r) }):
		return invalid(field, "%q contains white space or control characters", id)
	case len(id) > 256:
		return invalid(field, "longer than 256 characters")
	}
	if typ, ok := strings.CutPrefix(id, "type:"); ok && (!selectors || typ == "") {
		if !selectors {
			return invalid(field, "selector %q is only allowed for agent targets", id)
		}
		return invalid(field, "selector %q names no agent type", id)
	}
	return nil
}

func (a Action) decodeMetadata(spec actionSpec) (Params, error) {
	p := Params{Delay: DefaultSlowDelay, Timeout: DefaultToolTimeout, ErrorType: DefaultLLMError}
	for _, key := range sortedKeys(a.Metadata) {
		field := "metadata." + key
		if !slices.Contains(spec.meta, key) {
			if len(spec.meta) == 0 {
				return Params{}, invalid(field, "unknown key: %s takes no metadata", a.Type)
			}
			return Params{}, invalid(field, "unknown key for %s (want %s)", a.Type, strings.Join(spec.meta, ", "))
		}
		v := a.Metadata[key]
		if key == MetaErrorType {
			s, ok := v.(string)
			if !ok {
				return Params{}, invalid(field, "want a string, got %T", v)
			}
			et := LLMErrorType(s)
			if !slices.Contains(LLMErrorTypes(), et) {
				return Params{}, invalid(field, "unknown error type %q (want one of %s)", s, errorTypeList())
			}
			p.ErrorType = et
			continue
		}
		d, err := ParseDuration(v)
		if err != nil {
			return Params{}, invalid(field, "%v", err)
		}
		if d < 0 {
			return Params{}, invalid(field, "negative duration %s", d)
		}
		switch key {
		case MetaDuration:
			p.Duration = d
		case MetaDelay:
			if d == 0 {
				return Params{}, invalid(field, "must be positive")
			}
			p.Delay = d
		case MetaTimeout:
			if d == 0 {
				return Params{}, invalid(field, "must be positive")
			}
			p.Timeout = d
		}
	}
	return p, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func typeList() string {
	names := make([]string, 0, len(specs))
	for _, t := range ActionTypes() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

func errorTypeList() string {
	names := make([]string, 0, 5)
	for _, t := range LLMErrorTypes() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}
