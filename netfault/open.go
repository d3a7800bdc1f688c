package netfault

import (
	"runtime"
	"weak"
)

// The Network keeps the Dialer's open connections, so that a fault that
// resets at once (a partition, a reset after 0) reaches a connection whose
// Read is blocked on the connection beneath, not only its next step. It
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

// resetOpen resets the open connections to or from agent id: a Read or
// Write blocked on the connection beneath ends with a *ResetError.
func (n *Network) resetOpen(id string) {
	for _, c := range n.openOver(id) {
		c.doReset()
	}
}

// cutsAtOnce reports whether a connection from → to is reset as soon as it
// is open: a partition or a reset at once on either end.
func (n *Network) cutsAtOnce(from, to string) bool {
	for _, id := range [2]string{from, to} {
		if f, _ := n.links.Faults(id); f.Partitioned || (f.Reset && f.ResetAfter == 0) {
			return true
		}
	}
	return false
}
