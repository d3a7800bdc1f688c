package clock

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
	c := NewVirtual(time.Time{})
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
		c := NewVirtual(time.Time{})
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
	c := NewVirtual(time.Time{})
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

// clockOffset holds offset to the reference it stands in for, Sub checked
// by Add, for a start and a time given as seconds, nanoseconds, a zone
// (UTC, a fixed zone, Local) and whether each carries a monotonic reading.
func clockOffset(t *testing.T, baseSec, tSec int64, baseNsec, tNsec uint32, zones uint8, baseMono, tMono bool) {
	t.Helper()
	zone := func(z uint8) *time.Location {
		return []*time.Location{time.UTC, time.FixedZone("X", 3600), time.Local}[z%3]
	}
	at := func(sec int64, nsec uint32, z uint8, mono bool) time.Time {
		v := time.Unix(sec, int64(nsec%1e9)).In(zone(z))
		if mono {
			v = time.Now().Add(v.Sub(time.Now())) // v's instant, with a monotonic reading when in range
		}
		return v
	}
	base, next := at(baseSec, baseNsec, zones, baseMono), at(tSec, tNsec, zones/3, tMono)
	c := NewVirtual(base)
	d, ok := c.offset(next)
	want := next.Sub(base)
	wantOK := base.Add(want) == next
	if ok != wantOK || (ok && d != want) {
		t.Fatalf("offset(%v) from %v = %v, %v; want %v, %v", next, base, d, ok, want, wantOK)
	}
}

func TestVirtualClockOffset(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20_000 {
		baseSec := rng.Int64N(1<<40) - 1<<39
		tSec := baseSec + rng.Int64N(1<<36) - 1<<35
		if rng.IntN(8) == 0 {
			tSec = rng.Int64() >> rng.UintN(40)
		}
		clockOffset(t, baseSec, tSec, rng.Uint32(), rng.Uint32(), uint8(rng.UintN(9)), rng.IntN(8) == 0, rng.IntN(8) == 0)
	}
}

func FuzzVirtualClockOffset(f *testing.F) {
	f.Add(int64(1735689600), int64(1735689600+86400), uint32(0), uint32(100_000_000), uint8(0), false, false)
	f.Add(int64(0), int64(9223372036), uint32(0), uint32(999_999_999), uint8(0), false, false)
	f.Add(int64(0), int64(-9223372036), uint32(999_999_999), uint32(0), uint8(4), false, true)
	f.Fuzz(clockOffset)
}

// One run drives a virtual clock at a time, and only its release lets it
// go: a second release (a deferred one after an early one) changes nothing.
func TestAcquireReleasesOnce(t *testing.T) {
	c := NewVirtual(time.Time{})
	release, ok := c.Acquire()
	if !ok {
		t.Fatal("Acquire of a free clock failed")
	}
	if _, ok := c.Acquire(); ok {
		t.Fatal("a second Acquire succeeded while the first holds the clock")
	}
	release()
	again, ok := c.Acquire()
	if !ok {
		t.Fatal("Acquire after release failed")
	}
	release() // the first driver's release, late: the second still holds it
	if _, ok := c.Acquire(); ok {
		t.Error("a stale release let the clock go from under its new driver")
	}
	again()
}
