package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// probeWatch bounds the probe calls of a virtual run in real time at no
// cost per sample. A virtual day is 864,000 samples of a probe that returns
// at once; a deadline context per sample (lazyDeadline, which real-time runs
// keep) is an allocation and a wall-clock read each, a fifth of the day.
// Here one context value serves sample after sample (sampleCtx), and a
// watchdog goroutine does the timing: it looks every tick (ProbeTimeout/8,
// from 1ms to 50ms) at which sample is in progress, and ends one it has seen
// in progress for ProbeTimeout of wall time: its Err becomes
// DeadlineExceeded and its Done closes. A sample is timed from the watchdog's
// first sight of it, at most a tick after it began, so a probe that hangs
// is ended between ProbeTimeout and ProbeTimeout plus a tick (and the
// scheduler's delay on a busy machine) after its start, never earlier, and
// the sample is unhealthy.
//
// The watchdog runs only while samples are being taken: it is started by a
// sample that finds it gone, and goes at a tick that finds no sample in
// progress, so a run leaves no goroutine behind however it ends.
//
// A sample's context has no deadline of its own (Deadline reports the
// parent's): the bound is the watchdog's, not a time a probe can read.
type probeWatch struct {
	timeout time.Duration
	tick    time.Duration

	n     uint64                    // samples begun; the observer's goroutine only
	cur   *sampleCtx                // the context the next sample reuses; the observer's goroutine only
	slot  atomic.Pointer[sampleCtx] // cur, for the watchdog
	alive atomic.Bool               // a watchdog goroutine runs
}

// States of a sample, in the low bits of sampleCtx.word.
const (
	sampleRunning   = iota
	sampleReleased  // over: Canceled
	sampleExpired   // ended by the watchdog: DeadlineExceeded
	sampleParent    // the parent ended first: its error
	sampleStateBits = 2
	sampleStateMask = 1<<sampleStateBits - 1
)

func newProbeWatch(timeout time.Duration) *probeWatch {
	return &probeWatch{timeout: timeout, tick: min(max(timeout/8, time.Millisecond), 50*time.Millisecond)}
}

// begin returns the context of a sample starting now. It is the last
// sample's unless that one may outlive its sample (Done was asked for: a
// goroutine may be waiting on it).
func (w *probeWatch) begin(parent context.Context) *sampleCtx {
	c := w.cur
	if c == nil || c.escaped.Load() {
		c = &sampleCtx{}
		w.cur = c
		w.slot.Store(c)
	}
	c.parent = parent
	w.n++
	c.word.Store(w.n<<sampleStateBits | sampleRunning)
	if !w.alive.Load() && w.alive.CompareAndSwap(false, true) {
		go w.watch()
	}
	return c
}

// end ends c's sample, as a cancel function does.
func (w *probeWatch) end(c *sampleCtx) {
	state, cause := uint64(sampleReleased), error(context.Canceled)
	if c.parent.Err() != nil {
		state, cause = sampleParent, context.Cause(c.parent)
	}
	c.finish(c.word.Load(), state, cause)
}

// watch is the watchdog: it ends a sample in progress for the timeout, and
// returns at a tick that finds no sample in progress.
func (w *probeWatch) watch() {
	var (
		seen  uint64    // the sample in progress at the last tick
		since time.Time // when it was first seen
	)
	for {
		time.Sleep(w.tick)
		c := w.slot.Load()
		word := c.word.Load()
		if word&sampleStateMask != sampleRunning {
			// Nothing in progress: go, unless a sample began since and
			// found the watchdog still alive.
			w.alive.Store(false)
			if c = w.slot.Load(); c.word.Load()&sampleStateMask != sampleRunning || !w.alive.CompareAndSwap(false, true) {
				return
			}
			seen = 0
			continue
		}
		if n := word >> sampleStateBits; n != seen {
			seen, since = n, time.Now()
			continue
		}
		if time.Since(since) >= w.timeout {
			c.finish(word, sampleExpired, context.DeadlineExceeded)
		}
	}
}

// sampleCtx is the context of one probe sample of a virtual run, reused by
// the next sample when the probe only read its Err (see probeWatch). A
// probe must not use its context after it returns, as with any context
// whose cancel function its caller holds, except by waiting on Done: a
// context whose Done was asked for is never reused.
type sampleCtx struct {
	parent context.Context // the sample's: set by begin, before the probe is called
	// word is the sample's number shifted left by sampleStateBits, with
	// its state in the low bits: set running by begin, then ended by end
	// or the watchdog, whichever comes first (finish).
	word    atomic.Uint64
	escaped atomic.Bool // Done was asked for

	mu     sync.Mutex
	ctx    context.Context // made when Done is first asked for
	cancel context.CancelCauseFunc
}

// Deadline is the parent's: the watchdog's bound is not a time to read.
func (c *sampleCtx) Deadline() (time.Time, bool) { return c.parent.Deadline() }

// Err is the parent's error, or DeadlineExceeded once the watchdog ended
// the sample, or Canceled once the sample is over; the first one stays (a
// parent's error seen during the sample ends it in sampleParent).
func (c *sampleCtx) Err() error {
	for {
		word := c.word.Load()
		switch word & sampleStateMask {
		case sampleReleased:
			return context.Canceled
		case sampleExpired:
			return context.DeadlineExceeded
		case sampleParent:
			return c.parent.Err()
		}
		err := c.parent.Err()
		if err == nil {
			return nil
		}
		if c.word.CompareAndSwap(word, word&^sampleStateMask|sampleParent) {
			return err
		}
	}
}

// finish moves the sample whose word was word from running to state and
// closes Done, if it was asked for, with cause. It does nothing if the
// sample has ended already: the first end stays.
func (c *sampleCtx) finish(word uint64, state uint64, cause error) {
	if word&sampleStateMask == sampleRunning && c.word.CompareAndSwap(word, word&^sampleStateMask|state) && c.escaped.Load() {
		c.endDone(cause)
	}
}

// Done makes a real context, closed when the parent ends, the watchdog
// ends the sample or the sample is over.
func (c *sampleCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == nil {
		c.escaped.Store(true)
		c.ctx, c.cancel = context.WithCancelCause(c.parent)
		switch c.word.Load() & sampleStateMask {
		case sampleReleased:
			c.cancel(context.Canceled)
		case sampleExpired:
			c.cancel(context.DeadlineExceeded)
		} // sampleParent: the parent's end reaches ctx
	}
	return c.ctx.Done()
}

// endDone closes Done, if it was asked for, with cause.
func (c *sampleCtx) endDone(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel(cause)
	}
}

// Value is the parent's (through the real context once there is one, so
// that context.Cause finds the sample's cause).
func (c *sampleCtx) Value(key any) any {
	if c.escaped.Load() {
		c.mu.Lock()
		ctx := c.ctx
		c.mu.Unlock()
		return ctx.Value(key)
	}
	return c.parent.Value(key)
}
