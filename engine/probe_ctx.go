package engine

import (
	"context"
	"sync"
	"time"
)

// lazyDeadline is context.WithDeadline(parent, d) whose timer is set only
// when something asks for Done: a probe that returns without waiting (a
// fake's, sampled 864,000 times a virtual day) costs no timer. Until then Err
// reads the parent and the clock. release is the cancel function.
type lazyDeadline struct {
	parent   context.Context
	start    time.Time     // with its monotonic reading: Err reads the monotonic clock only
	left     time.Duration // from start to the deadline
	deadline time.Time

	mu       sync.Mutex
	ctx      context.Context // the real context, once Done was asked for
	cancel   context.CancelFunc
	released error // the error it ended with, when released before Done was asked for
}

func newLazyDeadline(parent context.Context, timeout time.Duration) *lazyDeadline {
	now := time.Now()
	d := now.Add(timeout)
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		d = cur
	}
	return &lazyDeadline{parent: parent, start: now, left: d.Sub(now), deadline: d}
}

func (c *lazyDeadline) Deadline() (time.Time, bool) { return c.deadline, true }

// Done sets up the real context: its channel closes at the deadline, when
// the parent ends, or at release.
func (c *lazyDeadline) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == nil {
		c.ctx, c.cancel = context.WithDeadline(c.parent, c.deadline)
		if c.released != nil {
			c.cancel()
		}
	}
	return c.ctx.Done()
}

func (c *lazyDeadline) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.released != nil:
		return c.released
	case c.ctx != nil:
		return c.ctx.Err()
	}
	return c.errNow()
}

// errNow is the error the real context would have now: the parent's, or
// DeadlineExceeded once the deadline has passed.
func (c *lazyDeadline) errNow() error {
	if err := c.parent.Err(); err != nil {
		return err
	}
	if time.Since(c.start) >= c.left {
		return context.DeadlineExceeded
	}
	return nil
}

func (c *lazyDeadline) Value(key any) any {
	c.mu.Lock()
	ctx := c.ctx
	c.mu.Unlock()
	if ctx != nil {
		return ctx.Value(key)
	}
	return c.parent.Value(key)
}

// release ends the context, as a cancel function does.
func (c *lazyDeadline) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released != nil {
		return
	}
	if c.ctx != nil {
		c.cancel()
		c.released = c.ctx.Err()
		return
	}
	c.released = c.errNow()
	if c.released == nil {
		c.released = context.Canceled
	}
}
