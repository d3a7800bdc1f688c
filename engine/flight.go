package engine

import (
	"context"
	"errors"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
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
	Time     time.Time      `json:"time"`
	Kind     string         `json:"kind"` // "chaos.action"
	ActionID string         `json:"action_id"`
	Type     fault.Type     `json:"type"`
	TargetID string         `json:"target_id,omitempty"`
	SourceID string         `json:"source_id,omitempty"`
	Success  bool           `json:"success"`
	Error    string         `json:"error,omitempty"`
	Duration clock.Duration `json:"duration"`
}

// Diagnostic explains a failed action: what kind of problem it is and what to
// do about it.
type Diagnostic struct {
	Time         time.Time  `json:"time"`
	ActionID     string     `json:"action_id"`
	Type         fault.Type `json:"type"`
	TargetID     string     `json:"target_id,omitempty"`
	Category     string     `json:"category"`
	Message      string     `json:"message"`
	SuggestedFix string     `json:"suggested_fix"`
}

// diagnose classifies a failed result; a refusal by the provider gets the
// category and fix of the type's spec.
func diagnose(res fault.Result, err error, spec fault.Spec) Diagnostic {
	d := Diagnostic{
		Time: res.StartedAt, ActionID: res.Action.ID, Type: res.Action.Type,
		TargetID: res.Action.TargetID, Message: res.Error,
	}
	switch {
	case errors.Is(err, fault.ErrInvalidAction):
		d.Category, d.SuggestedFix = fault.CategoryInvalidAction, "fix the field named in the message; see the action table in the arena docs"
	case errors.Is(err, fault.ErrNoRuntime):
		d.Category, d.SuggestedFix = fault.CategoryConfiguration, "give the injector a RuntimeProvider: fault.NewInjector(runtime, dag)"
	case errors.Is(err, fault.ErrNoDAG):
		d.Category, d.SuggestedFix = fault.CategoryConfiguration, "give the injector a DAGProvider: fault.NewInjector(runtime, dag)"
	case errors.Is(err, fault.ErrUnsupported):
		d.Category, d.SuggestedFix = fault.CategoryConfiguration, "this runtime cannot land "+string(res.Action.Type)+": implement the capability the message names, or leave the type out"
	case errors.Is(err, fault.ErrNoTarget):
		d.Category, d.SuggestedFix = fault.CategoryTargeting, "no agent matched the selector: check the agent types and their states (ListAgents)"
	case errors.Is(err, fault.ErrProviderPanic):
		d.Category, d.SuggestedFix = fault.CategoryProviderPanic, "the provider panicked: this is a bug in the provider; the message has the panic value"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		d.Category, d.SuggestedFix = fault.CategoryCancelled, "the run was cancelled or timed out before the fault landed"
	default:
		d.Category, d.SuggestedFix = spec.Category, spec.Fix
	}
	return d
}
