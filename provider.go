package arena

import (
	"context"
	"errors"
)

// AgentInfo describes one agent of the system under test as its runtime reports it.
type AgentInfo struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"` // "leader", "orchestrator", "worker", or a user type
	Status   AgentStatus `json:"status"`
	Restarts int         `json:"restarts"`
}

// AgentStatus is an agent's lifecycle state.
type AgentStatus string

// Agent statuses. Runtimes may report others; the engine treats unknown values as running.
const (
	StatusRunning AgentStatus = "running"
	StatusPaused  AgentStatus = "paused"
	StatusStopped AgentStatus = "stopped"
)

// Agent types with a meaning to the engine: kill_leader and kill_orchestrator target them.
const (
	TypeLeader       = "leader"
	TypeOrchestrator = "orchestrator"
	TypeWorker       = "worker"
)

// Edge is a directed edge of the task DAG.
type Edge struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// ErrNotApplicable is returned (wrapped) by a check that could not look.
var ErrNotApplicable = errors.New("not applicable")

// Probe reports whether the system is healthy right now; nil means healthy.
type Probe func(ctx context.Context) error

// Check is a named invariant of the system (no task lost, memory matches its
// checkpoint, DAG restored), run after each fault has recovered and at the end.
// A check that had nothing to look at (an agent without the endpoint it
// reads) returns an error wrapping ErrNotApplicable: it is then listed as not
// measured and does not count toward consistency, never as passed.
type Check struct {
	Name string
	Run  func(ctx context.Context) error
}

// LLMErrorType is the kind of LLM failure injected by llm_failure.
type LLMErrorType string

// LLM error types accepted in the `error_type` metadata.
const (
	LLMRateLimit       LLMErrorType = "rate_limit"
	LLMOverloaded      LLMErrorType = "overloaded"
	LLMTimeout         LLMErrorType = "timeout"
	LLMServerError     LLMErrorType = "server_error"
	LLMInvalidResponse LLMErrorType = "invalid_response"
)

// LLMErrorTypes lists the accepted LLM error types in documentation order.
func LLMErrorTypes() []LLMErrorType {
	return []LLMErrorType{LLMRateLimit, LLMOverloaded, LLMTimeout, LLMServerError, LLMInvalidResponse}
}

// Retryable reports whether a client would sensibly retry this error.
// invalid_response is not retryable: the same prompt gives the same garbage.
func (e LLMErrorType) Retryable() bool { return e != LLMInvalidResponse }
