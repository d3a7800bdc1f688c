package arena

import (
	"context"
	"time"
)

// The capabilities a runtime may have. Each fault type names the one that
// lands it (FaultSpec.Capability); the injector finds it on the runtime by
// type assertion, so a runtime implements only the faults it can land:
// a runtime with AgentLister, AgentStopper and Pauser runs kills and pauses,
// and a scenario with an MCP fault against it fails validation before the
// run starts (ErrUnsupported). A capability added for a new built-in type
// stays out of RuntimeProvider, so that runtimes written against it still
// compile: they simply do not support the new type.

// AgentLister lists the agents of the system. Every runtime has it: roles
// and selectors (random, type:<t>) are resolved from it.
type AgentLister interface {
	ListAgents(ctx context.Context) ([]AgentInfo, error)
}

// AgentStopper kills an agent: kill_leader, kill_orchestrator, kill_agent.
type AgentStopper interface {
	StopAgent(ctx context.Context, agentID string) error
}

// Pauser freezes and thaws an agent: pause_agent, resume_agent.
type Pauser interface {
	PauseAgent(ctx context.Context, agentID string) error
	ResumeAgent(ctx context.Context, agentID string) error
}

// Slower adds a delay to an agent's work: slow_agent.
type Slower interface {
	SlowAgent(ctx context.Context, agentID string, delay time.Duration) error
}

// Partitioner cuts an agent off the network: network_partition.
type Partitioner interface {
	PartitionNetwork(ctx context.Context, agentID string) error
}

// ToolTimeouter makes an agent's tool calls hang: tool_timeout.
type ToolTimeouter interface {
	ToolTimeout(ctx context.Context, agentID string, timeout time.Duration) error
}

// MemoryCorrupter corrupts an agent's memory: memory_corrupt.
type MemoryCorrupter interface {
	CorruptMemory(ctx context.Context, agentID string) error
}

// MCPDisconnecter drops an agent's MCP connection: mcp_disconnect.
type MCPDisconnecter interface {
	DisconnectMCP(ctx context.Context, agentID string) error
}

// LLMFailer makes an agent's LLM calls fail: llm_failure.
type LLMFailer interface {
	InjectLLMFailure(ctx context.Context, agentID string, errType LLMErrorType) error
}

// RuntimeProvider is every agent-level capability at once: the contract of
// the original package, kept so that full runtimes (fakes.Cluster,
// containers.Runtime) read as before. Implementations: fakes.Cluster (in
// memory) and containers.Runtime (Docker). Every call lands a fault and
// returns; healing is the system's job, lifting timed faults is FaultLifter's.
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
