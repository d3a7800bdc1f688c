package netfault

import (
	"runtime"
	"time"
	"weak"
)

// The Network keeps the Dialer's open connections, so that a fault that
// resets them (connection_reset, a partition) reaches a connection whose
// Read is blocked on the connection beneath when the fault says, not only
// at its next step. It
// holds them weakly: a connection its user drops without Close is still
// collected, and its socket closed, as a net.Conn's is.

// keepOpen adds c to the open set until its Close, or its collection.
func (n *Network) keepOpen(c *conn) {
	c.self = weak.Make(c)
	n.mu.Lock()
	n.open[c.self] = struct{}{}
	n.mu.Unlock()
	runtime.AddCleanup(c, n.forget, c.self)
}

// forget removes a connection from the open set.
func (n *Network) forget(c weak.Pointer[conn]) {
	n.mu.Lock()
	delete(n.open, c)
	n.mu.Unlock()
}

// openOver returns the open connections to or from agent id.
func (n *Network) openOver(id string) []*conn {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []*conn
	for wp := range n.open {
		if c := wp.Value(); c != nil && (c.from == id || c.to == id) {
			out = append(out, c)
		}
	}
	return out
}

// resetOpen puts the faults in force on agent id's links onto its open
// connections (see conn.schedule).
func (n *Network) resetOpen(id string) {
	for _, c := range n.openOver(id) {
		c.schedule()
	}
}

// resetDue returns how long a connection from → to lasts before a reset,
// if one is in force: 0 under a partition or a reset at once, the earlier
// reset of the two ends otherwise.
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

// schedule resets the connection now if a reset in force is due, or sets
// its timer for when it will be (replacing the one set before). The timer
// looks again when it fires: a lift since stops it, a change reschedules.
// So a Read blocked on the connection beneath is reset when the fault
// says, not at its next step.
func (c *conn) schedule() {
	due, ok := c.n.resetDue(c.from, c.to)
	if !ok {
		return
	}
	left := c.opened.Add(due).Sub(c.n.Now())
	if left <= 0 {
		c.doReset()
		return
	}
	self := c.self
	c.setTimer(time.AfterFunc(left, func() {
		if c := self.Value(); c != nil {
			c.schedule()
		}
	}))
}

// setTimer replaces the connection's reset timer (nil: none); a closed
// connection stops it at once.
func (c *conn) setTimer(t *time.Timer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.closed && t != nil {
		t.Stop()
		t = nil
	}
	c.timer = t
}
