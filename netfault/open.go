package netfault

import (
	"container/heap"
	"runtime"
	"slices"
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
//
// A reset due later (connection_reset with an after) is on one schedule
// for the whole network, not a timer per tie: the ties it will reset,
// earliest first, and a timer for the earliest. A tie leaves the schedule
// and the open set when it closes (or is collected), so it costs nothing
// once gone; a fault landed again moves the ties it reaches on the
// schedule and adds no timer; the network's Close empties the schedule.

// tie is one open connection or call between two agents: its ends, when
// it opened, and how to cut what is beneath it.
type tie struct {
	n        *Network
	from, to string
	opened   time.Time
	cut      func()            // closes what is beneath, at a reset
	self     weak.Pointer[tie] // its key in the open set
	slot     *slot             // its place in the open set and on the schedule
	cleanup  runtime.Cleanup   // forgets it if it is dropped unclosed

	mu     sync.Mutex
	reset  bool // by a fault
	closed bool // by its user
}

// ties are a network's open ties and the schedule of their resets.
//
// A timer is never stopped: one made in a testing/synctest bubble may
// only be stopped inside it, and a tie may close, or be collected, on any
// goroutine. So a timer starts only for a reset due before every timer
// pending, and one that finds nothing due does nothing. Ties opened later
// under the same faults are due later, and a fault landed again leaves
// their instants alone: a timer more comes only with a fault that brings
// a reset forward (a shorter after), and it is gone when it fires.
type ties struct {
	now func() time.Time // the network's clock

	mu     sync.Mutex
	open   map[weak.Pointer[tie]]*slot // the ties not yet closed
	due    schedule                    // the open ties a reset in force will reset, earliest first
	timers []time.Time                 // when the pending timers fire, earliest first
	closed bool                        // by the network's Close: nothing is scheduled any more
}

// slot is a tie's place in the open set and on the schedule. It holds the
// tie weakly, as the open set does.
type slot struct {
	tie weak.Pointer[tie]
	at  time.Time // when the tie's reset is due
	i   int       // its index on the schedule; -1: not on it
}

func newTies(now func() time.Time) *ties {
	return &ties{now: now, open: map[weak.Pointer[tie]]*slot{}}
}

// openTie adds a tie from → to, opened now, to the open set until its
// close (or its collection). The caller schedules it once the tie is in
// place (a partition in force, even one that landed after the caller
// checked for a refusal, cuts it then).
func (n *Network) openTie(from, to string, cut func()) *tie {
	t := &tie{n: n, from: from, to: to, opened: n.Now(), cut: cut}
	t.self = weak.Make(t)
	t.slot = &slot{tie: t.self, i: -1}
	s := n.ties
	s.mu.Lock()
	s.open[t.self] = t.slot
	s.mu.Unlock()
	t.cleanup = runtime.AddCleanup(t, s.forget, t.self)
	return t
}

// forget takes a tie out of the open set and off the schedule.
func (s *ties) forget(t weak.Pointer[tie]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sl, ok := s.open[t]; ok {
		delete(s.open, t)
		s.unqueue(sl)
	}
}

// over returns the open ties to or from agent id.
func (s *ties) over(id string) []*tie {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*tie
	for wp := range s.open {
		if t := wp.Value(); t != nil && (t.from == id || t.to == id) {
			out = append(out, t)
		}
	}
	return out
}

// close empties the schedule for good: the network is closed. The open
// set stays, for the ties still open; the timers pending find nothing.
func (s *ties) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, sl := range s.due {
		sl.i = -1
	}
	s.due = nil
}

// counts returns how many ties are open, how many are on the schedule and
// how many timers are pending.
func (s *ties) counts() (open, scheduled, timers int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open), len(s.due), len(s.timers)
}

// queue puts a slot on the schedule at at, or moves it there.
func (s *ties) queue(sl *slot, at time.Time) {
	sl.at = at
	if sl.i < 0 {
		heap.Push(&s.due, sl)
	} else {
		heap.Fix(&s.due, sl.i)
	}
}

