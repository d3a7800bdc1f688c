package arena

import (
	"context"
	"errors"
	"time"
)

// FlightRecorder is the system's flight recorder: every executed action
// becomes a timeline event, and every failed one also a diagnostic.
type FlightRecorder interface {
	RecordEvent(ctx context.Context, e FlightEvent) error
	RecordDiagnostic(ctx context.Context, d Diagnostic) error
}

// FlightReader is implemented by flight recorders that can be read back
// (the HTTP API serves /arena/flight/timeline and /diagnostics from it).
type FlightReader interface {
	Timeline(ctx context.Context) ([]FlightEvent, error)
	Diagnostics(ctx context.Context) ([]Diagnostic, error)
}

// FlightEvent is one action on the flight recorder's timeline.
type FlightEvent struct {
	Time     time.Time  `json:"time"`
	Kind     string     `json:"kind"` // "chaos.action"
	ActionID string     `json:"action_id"`
	Type     ActionType `json:"type"`
	TargetID string     `json:"target_id,omitempty"`
	SourceID string     `json:"source_id,omitempty"`
	Success  bool       `json:"success"`
	Error    string     `json:"error,omitempty"`
	Duration Duration   `json:"duration"`
}

// Diagnostic explains a failed action: what kind of problem it is and what to
// do about it.
type Diagnostic struct {
	Time         time.Time  `json:"time"`
	ActionID     string     `json:"action_id"`
	Type         ActionType `json:"type"`
	TargetID     string     `json:"target_id,omitempty"`
	Category     string     `json:"category"`
	Message      string     `json:"message"`
	SuggestedFix string     `json:"suggested_fix"`
}

// Diagnostic categories.
const (
	CategoryInvalidAction = "invalid_action"
	CategoryConfiguration = "configuration"
	CategoryTargeting     = "targeting"
	CategoryProviderPanic = "provider_panic"
	CategoryCancelled     = "cancelled"
	CategoryRuntime       = "runtime"
	CategoryDAG           = "dag"
)

// fixes are the suggested fixes for a fault the provider refused, per type.
var fixes = map[ActionType]string{
	ActionKillLeader:       "make sure a leader is running before killing it; after a kill, wait for failover before the next",
	ActionKillOrchestrator: "make sure an orchestrator is running before killing it; after a kill, wait for failover before the next",
	ActionKillAgent:        "target a running agent (a stopped agent cannot be killed again); use type:<t> or random to pick one",
	ActionPauseAgent:       "target a running agent; a paused or stopped agent cannot be paused",
	ActionResumeAgent:      "resume only paused agents: pause it first or target one that is paused",
	ActionSlowAgent:        "target a running agent and check the runtime supports CPU throttling",
	ActionNetworkPartition: "target a connected agent; an agent already partitioned cannot be partitioned again",
	ActionToolTimeout:      "target a running agent that implements the fault-control contract",
	ActionMemoryCorrupt:    "target a running agent that implements the fault-control contract",
	ActionMCPDisconnect:    "target a running agent with an MCP connection",
	ActionLLMFailure:       "target a running agent that implements the fault-control contract",
	ActionRemoveNode:       "name a node that exists in the DAG (see ListNodes)",
	ActionRemoveEdge:       "name an edge that exists in the DAG (see ListEdges)",
}

// diagnose classifies a failed result.
func diagnose(res Result, err error) Diagnostic {
	d := Diagnostic{
		Time: res.StartedAt, ActionID: res.Action.ID, Type: res.Action.Type,
		TargetID: res.Action.TargetID, Message: res.Error,
	}
	switch {
	case errors.Is(err, ErrInvalidAction):
		d.Category, d.SuggestedFix = CategoryInvalidAction, "fix the field named in the message; see the action table in the arena docs"
	case errors.Is(err, ErrNoRuntime):
		d.Category, d.SuggestedFix = CategoryConfiguration, "give the injector a RuntimeProvider: arena.NewInjector(runtime, dag)"
	case errors.Is(err, ErrNoDAG):
		d.Category, d.SuggestedFix = CategoryConfiguration, "give the injector a DAGProvider: arena.NewInjector(runtime, dag)"
	case errors.Is(err, ErrNoTarget):
		d.Category, d.SuggestedFix = CategoryTargeting, "no agent matched the selector: check the agent types and their states (ListAgents)"
	case errors.Is(err, ErrProviderPanic):
		d.Category, d.SuggestedFix = CategoryProviderPanic, "the provider panicked: this is a bug in the provider; the message has the panic value"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		d.Category, d.SuggestedFix = CategoryCancelled, "the run was cancelled or timed out before the fault landed"
	case res.Action.Type.NeedsDAG():
		d.Category, d.SuggestedFix = CategoryDAG, fixes[res.Action.Type]
	default:
		d.Category, d.SuggestedFix = CategoryRuntime, fixes[res.Action.Type]
	}
	return d
}
