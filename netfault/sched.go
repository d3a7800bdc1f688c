package netfault

import (
	"context"
	"errors"
	"time"

	"github.com/ares-arena/arena"
)

// ErrClosed is returned by Sleep (and so by the wrappers) once the network
// is closed.
var ErrClosed = errors.New("netfault: network closed")

// timers is how the network waits: on time.Timer, so on the wall clock, or
// on a testing/synctest bubble's fake clock, where such a wait is durable
// and the bubble's time jumps past it. There is no other scheduler: a
// system's own goroutines run as the Go runtime (or the bubble) runs them.
type timers struct {
	clock  arena.Clock
	ctx    context.Context
	cancel context.CancelFunc
}

func newTimers(clock arena.Clock) *timers {
	ctx, cancel := context.WithCancel(context.Background())
	return &timers{clock: clock, ctx: ctx, cancel: cancel}
}

func (r *timers) now() time.Time { return r.clock.Now() }

func (r *timers) sleep(ctx context.Context, d time.Duration) error {
	if r.ctx.Err() != nil {
		return ErrClosed
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		if r.ctx.Err() != nil {
			return ErrClosed
		}
		return ctx.Err()
	case <-r.ctx.Done():
		return ErrClosed
	case <-t.C:
		return nil
	}
}

func (r *timers) close() { r.cancel() }
