// Package faulterr holds the sentinel errors of fault injection that every
// runtime wraps, and Safely, which turns a provider's panic into one of
// them: arena exports them (fault.ErrUnsupported, fault.ErrCannotLand,
// fault.ErrNoAgent, fault.ErrProviderPanic), and package agentapi, which must
// not import arena (an agent written in Go imports it), wraps the same
// values. So errors.Is answers the same for the same refusal on every
// runtime.
package faulterr

import (
	"errors"
	"fmt"
)

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
	// ProviderPanic: a provider, or other code that arena calls on the
	// system's behalf (a probe, a check, a bridge), panicked.
	ProviderPanic = errors.New("provider panicked")
)

// Safely runs f, a call into a provider or other code of the system's,
// and turns a panic into an error wrapping ProviderPanic: the system's
// bug is reported, and arena keeps working.
func Safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ProviderPanic, r)
		}
	}()
	return f()
}
