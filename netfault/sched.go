package netfault

import (
	"context"
	"errors"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/netrules"
)

// ErrClosed is returned by Sleep (and so by the wrappers) once the network
// is closed.
var ErrClosed = errors.New("netfault: network closed")

// wall is how the network waits: on time.Timer (netrules.TimerClock), so
// on the wall clock, or on a testing/synctest bubble's fake clock, where
// such a wait is durable and the bubble's time jumps past it. Its Sleep is
// the netrules.Clock the wrappers' waits run on: it ends early when wake
// is closed (the link's faults changed), with the context, and with
// ErrClosed at Close. There is no other scheduler: a system's own
// goroutines run as the Go runtime (or the bubble) runs them.
type wall struct {
	netrules.TimerClock
	cancel context.CancelFunc
}

func newWall(clk clock.Clock) *wall {
	ctx, cancel := context.WithCancel(context.Background())
	return &wall{TimerClock: netrules.TimerClock{Clock: clk.Now, Closed: ctx.Done(), Err: ErrClosed}, cancel: cancel}
}

func (r *wall) close() { r.cancel() }
