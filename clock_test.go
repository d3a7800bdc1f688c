package arena

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// Now shows exactly what the clock was last moved to: the lock-free reading
// while times stay in the start's zone, the locked one after a time from
// another zone, with a monotonic reading or too far to be an offset.
func TestVirtualClockNow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := NewVirtualClock(time.Time{})
	want := c.Now()
	if !want.Equal(VirtualEpoch()) {
		t.Fatalf("Now() = %v, want VirtualEpoch", want)
	}
	for range 10_000 {
		want = want.Add(time.Duration(rng.Int64N(int64(time.Hour))))
		c.Set(want)
		if got := c.Now(); got != want {
			t.Fatalf("Now() = %v, want %v", got, want)
		}
		c.Set(want.Add(-time.Second)) // ignored
	}
	if !c.exact.Load() {
		t.Fatal("times in the start's zone left the lock-free reading")
	}
	for _, tc := range []struct {
		name string
		next time.Time
	}{
		{"another zone", want.Add(time.Hour).In(time.FixedZone("X", 3600))},
		{"a monotonic reading", time.Now().Add(100 * 24 * 365 * time.Hour)},
		{"further than a Duration from the start", time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		c := NewVirtualClock(time.Time{})
		c.Set(tc.next)
		if got := c.Now(); got != tc.next || c.exact.Load() {
			t.Errorf("%s: after Set(%v): Now() = %v, lock-free %v; want that time, locked", tc.name, tc.next, got, c.exact.Load())
		}
		c.Advance(time.Second)
		if got := c.Now(); got != tc.next.Add(time.Second) {
			t.Errorf("%s: after Advance(1s): Now() = %v, want %v", tc.name, got, tc.next.Add(time.Second))
		}
	}
}

// Readers and a writer at once (run under -race): every reading is one the
// clock showed, in order.
func TestVirtualClockConcurrentNow(t *testing.T) {
	c := NewVirtualClock(time.Time{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			prev := c.Now()
			for range 20_000 {
				now := c.Now()
				if now.Before(prev) || now.Sub(VirtualEpoch())%time.Millisecond != 0 {
					t.Errorf("Now() = %v after %v", now, prev)
					return
				}
				prev = now
			}
		})
	}
	for range 20_000 {
		c.Advance(time.Millisecond)
	}
	wg.Wait()
}
