package netrules

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrNoEnd: the Links have no end of that ID.
var ErrNoEnd = errors.New("no such agent")

// Links are the faults on the ends of one network, for a runtime whose
// calls block: the ends are its agents. Safe for concurrent use. Every
// change of an end's faults closes the channel Plan handed out, so that the
// waits under the old faults re-plan (see Wait).
type Links struct {
	mu      sync.Mutex
	ends    map[string]*Faults
	src     Source
	changed chan struct{}
}

// NewLinks returns links over the given ends, with no fault; jitter is
// drawn from src.
func NewLinks(src Source, ids ...string) *Links {
	l := &Links{ends: make(map[string]*Faults, len(ids)), src: src, changed: make(chan struct{})}
	for _, id := range ids {
		l.ends[id] = &Faults{}
	}
	return l
}

// Has reports whether id is an end.
func (l *Links) Has(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.ends[id]
	return ok
}

// Faults returns the faults on end id.
func (l *Links) Faults(id string) (Faults, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.ends[id]
	if !ok {
		return Faults{}, false
	}
	return *f, true
}

// Update changes the faults on end id: f gets a copy, which replaces them
// unless f fails. A change wakes every wait (see Wait).
func (l *Links) Update(id string, f func(*Faults) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, ok := l.ends[id]
	if !ok {
		return fmt.Errorf("agent %q: %w", id, ErrNoEnd)
	}
	next := *cur
	if err := f(&next); err != nil {
		return err
	}
	if next != *cur {
		*cur = next
		close(l.changed)
		l.changed = make(chan struct{})
	}
	return nil
}

// Plan draws the plan of a call from → to (an ID that is no end has no
// fault), and returns a channel closed at the next change of the faults.
func (l *Links) Plan(from, to string) (Plan, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return PlanOf(End{from, l.ends[from]}, End{to, l.ends[to]}, l.src), l.changed
}

// Clock is what a blocking runtime waits on.
type Clock interface {
	Now() time.Time
	// Sleep waits d. It returns nil when d has passed, or early when wake
	// is closed; ctx's error when ctx ends first; the clock's own error
	// when the clock closes (the network's Close).
	Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error
}

// TimerClock waits with time.Timer: on the wall clock, or on the fake
// clock of a testing/synctest bubble, where such a wait blocks durably.
type TimerClock struct {
	Clock  func() time.Time // Now; nil: time.Now
	Closed <-chan struct{}  // closed: every wait ends with ErrClosed (nil: never)
	Err    error            // what a wait returns once Closed is
}

// Now reads the clock.
func (c TimerClock) Now() time.Time {
	if c.Clock != nil {
		return c.Clock()
	}
	return time.Now()
}

// Sleep waits d on a timer (see Clock).
func (c TimerClock) Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	select {
	case <-c.Closed:
		return c.Err
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-wake:
		return nil
	case <-ctx.Done():
		select {
		case <-c.Closed:
			return c.Err
		default:
		}
		return ctx.Err()
	case <-c.Closed:
		return c.Err
	}
}

// Wait waits out one step of a call. want says what the faults in force
// ask of the step: the wait counted from the step's start, whether the call
// is reset at its end, and a channel closed when those faults change. Wait
// asks again at each change, so that a lift ends the wait at once and a new
// fault lengthens it. It returns reset true when the call must be reset
// now, or the error that ended the wait first: ctx's (a deadline, a Close),
// or the clock's.
func Wait(ctx context.Context, c Clock, want func() (time.Duration, bool, <-chan struct{})) (reset bool, err error) {
	start := c.Now()
	for {
		d, reset, changed := want()
		for {
			left := d - c.Now().Sub(start)
			if left <= 0 {
				return reset, nil
			}
			if err := c.Sleep(ctx, left, changed); err != nil {
				return false, err
			}
			if closed(changed) {
				break // the faults changed: ask again
			}
		}
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
