package clock

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Clock is a run's only source of time. Components of a run (fakes, observer,
// service timestamps) read it instead of time.Now, which is what makes a
// virtual run deterministic.
type Clock interface {
	Now() time.Time
}

// Real reads the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Virtual is a clock that moves only when told to. The virtual executor
// owns one and jumps it to each event's time.
type Virtual struct {
	mu     sync.Mutex
	now    time.Time
	inUse  bool // a run is playing on it; see Run.Play
	timers []*clockTimer
	timerN uint64

	// Now reads the time without the lock while exact holds: now is then
	// base plus off nanoseconds, to the last bit (same location, no
	// monotonic reading). A time that is not (a Set from another zone, a
	// time.Now reading) clears exact for good, and Now takes the lock.
	base  time.Time
	off   atomic.Int64
	exact atomic.Bool
	// plain: base has no monotonic reading, so offset can read a time's
	// distance from it off seconds and nanoseconds.
	plain bool
}

// Acquire marks the clock as driven by one run, which alone jumps it
// (two interleaved runs would each see the other's jumps); ok is false
// when a run drives it already. The driver calls release when it is done;
// release is the one way to let the clock go, and a second call does
// nothing.
func (c *Virtual) Acquire() (release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inUse {
		return nil, false
	}
	c.inUse = true
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.inUse = false
		})
	}, true
}

// virtualEpoch is where virtual clocks start unless told otherwise: a
// fixed epoch keeps virtual reports byte-identical from run to run, so it
// is no variable a program could change.
const virtualEpochUnix = 1735689600 // 2025-01-01T00:00:00Z

// VirtualEpoch returns where virtual clocks start unless told otherwise:
// 2025-01-01 00:00:00 UTC.
func VirtualEpoch() time.Time { return time.Unix(virtualEpochUnix, 0).UTC() }

// NewVirtual returns a clock showing start (VirtualEpoch() when zero).
func NewVirtual(start time.Time) *Virtual {
	if start.IsZero() {
		start = VirtualEpoch()
	}
	c := &Virtual{now: start, base: start, plain: start == start.Round(0)}
	c.exact.Store(true)
	return c
}

// Now returns the clock's current time.
func (c *Virtual) Now() time.Time {
	if c.exact.Load() {
		return c.base.Add(time.Duration(c.off.Load()))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// setNow moves the clock to t. Called with c.mu held.
func (c *Virtual) setNow(t time.Time) {
	c.now = t
	if !c.exact.Load() {
		return
	}
	if d, ok := c.offset(t); ok {
		c.off.Store(int64(d))
		return
	}
	c.exact.Store(false)
}

// maxOffsetSec bounds the seconds of an offset that cannot overflow a
// Duration, nanoseconds added.
const maxOffsetSec = math.MaxInt64/int64(time.Second) - 1

// offset returns d such that base.Add(d) == t, if there is one. It runs at
// every event of a virtual run: a time in base's zone, neither with a
// monotonic reading, is base plus the difference of their seconds and
// nanoseconds, found without Sub and Add (which check each other).
func (c *Virtual) offset(t time.Time) (time.Duration, bool) {
	if c.plain && t.Location() == c.base.Location() && t == t.Round(0) {
		if s := t.Unix() - c.base.Unix(); -maxOffsetSec <= s && s <= maxOffsetSec {
			return time.Duration(s)*time.Second + time.Duration(t.Nanosecond()-c.base.Nanosecond()), true
		}
	}
	d := t.Sub(c.base)
	return d, c.base.Add(d) == t
}

// Set moves the clock to t. Moving backwards is ignored: time never rewinds.
// Timers due by t (see AfterFunc) fire on the way, each with the clock
// showing its own time.
func (c *Virtual) Set(t time.Time) {
	for {
		c.mu.Lock()
		tm := c.dueBy(t)
		if tm == nil {
			if t.After(c.now) {
				c.setNow(t)
			}
			c.mu.Unlock()
			return
		}
		if tm.at.After(c.now) {
			c.setNow(tm.at)
		}
		c.mu.Unlock()
		tm.fn() // unlocked: it may read the clock
	}
}

// Advance moves the clock forward by d (negative d is ignored).
func (c *Virtual) Advance(d time.Duration) {
	if d > 0 {
		c.Set(c.Now().Add(d))
	}
}

// clockTimer is a function due at a virtual instant: the lift of a timed
// fault executed outside a run happens when the clock passes it, whoever
// moves the clock (a run, a test's Advance).
type clockTimer struct {
	at  time.Time
	seq uint64
	fn  func()
}

// AfterFunc calls fn once the clock reaches now+d; stop cancels it and
// reports whether it had not fired.
func (c *Virtual) AfterFunc(d time.Duration, fn func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timerN++
	tm := &clockTimer{at: c.now.Add(d), seq: c.timerN, fn: fn}
	c.timers = append(c.timers, tm)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.timers {
			if x == tm {
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
				return true
			}
		}
		return false
	}
}

// dueBy removes and returns the earliest timer due by t (ties: in the order
// they were made), or nil. Called with c.mu held.
func (c *Virtual) dueBy(t time.Time) *clockTimer {
	best := -1
	for i, x := range c.timers {
		if x.at.After(t) {
			continue
		}
		if best < 0 || x.at.Before(c.timers[best].at) || (x.at.Equal(c.timers[best].at) && x.seq < c.timers[best].seq) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	tm := c.timers[best]
	c.timers = append(c.timers[:best], c.timers[best+1:]...)
	return tm
}
