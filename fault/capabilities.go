package fault

import (
	"context"
	"time"
)

// The capabilities a runtime may have. Each fault type names the one that
// lands it (Spec.Capability); the injector finds it on the runtime by
// type assertion, so a runtime implements only the faults it can land:
// a runtime with AgentLister, AgentStopper and Pauser runs kills and pauses,
// and a scenario with an MCP fault against it fails validation before the
// run starts (ErrUnsupported). A capability added for a new built-in type
// stays out of RuntimeProvider, so that runtimes written against it still
// compile: they simply do not support the new type (and their conformance
// test, arenatest.TestRuntime, asks them to say so: see Refuser).
//
// The capability of a fault arena can lift (a Spec with Lifts) hands
// back the fault's Lift when it lands; kills, memory corruption, resume and
// DAG surgery return only an error: healing them is the system's job.

// Lift undoes one landed fault: it resumes the paused agent, restores the
// slowed one, heals the partition, clears the tool, MCP, LLM or network
// fault. The capability that landed the fault hands it back, so the undo
// is written next to the landing and knows what it landed. arena calls it
// at the fault's duration, on request (Service.LiftFault) or when the run
// ends (rollback), at most once and from any goroutine; the system may
// have healed the fault meanwhile, so lifting a fault that is no longer in
// place (or lifting twice) must return nil. A landing that fails returns
// a nil Lift.
type Lift func(ctx context.Context) error

// Refuser is implemented by a runtime that refuses some of the built-in
// fault types: Refusals maps each type it does not land to the reason, in
// one place. The injector reports a refused type as ErrUnsupported with
// the reason ("network_latency is not supported by this runtime: the
// agents' links go through no proxy: wrap the runtime with
// containers.NewProxied"), and arenatest.TestRuntime
// fails a runtime that neither lands nor refuses some built-in type (or
// does both), so a new built-in type asks every runtime to decide.
type Refuser interface {
	Refusals() map[Type]string
}

// ScopeRefuser is implemented by a runtime that reaches none of a scope:
// RefusedScopes maps each scope it refuses to the reason. A built-in type
// of such a scope that the runtime has no capability for is refused with
// the scope's reason, unless Refusals names the type with a reason of its
// own; one it has the capability for lands. So a built-in type added to a
// scope the runtime refuses needs nothing of it.
type ScopeRefuser interface {
	RefusedScopes() map[Scope]string
}

// AgentLister lists the agents of the system. Every runtime has it: roles
// and selectors (random, type:<t>) are resolved from it.
type AgentLister interface {
	ListAgents(ctx context.Context) ([]AgentInfo, error)
}

// Reacher is implemented by a runtime whose agents do not all have what a
// fault type acts on: an agent with no model client for llm_failure, a tool
// server with no MCP client for mcp_disconnect (agentwire.Agents).
// Reaches says whether a fault of type t can land on the agent; selectors
// (any, type:<t>, not:<t>) and survival then pick only among the agents it
// reaches, so a portable scenario's not:leader finds the agents that call
// a model. A target named by its ID is not filtered: landing it says why
// it cannot.
type Reacher interface {
	Reaches(t Type, agentID string) bool
}

// AgentStopper kills an agent: kill_leader, kill_orchestrator, kill_agent.
type AgentStopper interface {
	StopAgent(ctx context.Context, agentID string) error
}

// Pauser freezes and thaws an agent: pause_agent (lifted by its Lift),
// resume_agent.
type Pauser interface {
	PauseAgent(ctx context.Context, agentID string) (Lift, error)
	ResumeAgent(ctx context.Context, agentID string) error
}

// Slower adds a delay to an agent's work: slow_agent.
type Slower interface {
	SlowAgent(ctx context.Context, agentID string, delay time.Duration) (Lift, error)
}

// Partitioner cuts an agent off the network: network_partition.
type Partitioner interface {
	PartitionNetwork(ctx context.Context, agentID string) (Lift, error)
}

// ToolTimeouter makes an agent's tool calls hang: tool_timeout.
type ToolTimeouter interface {
	ToolTimeout(ctx context.Context, agentID string, timeout time.Duration) (Lift, error)
}

// MemoryCorrupter corrupts an agent's memory: memory_corrupt. It is never
// lifted: restoring the memory is the system's job.
type MemoryCorrupter interface {
	CorruptMemory(ctx context.Context, agentID string) error
}

// MCPDisconnecter drops an agent's MCP connection: mcp_disconnect.
type MCPDisconnecter interface {
	DisconnectMCP(ctx context.Context, agentID string) (Lift, error)
}

// LLMFailer makes an agent's LLM calls fail: llm_failure.
type LLMFailer interface {
	InjectLLMFailure(ctx context.Context, agentID string, errType LLMErrorType) (Lift, error)
}

// RuntimeProvider is the agent-level capabilities of the original contract
// at once (not the ones added since: LatencyInjector, BandwidthLimiter,
// ConnectionResetter, ClockJumper stay out of it, so that runtimes written
// against it still compile), kept so that full runtimes (fakes.Cluster,
// containers.Runtime) read as before. Implementations: fakes.Cluster (in
// memory), containers.Runtime (Docker) and kube.Runtime (Kubernetes). Every
// call lands a fault and returns, with the fault's Lift when arena can lift
// it; healing is the system's job.
type RuntimeProvider interface {
	AgentLister
	AgentStopper
	Pauser
	Slower
	Partitioner
	ToolTimeouter
	MemoryCorrupter
	MCPDisconnecter
	LLMFailer
}

// DAGProvider removes nodes and edges of the task DAG that wires the agents
// (remove_node, remove_edge). It is given to the injector apart from the
// runtime (NewInjector's second argument, or WithDAG).
type DAGProvider interface {
	ListNodes(ctx context.Context) ([]string, error)
	ListEdges(ctx context.Context) ([]Edge, error)
	RemoveNode(ctx context.Context, nodeID string) error
	RemoveEdge(ctx context.Context, sourceID, targetID string) error
}

// HealReporter is implemented by runtimes whose own mechanisms end some
// faults before arena lifts them (containers.WithPartitionHealing: the
// network reconnects after a delay). When arena lifts a fault with a
// duration, it asks whether the runtime had already healed the fault that
// landed on agentID at since, and when; the report then says what happened
// ("healed by the runtime at X, lifted by arena at Y"), not what was planned.
type HealReporter interface {
	HealedAt(kind Type, agentID string, since time.Time) (time.Time, bool)
}
