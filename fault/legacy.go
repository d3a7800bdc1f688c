package fault

import (
	"context"
	"time"
)

// Lifter is how runtimes lifted timed faults before landing handed
// back the fault's Lift: one LiftFault(kind, agentID) for every type.
//
// Deprecated: return the Lift from the capability that lands the fault
// (PauseAgent, SlowAgent, … return (Lift, error)). NewInjectorFor still
// lifts the faults of a runtime written against the old capabilities
// (methods that return only an error) through its LiftFault; see
// docs/migrating-from-ares-arena.md.
type Lifter interface {
	LiftFault(ctx context.Context, kind Type, agentID string) error
}

// legacy is how a runtime written against the capabilities as they were
// before Lift (methods returning only an error) lands a type: NewInjectorFor
// adapts such a method when the runtime lacks the current one, lifting the
// fault through the runtime's Lifter. Only the types that existed then
// are here; a new built-in type has no old shape.
var legacy = map[Type]capability{
	PauseAgent: oldVia(func(rt oldPauser, ctx context.Context, a Action, _ Params) error {
		return rt.PauseAgent(ctx, a.TargetID)
	}),
	ResumeAgent: oldVia(func(rt oldPauser, ctx context.Context, a Action, _ Params) error {
		return rt.ResumeAgent(ctx, a.TargetID)
	}),
	SlowAgent: oldVia(func(rt oldSlower, ctx context.Context, a Action, p Params) error {
		return rt.SlowAgent(ctx, a.TargetID, p.Delay)
	}),
	NetworkPartition: oldVia(func(rt oldPartitioner, ctx context.Context, a Action, _ Params) error {
		return rt.PartitionNetwork(ctx, a.TargetID)
	}),
	ToolTimeout: oldVia(func(rt oldToolTimeouter, ctx context.Context, a Action, p Params) error {
		return rt.ToolTimeout(ctx, a.TargetID, p.Timeout)
	}),
	MCPDisconnect: oldVia(func(rt oldMCPDisconnecter, ctx context.Context, a Action, _ Params) error {
		return rt.DisconnectMCP(ctx, a.TargetID)
	}),
	LLMFailure: oldVia(func(rt oldLLMFailer, ctx context.Context, a Action, p Params) error {
		return rt.InjectLLMFailure(ctx, a.TargetID, p.ErrorType)
	}),
	NetworkLatency: oldVia(func(rt oldLatencyInjector, ctx context.Context, a Action, p Params) error {
		return rt.InjectLatency(ctx, a.TargetID, latencyOf(p))
	}),
	NetworkBandwidth: oldVia(func(rt oldBandwidthLimiter, ctx context.Context, a Action, p Params) error {
		return rt.LimitBandwidth(ctx, a.TargetID, rateOf(p))
	}),
	ConnectionReset: oldVia(func(rt oldConnectionResetter, ctx context.Context, a Action, p Params) error {
		return rt.ResetConnections(ctx, a.TargetID, afterOf(p))
	}),
}

// oldVia is an old-shaped capability O: it lands with f and hands back no
// Lift (the injector lifts through Lifter).
func oldVia[O any](f func(o O, ctx context.Context, a Action, p Params) error) capability {
	return capability{
		has:  func(p any) bool { _, ok := p.(O); return ok },
		land: func(ctx context.Context, p any, a Action, pr Params) (Lift, error) { return nil, f(p.(O), ctx, a, pr) },
	}
}

// The capabilities before Lift, for legacy.
type (
	oldPauser interface {
		PauseAgent(ctx context.Context, agentID string) error
		ResumeAgent(ctx context.Context, agentID string) error
	}
	oldSlower interface {
		SlowAgent(ctx context.Context, agentID string, delay time.Duration) error
	}
	oldPartitioner interface {
		PartitionNetwork(ctx context.Context, agentID string) error
	}
	oldToolTimeouter interface {
		ToolTimeout(ctx context.Context, agentID string, timeout time.Duration) error
	}
	oldMCPDisconnecter interface {
		DisconnectMCP(ctx context.Context, agentID string) error
	}
	oldLLMFailer interface {
		InjectLLMFailure(ctx context.Context, agentID string, errType LLMErrorType) error
	}
	oldLatencyInjector interface {
		InjectLatency(ctx context.Context, agentID string, l Latency) error
	}
	oldBandwidthLimiter interface {
		LimitBandwidth(ctx context.Context, agentID string, bytesPerSecond int64) error
	}
	oldConnectionResetter interface {
		ResetConnections(ctx context.Context, agentID string, after time.Duration) error
	}
)
