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
// future fires it now.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.cancel // the timer fired: wait until its func closed cancel
	}
	d.timer = nil
	closed := isClosed(d.cancel)
	if t.IsZero() {
		if closed {
			d.cancel = make(chan struct{})
		}
		return
	}
	if dur := time.Until(t); dur > 0 {
		if closed {
			d.cancel = make(chan struct{})
		}
		ch := d.cancel
		d.timer = time.AfterFunc(dur, func() { close(ch) })
		return
	}
	if !closed {
		close(d.cancel)
	}
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
	if d.timer != nil {
		d.timer.Stop()
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
