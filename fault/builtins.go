package fault

import (
	"context"
	"time"
)

// The built-in fault types: a constant and a Spec each. Adding a
// built-in type means both here and, when no existing capability lands it,
// a capability interface (beside the spec; not added to RuntimeProvider,
// so that runtimes written against it still compile; its method returns a
// Lift when the type Lifts). The tests then ask for the rest:
// TestBuiltinSpecsComplete for any part of the spec, TestReadmeFaultTable
// for the README row, the schema test for the shipped schema (make
// schema), and each runtime's conformance test (arenatest.TestRuntime) for
// its decision: land the type, with its effect (fakes' effects table), or
// refuse it with a reason (its Refusals).

// The built-in fault types, in documentation order (Types follows the
// order of the specs below).
const (
	KillLeader       Type = "kill_leader"
	KillOrchestrator Type = "kill_orchestrator"
	KillAgent        Type = "kill_agent"
	PauseAgent       Type = "pause_agent"
	ResumeAgent      Type = "resume_agent"
	SlowAgent        Type = "slow_agent"
	NetworkPartition Type = "network_partition"
	ToolTimeout      Type = "tool_timeout"
	MemoryCorrupt    Type = "memory_corrupt"
	MCPDisconnect    Type = "mcp_disconnect"
	LLMFailure       Type = "llm_failure"
	RemoveNode       Type = "remove_node"
	RemoveEdge       Type = "remove_edge"
	ClockJump        Type = "clock_jump"
)

// MaxDelay bounds the delays a fault adds to each call: slow_agent's
// delay, tool_timeout's timeout, network_latency's latency and jitter. A
// call an hour late is an outage already; the bound keeps the sums of
// delays a runtime adds far from overflowing.
const MaxDelay = time.Hour

// MetaOffset is clock_jump's key: how far the agent's clock jumps ahead.
const MetaOffset = "offset"

// DefaultClockOffset is clock_jump's offset when none is given.
const DefaultClockOffset = time.Minute

// ClockJumper makes an agent's clock jump ahead by offset: what the agent
// reads as the time is offset later than it is, until lifted: clock_jump.
type ClockJumper interface {
	JumpClock(ctx context.Context, agentID string, offset time.Duration) (Lift, error)
}

var (
	metaDuration = MetaKey{Name: MetaDuration, Kind: MetaKindDuration,
		Doc: "The fault's lifetime: the engine lifts it after this. Without it the fault stays until the system heals it."}
	metaDelay = MetaKey{Name: MetaDelay, Kind: MetaKindDuration, Positive: true, Default: DefaultSlowDelay, Max: MaxDelay,
		Doc: "Added to every attempt of the slowed agent (default 5s)."}
	metaTimeout = MetaKey{Name: MetaTimeout, Kind: MetaKindDuration, Positive: true, Default: DefaultToolTimeout, Max: MaxDelay,
		Doc: "How long the hanging tool calls take to fail (default 5s)."}
	metaErrorType = MetaKey{Name: MetaErrorType, Kind: MetaKindString, Default: string(DefaultLLMError),
		Enum: llmErrorNames(), Doc: "The LLM error to return (default rate_limit)."}
	metaOffset = MetaKey{Name: MetaOffset, Kind: MetaKindDuration, Positive: true, Default: DefaultClockOffset,
		Doc: "How far the agent's clock jumps ahead (default 1m)."}
)

func llmErrorNames() []string {
	var out []string
	for _, e := range LLMErrorTypes() {
		out = append(out, string(e))
	}
	return out
}

var viaStopper = landVia(func(rt AgentStopper, ctx context.Context, a Action, _ Params) error {
	return rt.StopAgent(ctx, a.TargetID)
})

