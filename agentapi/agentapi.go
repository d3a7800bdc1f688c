// Package agentapi is the fault-control contract between arena's runtimes
// of real agents (package containers, package kube) and the agents they
// run: a few HTTP endpoints and their JSON bodies, and Client, the one
// client of it that both runtimes use. The reference agent (cmd/agentd)
// implements all of it; an agent of your own implements what it can, and
// the runtime reports the rest as fault.ErrUnsupported. It imports only
// the standard library, the sentinel errors arena exports and a duration
// bound (internal/faulterr, internal/bound: not arena's layers), so an
// agent written in Go can import it cheaply;
// agents in other languages follow the description below
// (docs/fault-control.md has it with examples).
//
// # Endpoints
//
// Every endpoint is served on the agent's control port (8080/tcp unless the
// runtime is told otherwise) and answers JSON.
//
//	GET    /health         200 {"healthy":true} when the agent works; 503 with a Health body
//	                       whose reason says why not. Required: it is the runtime's probe.
//	POST   /faults         body: Fault. 200 with the agent's FaultState when it landed;
//	                       400 malformed, 409 cannot land now, 501 unknown kind.
//	DELETE /faults/{kind}  lifts the fault of that kind: 200 with FaultState, also when it was
//	                       not active (lifting is idempotent); 501 for a kind it never supports.
//	GET    /state          200 with State: what the consistency checks read. Optional: an agent
//	                       answering 404 is left out of the checks.
//
// A fault with a Duration lifts itself after it (the agent keeps the timer),
// so that a fault outlives nobody's test; without one it stays until lifted
// or healed. Posting a fault of a kind that is active replaces it.
//
// # Fault kinds
//
//	tool_timeout     tool calls hang for Timeout, then fail
//	mcp_disconnect   the MCP session drops; the agent may reconnect on its own
//	llm_failure      LLM calls fail with ErrorType (rate_limit, overloaded, timeout,
//	                 server_error, invalid_response)
//	memory_corrupt   the agent's memory no longer matches its checksum; the agent heals
//	                 from its checkpoint (never lifted)
//	remove_edge      the agent stops routing to Target (a DAG edge from this agent)
//	remove_node      the agent leaves the task DAG: it takes and routes no tasks
//	pause            the agent stops: its loops halt and every request but
//	                 DELETE /faults/pause is held unanswered until the pause
//	                 is lifted or its Duration ends (for runtimes that cannot
//	                 freeze the process, such as Kubernetes; the container
//	                 runtime uses docker pause instead)
//	clock_jump       the agent's clock runs Offset ahead: every time it reads
//	                 (timeouts, expiries, windows, timestamps) is Offset later
//	                 than it is, until lifted
//
// The strings are arena's action types (fault.ToolTimeout, …), but
// for pause (fault.PauseAgent).
package agentapi

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ares-arena/arena/internal/bound"
)

// Paths of the contract.
const (
	PathHealth = "/health"
	PathFaults = "/faults" // POST; DELETE PathFaults + "/" + kind
	PathState  = "/state"
	// PathTasks is where agentd agents hand tasks to each other. It is
	// agentd's own protocol, not part of the contract.
	PathTasks = "/tasks"
)

// DefaultPort is the control port of agents that do not say otherwise.
const DefaultPort = "8080/tcp"

// Fault kinds: arena's action types of the faults an agent lands itself.
const (
	KindToolTimeout   = "tool_timeout"
	KindMCPDisconnect = "mcp_disconnect"
	KindLLMFailure    = "llm_failure"
	KindMemoryCorrupt = "memory_corrupt"
	KindRemoveEdge    = "remove_edge"
	KindRemoveNode    = "remove_node"
	// KindPause is not an arena action type: arena's pause_agent lands as
	// it where the runtime cannot freeze the agent's process.
	KindPause     = "pause"
	KindClockJump = "clock_jump"
)

// Kinds returns the fault kinds of the contract, in documentation order.
// Every one but memory_corrupt is lifted by DELETE /faults/{kind}.
func Kinds() []string {
	return []string{KindToolTimeout, KindMCPDisconnect, KindLLMFailure, KindMemoryCorrupt, KindRemoveEdge, KindRemoveNode, KindPause, KindClockJump}
}

