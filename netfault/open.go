package netfault

import (
	"runtime"
	"sync"
	"time"
	"weak"
)

// The Network keeps its open ties, the connections of the Dialer and the
// HTTP calls of the Transport, so that a fault that resets them
// (connection_reset, a partition) reaches one that waits on what is
// beneath (a Read blocked on the connection, a callee still at work, the
// next chunk of a body) when the fault says, not only at its next step.
// It holds them weakly: a connection its user drops without Close is
// still collected, and its socket closed, as a net.Conn's is.

// tie is one open connection or call between two agents: its ends, when
// it opened, and how to cut what is beneath it.
type tie struct {
	n        *Network
	from, to string
	opened   time.Time
	cut      func()            // closes what is beneath, at a reset
	self     weak.Pointer[tie] // its key in the open set
	cleanup  runtime.Cleanup   // forgets it if it is dropped unclosed

	sched  sync.Mutex // one schedule at a time: the last reads the latest faults
	mu     sync.Mutex
	reset  bool // by a fault
	closed bool // by its user
}

// openTie adds a tie from → to, opened now, to the open set until its
// close (or its collection). The caller schedules it once the tie is in
// place (a partition in force, even one that landed after the caller
// checked for a refusal, cuts it then).
func (n *Network) openTie(from, to string, cut func()) *tie {
	t := &tie{n: n, from: from, to: to, opened: n.Now(), cut: cut}
	t.self = weak.Make(t)
	n.keep(t.self)
	t.cleanup = runtime.AddCleanup(t, n.forget, t.self)
	return t
}

func (n *Network) keep(t weak.Pointer[tie]) {
	n.mu.Lock()
	n.open[t] = struct{}{}
	n.mu.Unlock()
}

func (n *Network) forget(t weak.Pointer[tie]) {
	n.mu.Lock()
	delete(n.open, t)
	n.mu.Unlock()
}

// openOver returns the open ties to or from agent id.
func (n *Network) openOver(id string) []*tie {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []*tie
	for wp := range n.open {
		if t := wp.Value(); t != nil && (t.from == id || t.to == id) {
			out = append(out, t)
		}
	}
	return out
}

// resetOpen puts the faults in force on agent id's links onto its open
// ties (see tie.schedule).
func (n *Network) resetOpen(id string) {
	for _, t := range n.openOver(id) {
		t.schedule()
	}
}

// resetDue returns how long a tie from → to lasts before a reset, if one
// is in force: 0 under a partition or a reset at once, the earlier reset
// of the two ends otherwise.
func (n *Network) resetDue(from, to string) (time.Duration, bool) {
	due, ok := time.Duration(0), false
	for _, id := range [2]string{from, to} {
		f, _ := n.links.Faults(id)
		switch {
		case f.Partitioned:
			return 0, true
		case f.Reset && (!ok || max(f.ResetAfter, 0) < due):
			due, ok = max(f.ResetAfter, 0), true
		}
	}
	return due, ok
}

// schedule resets the tie now if a reset in force is due, or sets a
// timer for when it will be, which looks again when it fires: by then a
// lift may have ended the fault (nothing happens), a change moved it (a
// new timer). A timer is never stopped (one made in a testing/synctest
// bubble may only be stopped inside it); a closed tie's does nothing.
func (t *tie) schedule() {
	t.sched.Lock()
	defer t.sched.Unlock()
	if t.isClosed() {
		return
	}
	due, ok := t.n.resetDue(t.from, t.to)
	if !ok {
		return
	}
	left := t.opened.Add(due).Sub(t.n.Now())
	if left <= 0 {
		t.doReset()
		return
	}
	self := t.self
	time.AfterFunc(left, func() {
		if t := self.Value(); t != nil {
			t.schedule()
		}
	})
}

// doReset resets the tie, cutting what is beneath it the first time, and
// reports whether it is reset: one its user closed first is not.
func (t *tie) doReset() bool {
	t.mu.Lock()
	was, closed := t.reset, t.closed
	t.reset = was || !closed
	t.mu.Unlock()
	if !was && !closed {
		t.cut()
	}
	return was || !closed
}

// isReset reports whether a fault reset the tie.
func (t *tie) isReset() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reset
}

// isClosed reports whether the tie was closed, by its user or by a reset.
func (t *tie) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed || t.reset
}

// errOr returns a *ResetError if a fault reset the tie (which may have
// ended an operation with err), and err otherwise.
func (t *tie) errOr(err error) error {
	if t.isReset() {
		return &ResetError{From: t.from, To: t.to}
	}
	return err
}

// close ends the tie for good: it leaves the open set (its pending timer
// does nothing when it fires).
func (t *tie) close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cleanup.Stop()
	t.n.forget(t.self)
}