var builtins = newFaultSet(append([]Spec{
	{
		Type: KillLeader, Doc: "Kills the current leader (the first running agent of type leader).",
		Scope: ScopeProcess, Target: TargetRole, Role: TypeLeader, capability: viaStopper, Route: "/arena/leader/kill",
		Category: CategoryRuntime, Fix: "make sure a leader is running before killing it; after a kill, wait for failover before the next",
		Priority: 9, Suggestion: "add or speed up leader election so a standby takes over",
	},
	{
		Type: KillOrchestrator, Doc: "Kills the current orchestrator (the first running agent of type orchestrator).",
		Scope: ScopeProcess, Target: TargetRole, Role: TypeOrchestrator, capability: viaStopper, Route: "/arena/orchestrator/kill",
		Category: CategoryRuntime, Fix: "make sure an orchestrator is running before killing it; after a kill, wait for failover before the next",
		Priority: 9, Suggestion: "add or speed up orchestrator failover so a standby takes over",
	},
	{
		Type: KillAgent, Doc: "Kills an agent (SIGKILL); a supervisor or restart policy may resurrect it.",
		Scope: ScopeProcess, Target: TargetAgent, capability: viaStopper, Route: "/arena/agent/{id}/kill",
		Category: CategoryRuntime, Fix: "target a running agent (a stopped agent cannot be killed again); use type:<t> or random to pick one",
		Priority: 6, Suggestion: "resurrect killed agents (supervisor or restart policy) and restore their state from a checkpoint",
	},
	{
		Type: PauseAgent, Doc: "Freezes an agent; with a duration the engine resumes it.",
		Scope: ScopeProcess, Target: TargetAgent, Eligible: func(s AgentStatus) bool { return s != StatusStopped && s != StatusPaused },
		Metadata: []MetaKey{metaDuration}, Lifts: true, capability: liftVia(func(rt Pauser, ctx context.Context, a Action, _ Params) (Lift, error) {
			return rt.PauseAgent(ctx, a.TargetID)
		}), Route: "/arena/agent/{id}/pause",
		Category: CategoryRuntime, Fix: "target a running agent; a paused or stopped agent cannot be paused",
		Priority: 5, Suggestion: "detect frozen agents with heartbeats and route work away from them",
	},
	{
		Type: ResumeAgent, Doc: "Thaws a paused agent.",
		Scope: ScopeProcess, Target: TargetAgent, Eligible: func(s AgentStatus) bool { return s == StatusPaused },
		capability: landVia(func(rt Pauser, ctx context.Context, a Action, _ Params) error {
			return rt.ResumeAgent(ctx, a.TargetID)
		}), Route: "/arena/agent/{id}/resume",
		Category: CategoryRuntime, Fix: "resume only paused agents: pause it first or target one that is paused",
		Priority: 2, Suggestion: "make sure resumed agents rejoin and catch up",
	},
	{
		Type: SlowAgent, Doc: "Slows an agent down: every attempt takes delay longer.",
		Scope: ScopeProcess, Target: TargetAgent, Metadata: []MetaKey{metaDelay, metaDuration}, Lifts: true, Route: "/arena/agent/{id}/slow",
		capability: liftVia(func(rt Slower, ctx context.Context, a Action, p Params) (Lift, error) {
			return rt.SlowAgent(ctx, a.TargetID, p.Delay)
		}),
		Category: CategoryRuntime, Fix: "target a running agent and check the runtime supports CPU throttling",
		Priority: 3, Suggestion: "time out slow calls and route work to other agents",
	},
	{
		Type: NetworkPartition, Doc: "Cuts an agent off the network; with a duration the engine reconnects it.",
		Scope: ScopeNetwork, Target: TargetAgent, Metadata: []MetaKey{metaDuration}, Lifts: true, Route: "/arena/agent/{id}/partition",
		capability: liftVia(func(rt Partitioner, ctx context.Context, a Action, _ Params) (Lift, error) {
			return rt.PartitionNetwork(ctx, a.TargetID)
		}),
		Category: CategoryRuntime, Fix: "target a connected agent; an agent already partitioned cannot be partitioned again",
		Priority: 7, Suggestion: "reconnect after partitions and re-sync state; route around unreachable agents",
	},
	{
		Type: ToolTimeout, Doc: "Makes an agent's tool calls hang for timeout and then fail.",
		Scope: ScopeAgent, Target: TargetAgent, Metadata: []MetaKey{metaTimeout, metaDuration}, Lifts: true, Route: "/arena/agent/{id}/tool-timeout",
		capability: liftVia(func(rt ToolTimeouter, ctx context.Context, a Action, p Params) (Lift, error) {
			return rt.ToolTimeout(ctx, a.TargetID, p.Timeout)
		}),
		Category: CategoryRuntime, Fix: "target a running agent that implements the fault-control contract",
		Priority: 4, Suggestion: "retry tool calls with backoff and reroute tasks after repeated timeouts",
	},
	{
		Type: MemoryCorrupt, Doc: "Corrupts an agent's memory; a checksum against its checkpoint detects it.",
		Scope: ScopeAgent, Target: TargetAgent, Route: "/arena/agent/{id}/memory-corrupt",
		capability: landVia(func(rt MemoryCorrupter, ctx context.Context, a Action, _ Params) error {
			return rt.CorruptMemory(ctx, a.TargetID)
		}),
		Category: CategoryRuntime, Fix: "target a running agent that implements the fault-control contract",
		Priority: 6, Suggestion: "checksum memory and restore it from the last good checkpoint",
	},
	{
		Type: MCPDisconnect, Doc: "Drops an agent's MCP connection; with a duration the engine reconnects it.",
		Scope: ScopeAgent, Target: TargetAgent, Metadata: []MetaKey{metaDuration}, Lifts: true, Route: "/arena/agent/{id}/mcp-disconnect",
		capability: liftVia(func(rt MCPDisconnecter, ctx context.Context, a Action, _ Params) (Lift, error) {
			return rt.DisconnectMCP(ctx, a.TargetID)
		}),
		Category: CategoryRuntime, Fix: "target a running agent with an MCP connection",
		Priority: 4, Suggestion: "reconnect MCP sessions automatically with backoff",
	},
	{
		Type: LLMFailure, Doc: "Makes an agent's LLM calls fail with error_type.",
		Scope: ScopeAgent, Target: TargetAgent, Metadata: []MetaKey{metaErrorType, metaDuration}, Lifts: true, Route: "/arena/agent/{id}/llm-failure",
		capability: liftVia(func(rt LLMFailer, ctx context.Context, a Action, p Params) (Lift, error) {
			return rt.InjectLLMFailure(ctx, a.TargetID, p.ErrorType)
		}),
		Category: CategoryRuntime, Fix: "target a running agent that implements the fault-control contract",
		Priority: 4, Suggestion: "retry LLM calls with backoff and fall back to another model or worker",
	},
	{
		Type: RemoveNode, Doc: "Removes a node (and its edges) from the task DAG.",
		Scope: ScopeDAG, Target: TargetNode, Route: "/arena/node/{id}/remove",
		capability: landVia(func(d DAGProvider, ctx context.Context, a Action, _ Params) error {
			return d.RemoveNode(ctx, a.TargetID)
		}),
		Category: CategoryDAG, Fix: "name a node that exists in the DAG (see ListNodes)",
		Priority: 5, Suggestion: "repair the DAG from its canonical definition",
	},
	{
		Type: RemoveEdge, Doc: "Removes the edge source_id → target_id from the task DAG.",
		Scope: ScopeDAG, Target: TargetEdge, Route: "/arena/edge/remove",
		capability: landVia(func(d DAGProvider, ctx context.Context, a Action, _ Params) error {
			return d.RemoveEdge(ctx, a.SourceID, a.TargetID)
		}),
		Category: CategoryDAG, Fix: "name an edge that exists in the DAG (see ListEdges)",
		Priority: 5, Suggestion: "repair the DAG from its canonical definition",
	},
	{
		Type: ClockJump, Doc: "Makes an agent's clock jump ahead by offset; lifting it sets the clock right.",
		Scope: ScopeAgent, Target: TargetAgent, Metadata: []MetaKey{metaOffset, metaDuration}, Lifts: true, Route: "/arena/agent/{id}/clock-jump",
		capability: liftVia(func(rt ClockJumper, ctx context.Context, a Action, p Params) (Lift, error) {
			offset, _ := p.Values[MetaOffset].(time.Duration)
			return rt.JumpClock(ctx, a.TargetID, offset)
		}),
		Category: CategoryRuntime, Fix: "target a running agent whose clock the runtime can move",
		Priority: 5, Suggestion: "do not trust wall-clock time across agents: use monotonic clocks for timeouts and fencing tokens or logical clocks for leases and ordering",
	},
}, networkSpecs...)...)

// baseParams returns the typed parameters before an action's metadata:
// the defaults of the built-ins' keys.
func baseParams() Params {
	return Params{Delay: DefaultSlowDelay, Timeout: DefaultToolTimeout, ErrorType: DefaultLLMError}
}

// typed fills Params' typed fields from the decoded values.
func (p *Params) typed() {
	if d, ok := p.Values[MetaDuration].(time.Duration); ok {
		p.Duration = d
	}
	if d, ok := p.Values[MetaDelay].(time.Duration); ok {
		p.Delay = d
	}
	if d, ok := p.Values[MetaTimeout].(time.Duration); ok {
		p.Timeout = d
	}
	if s, ok := p.Values[MetaErrorType].(string); ok {
		p.ErrorType = LLMErrorType(s)
	}
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
