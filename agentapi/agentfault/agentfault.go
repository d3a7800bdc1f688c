// Package agentfault lands arena's agent-level faults (tool_timeout,
// mcp_disconnect, llm_failure, memory_corrupt, clock_jump: Types) through
// the agentapi contract. The runtimes of agentapi agents (package
// containers, package kube) embed Faults, so that each capability is mapped
// onto its agentapi.Fault once; each runtime says how a fault reaches its
// agents (Land).
package agentfault

import (
	"context"
	"time"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/fault"
)

var (
	_ fault.ToolTimeouter   = Faults{}
	_ fault.MCPDisconnecter = Faults{}
	_ fault.LLMFailer       = Faults{}
	_ fault.MemoryCorrupter = Faults{}
	_ fault.ClockJumper     = Faults{}
)

// Faults implements fault.ToolTimeouter, fault.MCPDisconnecter,
// fault.LLMFailer, fault.MemoryCorrupter and fault.ClockJumper by handing
// each fault, as the contract carries it, to Land.
type Faults struct {
	// Land lands f on agent id and hands back the fault's lift: DELETE
	// /faults/{kind}, or the runtime's way to it.
	Land func(ctx context.Context, id string, f agentapi.Fault) (fault.Lift, error)
}

// ToolTimeout makes the agent's tool calls hang for timeout, then fail,
// until lifted.
func (fs Faults) ToolTimeout(ctx context.Context, id string, timeout time.Duration) (fault.Lift, error) {
	return fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindToolTimeout, Timeout: agentapi.Duration(timeout)})
}

// DisconnectMCP drops the agent's MCP session (agentd reconnects after 1s)
// until lifted.
func (fs Faults) DisconnectMCP(ctx context.Context, id string) (fault.Lift, error) {
	return fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindMCPDisconnect})
}

// InjectLLMFailure makes the agent's LLM calls fail with errType until
// lifted.
func (fs Faults) InjectLLMFailure(ctx context.Context, id string, errType fault.LLMErrorType) (fault.Lift, error) {
	return fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindLLMFailure, ErrorType: string(errType)})
}

// JumpClock puts the agent's clock offset ahead, until lifted.
func (fs Faults) JumpClock(ctx context.Context, id string, offset time.Duration) (fault.Lift, error) {
	return fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindClockJump, Offset: agentapi.Duration(offset)})
}

// CorruptMemory corrupts the agent's memory; the agent heals it from its
// checkpoint. arena never lifts it.
func (fs Faults) CorruptMemory(ctx context.Context, id string) error {
	_, err := fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindMemoryCorrupt})
	return err
}

// Uncontracted is why a runtime of agentapi agents refuses a fault inside
// an agent that Faults does not land (fault.ScopeAgent): the contract has
// no kind for it, so no agent can be asked to land it.
const Uncontracted = "the agents' fault-control contract (agentapi) has no kind for it: add one there and to the agents that serve it (cmd/agentd), or give your agents a fault.Spec of your own (fault.WithFault)"

// Types returns the built-in fault types that Faults lands, in
// documentation order: those whose capability (fault.Spec.Capability)
// Faults implements, found as arena's injector finds a runtime's. They are
// derived, not listed: a method added to Faults for a new built-in type
// adds the type.
func Types() []fault.Type {
	in := fault.NewInjectorFor(runtime{})
	var out []fault.Type
	for _, s := range fault.Specs() {
		if s.BuiltIn() && in.Supports(s.Type) {
			out = append(out, s.Type)
		}
	}
	return out
}

// runtime is a runtime with Faults' capabilities and no others, for Types.
type runtime struct{ Faults }

func (runtime) ListAgents(context.Context) ([]fault.AgentInfo, error) { return nil, nil }
