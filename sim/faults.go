package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/ares-arena/arena"
)

// The network-fault rules of the world's links. A link is the pair of
// nodes a conn (or a custom transport's message) joins; the faults on
// either end count:
//
//   - network_latency delays the bytes a Write puts on the wire: the
//     sender's latency if it covers outbound (all of it) or both ways
//     (half), plus the receiver's if it covers inbound (all) or both
//     (the other half); with a peer, only the link to that peer. Jitter is
//     a uniform draw per Write, from the world's seed. Bytes stay in order.
//   - network_bandwidth: the lower cap of the two ends; a link's Writes
//     are serialised at that rate, each way.
//   - connection_reset: the earlier reset of the two ends; open conns are
//     reset once they have been open for after, new ones likewise (after
//     0: at once, the dial fails with ECONNRESET).
//   - network_partition cuts the node's conns (ECONNRESET) and refuses its
//     dials, both ways (ECONNREFUSED), until it is lifted.
//   - pause_agent holds every byte to and from the node: Reads wait, and so
//     do dials, until resume_agent (or the lift).
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
	latency     arena.Latency // Latency 0: none
	rate        int64         // bytes per second; 0: no cap
	resetting   bool
	resetAfter  time.Duration
	partitioned bool
	paused      bool
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
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range [2]string{c.local.Node, c.remote.Node} {
		if nf := f.nodes[n]; nf != nil && nf.resetting {
			return true
		}
	}
	return false
}

// opened applies the resets in force to a conn just made (its dialing
// end: a reset reaches both ends).
func (f *faultState) opened(c *conn) {
	f.mu.Lock()
	after := time.Duration(-1)
	for _, n := range [2]string{c.local.Node, c.remote.Node} {
		if nf := f.nodes[n]; nf != nil && nf.resetting && (after < 0 || nf.resetAfter < after) {
			after = nf.resetAfter
		}
	}
	f.mu.Unlock()
	if after >= 0 {
		f.resetLater(c, after)
	}
}

// legs returns the latency the faults add to bytes sent from → to, drawn
// now. Called with f.mu held.
func (f *faultState) legs(from, to string) time.Duration {
	var d time.Duration
	if nf := f.nodes[from]; nf != nil {
		d = addDur(d, f.share(nf.latency, to, true))
	}
	if nf := f.nodes[to]; nf != nil && to != from {
		d = addDur(d, f.share(nf.latency, from, false))
	}
	return d
}

// share is the part of a node's latency that bytes it sends (out) or
// receives to or from other take.
func (f *faultState) share(l arena.Latency, other string, out bool) time.Duration {
	if l.Latency <= 0 || (l.Peer != "" && l.Peer != other) {
		return 0
	}
	d := l.Latency
	if l.Jitter > 0 {
		d = addDur(d, time.Duration(f.rng.Int64N(int64(min(2*uint64(l.Jitter)+1, 1<<62))))-l.Jitter)
	}
	d = max(d, 0)
	switch l.Direction {
	case arena.DirectionOutbound:
		if out {
			return d
		}
		return 0
	case arena.DirectionInbound:
		if out {
			return 0
		}
		return d
	}
	if out {
		return d / 2
	}
	return d - d/2
}

// addDur adds without overflowing past the largest duration.
func addDur(a, b time.Duration) time.Duration {
	if s := a + b; (b > 0 && s < a) || (b < 0 && s > a) {
		if b > 0 {
			return time.Duration(1<<63 - 1)
		}
		return -1 << 63
	}
	return a + b
}

// rate is the link's bandwidth cap: the lower of the two ends' (0: none).
// Called with f.mu held.
func (f *faultState) rate(from, to string) int64 {
	r := int64(0)
	for _, n := range [2]string{from, to} {
		if nf := f.nodes[n]; nf != nil && nf.rate > 0 && (r == 0 || nf.rate < r) {
			r = nf.rate
		}
	}
	return r
}

// transfer is how long k bytes take at rate bytes per second.
func transfer(k int, rate int64) time.Duration {
	if rate <= 0 || k <= 0 {
		return 0
	}
	sec := int64(k) / rate
	rem := int64(k) % rate
	return time.Duration(sec)*time.Second + time.Duration(rem*int64(time.Second)/rate)
}

// deliverAt is when k bytes written now from → to reach the other end.
func (w *World) deliverAt(from, to string, now time.Time, k int) time.Time {
	f := &w.faults
	f.mu.Lock()
	defer f.mu.Unlock()
	at := now
	if r := f.rate(from, to); r > 0 {
		way := [2]string{from, to}
		start := f.busy[way]
		if start.Before(now) {
			start = now
		}
		at = start.Add(transfer(k, r))
		f.busy[way] = at
	}
	return at.Add(f.legs(from, to))
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
	f.mu.Lock()
	rtt := addDur(f.legs(from, to), f.legs(to, from))
	f.mu.Unlock()
	return sleep(ctx, rtt)
}

// gate waits while either end of the link is paused, and refuses it across
// a partition (ECONNREFUSED) or under a reset at once (ECONNRESET).
func (f *faultState) gate(ctx context.Context, from, to string) error {
	for {
		f.mu.Lock()
		var paused bool
		for _, n := range [2]string{from, to} {
			nf := f.nodes[n]
			if nf == nil {
				continue
			}
			switch {
			case nf.partitioned:
				f.mu.Unlock()
				return os.NewSyscallError("connect", syscall.ECONNREFUSED)
			case nf.resetting && nf.resetAfter == 0:
				f.mu.Unlock()
				return os.NewSyscallError("connect", syscall.ECONNRESET)
			case nf.paused:
				paused = true
			}
		}
		if !paused {
			f.mu.Unlock()
			return nil
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
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
	if err := sleep(ctx, w.deliverAt(from, to, now, size).Sub(now)); err != nil {
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