// unqueue takes a slot off the schedule, if it is on it.
func (s *ties) unqueue(sl *slot) {
	if sl.i >= 0 {
		heap.Remove(&s.due, sl.i)
	}
}

// arm starts a timer for the earliest reset due, unless a pending one
// fires by then (see ties).
func (s *ties) arm() {
	if len(s.due) == 0 {
		return
	}
	at := s.due[0].at
	if len(s.timers) > 0 && !s.timers[0].After(at) {
		return
	}
	s.timers = slices.Insert(s.timers, 0, at)
	time.AfterFunc(at.Sub(s.now()), func() { s.fire(at) })
}

// fire is the timer for at: the ties due by now look at the faults again
// (a lift or a change since may have ended or moved their reset), and the
// next one due has a timer.
func (s *ties) fire(at time.Time) {
	due := s.popDue(at)
	ts := make([]*tie, 0, len(due))
	for _, wp := range due {
		if t := wp.Value(); t != nil {
			ts = append(ts, t)
		}
	}
	s.replace(ts)
}

// popDue forgets the timer for at and takes the ties due by now off the
// schedule.
func (s *ties) popDue(at time.Time) []weak.Pointer[tie] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.IndexFunc(s.timers, at.Equal); i >= 0 {
		s.timers = slices.Delete(s.timers, i, i+1)
	}
	var due []weak.Pointer[tie]
	for now := s.now(); len(s.due) > 0 && !s.due[0].at.After(now); {
		due = append(due, heap.Pop(&s.due).(*slot).tie)
	}
	return due
}

// replace puts each tie where the faults in force say (see place), then
// arms one timer for the earliest reset (not one per tie moved: which
// tie comes first would decide how many), and resets those due now.
func (s *ties) replace(ts []*tie) {
	var now []*tie
	for _, t := range ts {
		if t.place(false) {
			now = append(now, t)
		}
	}
	s.armLocked()
	for _, t := range now {
		t.doReset()
	}
}

// armLocked is arm under the schedule's lock.
func (s *ties) armLocked() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arm()
}

// schedule is a heap of slots (container/heap), earliest first.
type schedule []*slot

func (h schedule) Len() int           { return len(h) }
func (h schedule) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h schedule) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}

func (h *schedule) Push(x any) {
	sl := x.(*slot)
	sl.i = len(*h)
	*h = append(*h, sl)
}

func (h *schedule) Pop() any {
	old := *h
	sl := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	sl.i = -1
	return sl
}

// reschedule puts the faults in force on agent id's links onto its open
// ties (see tie.schedule): after a reset or a partition lands or lifts.
func (n *Network) reschedule(id string) {
	n.ties.replace(n.ties.over(id))
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

// schedule resets the tie now if a reset in force is due, or puts it on
// the network's schedule for when it will be (or moves it there); with
// no reset in force it takes it off. One schedule at a time: the last
// reads the latest faults.
func (t *tie) schedule() {
	if t.place(true) {
		t.doReset()
	}
}

// place puts the tie on the schedule, moves it or takes it off, and
// reports whether its reset is due now (the caller resets it, with no
// lock held). With arm, it arms a timer for the earliest reset.
func (t *tie) place(arm bool) (resetNow bool) {
	s := t.n.ties
	s.mu.Lock()
	defer s.mu.Unlock()
	if arm {
		defer s.arm() // before the Unlock
	}
	if t.isClosed() {
		return false
	}
	due, ok := t.n.resetDue(t.from, t.to)
	at := t.opened.Add(due)
	switch {
	case !ok:
		s.unqueue(t.slot)
	case !at.After(s.now()):
		s.unqueue(t.slot)
		return true
	case !s.closed:
		s.queue(t.slot, at)
	}
	return false
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

// close ends the tie for good: it leaves the open set and the schedule.
func (t *tie) close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cleanup.Stop()
	t.n.ties.forget(t.self)
}
