// Package agentfault lands arena's agent-level faults (tool_timeout,
// mcp_disconnect, llm_failure, memory_corrupt, clock_jump) through the
// agentapi contract. The runtimes of agentapi agents (package containers, package
// kube) embed Faults, so that each capability is mapped onto its
// agentapi.Fault once; each runtime says how a fault reaches its agents
// (Land).
package agentfault

import (
	"context"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/agentapi"
)

var (
	_ arena.ToolTimeouter   = Faults{}
	_ arena.MCPDisconnecter = Faults{}
	_ arena.LLMFailer       = Faults{}
	_ arena.MemoryCorrupter = Faults{}
	_ arena.ClockJumper     = Faults{}
)

// Faults implements arena.ToolTimeouter, arena.MCPDisconnecter,
// arena.LLMFailer, arena.MemoryCorrupter and arena.ClockJumper by handing
// each fault, as the contract carries it, to Land.
type Faults struct {
	// Land lands f on agent id and hands back the fault's lift: DELETE
	// /faults/{kind}, or the runtime's way to it.
	Land func(ctx context.Context, id string, f agentapi.Fault) (arena.Lift, error)
}

// ToolTimeout makes the agent's tool calls hang for timeout, then fail,
// until lifted.
func (fs Faults) ToolTimeout(ctx context.Context, id string, timeout time.Duration) (arena.Lift, error) {
	return fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindToolTimeout, Timeout: agentapi.Duration(timeout)})
}

// DisconnectMCP drops the agent's MCP session (agentd reconnects after 1s)
// until lifted.
func (fs Faults) DisconnectMCP(ctx context.Context, id string) (arena.Lift, error) {
	return fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindMCPDisconnect})
}

// InjectLLMFailure makes the agent's LLM calls fail with errType until
// lifted.
func (fs Faults) InjectLLMFailure(ctx context.Context, id string, errType arena.LLMErrorType) (arena.Lift, error) {
	return fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindLLMFailure, ErrorType: string(errType)})
}

// JumpClock puts the agent's clock offset ahead, until lifted.
func (fs Faults) JumpClock(ctx context.Context, id string, offset time.Duration) (arena.Lift, error) {
	return fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindClockJump, Offset: agentapi.Duration(offset)})
}

// CorruptMemory corrupts the agent's memory; the agent heals it from its
// checkpoint. arena never lifts it.
func (fs Faults) CorruptMemory(ctx context.Context, id string) error {
	_, err := fs.Land(ctx, id, agentapi.Fault{Kind: agentapi.KindMemoryCorrupt})
	return err
}
