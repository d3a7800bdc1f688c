package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/ares-arena/arena/internal/ctxtime"
	"github.com/ares-arena/arena/internal/netrules"
)

// The network faults on the world's links. A link is the pair of nodes a
// conn (or a custom transport's message) joins; how the faults on its two
// ends combine is arena's one set of network rules (internal/netrules,
// which the fakes and netfault use too): latencies add up, each end's
// share by its direction (outbound: what it sends; inbound: what it
// receives; both: half each way), only toward its peer when it has one,
// jitter a uniform draw from the world's seed; the lower bandwidth cap and
// the earlier reset win; a partition cuts the link; every sum saturates.
// Here a Write's bytes reach the other end after the latency of their way
// (one draw per Write, the bytes kept in order) and the time to move them
// at the cap (a link's Writes serialised, each way); a dial takes a round
// trip; a partition resets the node's conns and refuses its dials;
// connection_reset resets conns once they have been open for after (0: the
// dial fails). Pausing is sim's own: a paused node's links hold every
// byte, and its dials, until the resume.
type faultState struct {
	mu      sync.Mutex
	rng     *rand.Rand
	nodes   map[string]*nodeFaults
	busy    map[[2]string]time.Time // bandwidth: when each way of a link is free
	timers  map[*time.Timer]struct{}
	changed chan struct{} // closed and replaced when a hold is lifted
	closed  bool
}

// nodeFaults are the faults on one node's links.
type nodeFaults struct {
	net    netrules.Faults
	paused bool
}

func (f *faultState) init(seed uint64) {
	f.rng = rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	f.nodes = map[string]*nodeFaults{}
	f.busy = map[[2]string]time.Time{}
	f.timers = map[*time.Timer]struct{}{}
	f.changed = make(chan struct{})
}

// of returns the node's faults, made on first use. Called with f.mu held.
func (f *faultState) of(node string) *nodeFaults {
	nf := f.nodes[node]
	if nf == nil {
		nf = &nodeFaults{}
		f.nodes[node] = nf
	}
	return nf
}

// plan draws the rules' plan for bytes from → to now. Called with f.mu
// held.
func (f *faultState) plan(from, to string) netrules.Plan {
	end := func(id string) netrules.End {
		if nf := f.nodes[id]; nf != nil {
			return netrules.End{ID: id, Faults: &nf.net}
		}
		return netrules.End{ID: id}
	}
	return netrules.PlanOf(end(from), end(to), f.rng)
}

// close stops the pending resets and wakes what holds wait.
func (f *faultState) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for t := range f.timers {
		t.Stop()
	}
	clear(f.timers)
	f.wake()
	clear(f.nodes)
}

// after runs fn after d on a timer the world stops when it closes.
// Called with f.mu held.
func (f *faultState) after(d time.Duration, fn func()) {
	if f.closed {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		f.mu.Lock()
		_, live := f.timers[t]
		delete(f.timers, t)
		f.mu.Unlock()
		if live {
			fn()
		}
	})
	f.timers[t] = struct{}{}
}

// wake wakes what a hold keeps waiting. Called with f.mu held.
func (f *faultState) wake() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// resetLater resets c once it has been open for after: now if it has.
func (f *faultState) resetLater(c *conn, after time.Duration) {
	d := time.Until(c.opened.Add(after))
	if d <= 0 {
		c.reset()
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.after(d, func() {
		if f.resetsStill(c) {
			c.reset()
		}
	})
}

// resetsStill reports whether a connection_reset is still on an end of c.
func (f *faultState) resetsStill(c *conn) bool {
	return f.planOf(c.local.Node, c.remote.Node).ResetAt != netrules.Never
}

// opened applies the resets in force to a conn just made (its dialing
// end: a reset reaches both ends).
func (f *faultState) opened(c *conn) {
	if after := f.planOf(c.local.Node, c.remote.Node).ResetAt; after != netrules.Never {
		f.resetLater(c, after)
	}
}

// planOf is plan, taking the lock.
func (f *faultState) planOf(from, to string) netrules.Plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.plan(from, to)
}

// deliverAt is when k bytes written now from → to reach the other end:
// after the time to move them at the link's cap (its Writes one after the
// other, each way), and the latency of their way.
func (w *World) deliverAt(from, to string, now time.Time, k int) time.Time {
	f := &w.faults
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.plan(from, to)
	at := now
	if p.Rate > 0 {
		way := [2]string{from, to}
		start := f.busy[way]
		if start.Before(now) {
			start = now
		}
		at = start.Add(p.Transfer(int64(k)))
		f.busy[way] = at
	}
	return at.Add(p.Out)
}

// held returns a channel closed when the link from → to stops holding its
// bytes (a pause of either end is lifted), or nil when it does not hold
// them.
func (w *World) held(from, to string) chan struct{} {
	f := &w.faults
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range [2]string{from, to} {
		if nf := f.nodes[n]; nf != nil && nf.paused {
			return f.changed
		}
	}
	return nil
}

// dial is what the faults do to a dial from → to: gate, then a round trip
// of latency.
func (f *faultState) dial(ctx context.Context, from, to string) error {
	if err := f.gate(ctx, from, to); err != nil {
		return err
	}
	p := f.planOf(from, to)
	return ctxtime.Sleep(ctx, netrules.Add(p.Out, p.Back))
}

// gate waits while either end of the link is paused, and refuses it across
// a partition (ECONNREFUSED) or under a reset at once (ECONNRESET).
func (f *faultState) gate(ctx context.Context, from, to string) error {
	for {
		held, err := f.passage(from, to)
		if held == nil || err != nil {
			return err
		}
		select {
		case <-held:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// passage is what the link from → to does to a dial or a message now:
// refuse it (an error), hold it (a channel closed when a hold is lifted),
// or let it through (neither).
func (f *faultState) passage(from, to string) (chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.plan(from, to)
	switch {
	case p.Cut:
		return nil, os.NewSyscallError("connect", syscall.ECONNREFUSED)
	case p.ResetAt == 0:
		return nil, os.NewSyscallError("connect", syscall.ECONNRESET)
	}
	for _, n := range [2]string{from, to} {
		if nf := f.nodes[n]; nf != nil && nf.paused {
			return f.changed, nil
		}
	}
	return nil, nil
}

// Wait is the faults' toll on a message of size bytes from node from to
// node to, for an in-memory transport of your own that does not go through
// the world's conns: it returns at once on a healthy link, waits out the
// latency and bandwidth of the link, waits while either end is paused,
// and fails with ECONNREFUSED across a partition and ECONNRESET while a
// connection_reset (after 0) is on either end. It ends early with ctx.
func (w *World) Wait(ctx context.Context, from, to string, size int) error {
	if err := w.faults.gate(ctx, from, to); err != nil {
		return &WaitError{From: from, To: to, Err: err}
	}
	now := time.Now()
	if err := ctxtime.Sleep(ctx, w.deliverAt(from, to, now, size).Sub(now)); err != nil {
		return &WaitError{From: from, To: to, Err: err}
	}
	return nil
}

// WaitError is a message that a fault stopped (World.Wait).
type WaitError struct {
	From, To string
	Err      error
}

func (e *WaitError) Error() string { return fmt.Sprintf("sim: %s -> %s: %v", e.From, e.To, e.Err) }

// Unwrap returns the cause: an ECONNREFUSED or ECONNRESET system call
// error, or the context's.
func (e *WaitError) Unwrap() error { return e.Err }
