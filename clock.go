package arena

import (
	"sync"
	"time"
)

// Clock is a run's only source of time. Components of a run (fakes, observer,
// service timestamps) read it instead of time.Now, which is what makes a
// virtual run deterministic.
type Clock interface {
	Now() time.Time
}

// RealClock reads the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// VirtualClock is a clock that moves only when told to. The virtual executor
// owns one and jumps it to each event's time.
type VirtualClock struct {
	mu    sync.Mutex
	now   time.Time
	inUse bool // a run is playing on it; see Run.Play
}

// acquire marks the clock as driven by a run; false if one already is.
func (c *VirtualClock) acquire() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inUse {
		return false
	}
	c.inUse = true
	return true
}

func (c *VirtualClock) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inUse = false
}

// VirtualEpoch is where virtual clocks start unless told otherwise. A fixed
// epoch keeps virtual reports byte-identical from run to run.
var VirtualEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// NewVirtualClock returns a clock showing start (VirtualEpoch when zero).
func NewVirtualClock(start time.Time) *VirtualClock {
	if start.IsZero() {
		start = VirtualEpoch
	}
	return &VirtualClock{now: start}
}

// Now returns the clock's current time.
func (c *VirtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t. Moving backwards is ignored: time never rewinds.
func (c *VirtualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}

// Advance moves the clock forward by d (negative d is ignored).
func (c *VirtualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
}
