package sim

import (
	"sync"
	"time"
)

// deadline is one direction's deadline of a conn (or a listener's): a
// channel closed when the deadline passes, re-armed by set. Its timer is a
// time.AfterFunc, and waiting is a select on its channel, so in a synctest
// bubble a Read blocked until its deadline is durably blocked and the
// bubble's clock jumps to the deadline. The shape is net.Pipe's.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel chan struct{} // closed when the deadline has passed
}

func newDeadline() *deadline { return &deadline{cancel: make(chan struct{})} }

// set arms the deadline at t: the zero time clears it, a time not in the
// future fires it now. A pending timer is re-armed rather than replaced:
// raft sets a deadline around every RPC.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pending := d.timer != nil && d.timer.Stop() // stopped before it fired
	if d.timer != nil && !pending {
		<-d.cancel // the timer fired: wait until its func closed cancel
	}
	timer := d.timer
	d.timer = nil
	if t.IsZero() {
		if isClosed(d.cancel) {
			d.cancel = make(chan struct{})
		}
		return
	}
	dur := time.Until(t)
	if dur <= 0 {
		if !isClosed(d.cancel) {
			close(d.cancel)
		}
		return
	}
	if pending { // not fired: its channel is open, and its func closes it
		timer.Reset(dur)
		d.timer = timer
		return
	}
	if isClosed(d.cancel) {
		d.cancel = make(chan struct{})
	}
	ch := d.cancel
	d.timer = time.AfterFunc(dur, func() { close(ch) })
}

// wait returns the channel closed when the deadline passes.
func (d *deadline) wait() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancel
}

// stop releases the timer: the conn is closed.
func (d *deadline) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && d.timer.Stop() {
		d.timer = nil
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
