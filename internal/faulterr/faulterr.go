// Package faulterr holds the sentinel errors of fault injection that every
// runtime wraps: arena exports them (arena.ErrUnsupported,
// arena.ErrCannotLand, arena.ErrNoAgent), and package agentapi, which must
// not import arena (an agent written in Go imports it), wraps the same
// values. So errors.Is answers the same for the same refusal on every
// runtime.
package faulterr

import "errors"

var (
	// Unsupported: the runtime, or the agent, does not land this fault
	// type. Its text reads after the type's name: "mcp_disconnect is not
	// supported by this runtime".
	Unsupported = errors.New("is not supported by this runtime")
	// CannotLand: the target's state rules the fault out now (pause a
	// paused agent, kill a stopped one, reach an agent that is cut off).
	CannotLand = errors.New("fault cannot land")
	// NoAgent: the runtime has no agent with this ID.
	NoAgent = errors.New("no such agent")
)