// Fault is the body of POST /faults.
type Fault struct {
	Kind      string   `json:"kind"`
	Timeout   Duration `json:"timeout,omitempty"`    // tool_timeout
	ErrorType string   `json:"error_type,omitempty"` // llm_failure
	Target    string   `json:"target,omitempty"`     // remove_edge: the edge's target
	Offset    Duration `json:"offset,omitempty"`     // clock_jump: how far ahead (default 1m)
	// Duration is the fault's lifetime: the agent lifts it after this.
	// Zero: until lifted (DELETE) or healed.
	Duration Duration `json:"duration,omitempty"`
}

// ActiveFault is a fault the agent has now.
type ActiveFault struct {
	Fault
	Since time.Time `json:"since"`
	// Until is when the agent lifts it on its own (zero: never).
	Until time.Time `json:"until,omitzero"`
}

// FaultState answers POST and DELETE on /faults: the faults active after
// the request.
type FaultState struct {
	Faults []ActiveFault `json:"faults"`
}

// Health is the body of GET /health. Status 200 goes with Healthy true,
// 503 with false and a Reason.
type Health struct {
	Healthy bool   `json:"healthy"`
	Reason  string `json:"reason,omitempty"`
	// DAGBroken says the reason is a broken task DAG (a removed node or
	// edge): the whole system is unhealthy, whatever the quorum.
	DAGBroken bool `json:"dag_broken,omitempty"`
}

// Error is the body of every 4xx and 5xx answer other than an unhealthy
// /health.
type Error struct {
	Error string `json:"error"`
}

// State is the body of GET /state: what the consistency checks read.
type State struct {
	ID       string        `json:"id"`
	Type     string        `json:"type"`
	Started  time.Time     `json:"started"` // this process's start
	Faults   []ActiveFault `json:"faults"`
	Memory   Memory        `json:"memory"`
	Tasks    Tasks         `json:"tasks"`
	Ledger   Ledger        `json:"ledger"`
	DAG      DAG           `json:"dag"`
	Health   Health        `json:"health"`
	Attempts Attempts      `json:"attempts"`
}

// Memory is the agent's memory against its checkpoint.
type Memory struct {
	// OK: the memory matches its own checksum (it is not corrupted).
	OK       bool   `json:"ok"`
	Checksum string `json:"checksum"`
	// CheckpointOK: the last checkpoint on disk reads back and matches its
	// checksum. CheckpointAt is when it was written (zero: none yet).
	CheckpointOK bool      `json:"checkpoint_ok"`
	CheckpointAt time.Time `json:"checkpoint_at,omitzero"`
	// Restores counts the times the memory was restored from the
	// checkpoint: after a restart or a detected corruption.
	Restores int `json:"restores"`
}

// Tasks counts the agent's ledger: tasks it accepted (received or created),
// finished (done or failed for good), handed on to another agent, and still
// pending here.
type Tasks struct {
	Accepted int `json:"accepted"`
	Done     int `json:"done"`
	Failed   int `json:"failed"`
	Handed   int `json:"handed"`
	Pending  int `json:"pending"`
}

// Ledger is the agent's durable record of tasks: the IDs it accepted, and
// to whom it handed which. A task handed to X must be in X's Accepted:
// otherwise X lost it.
type Ledger struct {
	Accepted []string            `json:"accepted"`
	Handed   map[string][]string `json:"handed,omitempty"` // agent ID → task IDs
}

// DAG is the agent's place in the task DAG: the agents it routes tasks to.
type DAG struct {
	Removed bool     `json:"removed"` // the node is out of the DAG
	Routes  []string `json:"routes"`  // present outgoing edges' targets
	Missing []string `json:"missing"` // canonical outgoing edges now removed
}

// Attempts counts task attempts by outcome, and the latency of the last ones.
type Attempts struct {
	OK       int            `json:"ok"`
	Failed   map[string]int `json:"failed,omitempty"` // reason → count
	LastWork Duration       `json:"last_work"`        // CPU work of the last attempt
}

// Duration is a time.Duration written as a Go duration string ("1.5s"),
// read from a string or a number of seconds: arena's one encoding.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("duration: want a string or a number of seconds, got %s", b)
	}
	v, err := bound.Seconds(f)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v)
	return nil
}
