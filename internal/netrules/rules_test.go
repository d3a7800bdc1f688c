package netrules

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/ares-arena/arena/fault"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixed draws the same offset every time, in [0, n).
type fixed uint64

func (f fixed) Uint64N(n uint64) uint64 { return min(uint64(f), n-1) }

func TestPlanOf(t *testing.T) {
	ms := time.Millisecond
	lat := func(d time.Duration, dir fault.Direction, peer string) *Faults {
		return &Faults{Latency: fault.Latency{Latency: d, Direction: dir, Peer: peer}}
	}
	for _, tc := range []struct {
		name     string
		from, to *Faults
		want     Plan
	}{
		{"no fault", nil, &Faults{}, Plan{ResetAt: Never}},
		{"both ways on the caller: half each leg, the odd ns on the response", lat(101*ms+1, fault.DirectionBoth, ""), nil,
			Plan{Out: 50*ms + 500*time.Microsecond, Back: 50*ms + 500*time.Microsecond + 1, ResetAt: Never}},
		{"outbound on the caller: the request leg", lat(80*ms, fault.DirectionOutbound, ""), nil, Plan{Out: 80 * ms, ResetAt: Never}},
		{"outbound on the callee: the response leg", nil, lat(80*ms, fault.DirectionOutbound, ""), Plan{Back: 80 * ms, ResetAt: Never}},
		{"inbound on the callee: the request leg", nil, lat(80*ms, fault.DirectionInbound, ""), Plan{Out: 80 * ms, ResetAt: Never}},
		{"a peer other than the other end: no delay", lat(80*ms, fault.DirectionOutbound, "c"), nil, Plan{ResetAt: Never}},
		{"a peer that is the other end", lat(80*ms, fault.DirectionOutbound, "b"), nil, Plan{Out: 80 * ms, ResetAt: Never}},
		{"two latencies add up", lat(80*ms, fault.DirectionOutbound, ""), lat(20*ms, fault.DirectionInbound, ""), Plan{Out: 100 * ms, ResetAt: Never}},
		{"the lower rate", &Faults{Rate: 1000}, &Faults{Rate: 10}, Plan{Rate: 10, ResetAt: Never}},
		{"the earlier reset", &Faults{Reset: true, ResetAfter: 5 * ms}, &Faults{Reset: true, ResetAfter: 2 * ms}, Plan{ResetAt: 2 * ms}},
		{"a reset at once", nil, &Faults{Reset: true}, Plan{ResetAt: 0}},
		{"a partition on either end cuts", nil, &Faults{Partitioned: true}, Plan{ResetAt: Never, Cut: true}},
		{"two latencies at the top of int64 saturate", lat(Forever, fault.DirectionOutbound, ""), lat(Forever, fault.DirectionInbound, ""),
			Plan{Out: Forever, ResetAt: Never}},
	} {
		if got := PlanOf(End{"a", tc.from}, End{"b", tc.to}, fixed(0)); got != tc.want {
			t.Errorf("%s: PlanOf = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	self := lat(80*ms, fault.DirectionOutbound, "")
	if got := PlanOf(End{"a", self}, End{"a", self}, nil); got.Out != 80*ms {
		t.Errorf("a call to itself: %+v, want its faults once", got)
	}
}

// A jitter at the top of a Duration draws without overflow, whatever the
// draw: the wedge of issue 26 was Int64N(2*jitter+1) overflowing.
func TestJitterNeverOverflows(t *testing.T) {
	for _, l := range []fault.Latency{
		{Latency: time.Nanosecond, Jitter: Forever},
		{Latency: Forever, Jitter: Forever},
		{Latency: time.Hour, Jitter: 1281024 * time.Hour},
	} {
		for _, src := range []Source{fixed(0), fixed(1<<63 - 1), fixed(1<<64 - 1), rand.New(rand.NewPCG(1, 2))} {
			d := draw(l, src)
			if d < 0 {
				t.Errorf("draw(%+v) = %s, want never below 0", l, d)
			}
		}
	}
	if d := draw(fault.Latency{Latency: time.Second, Jitter: time.Second}, fixed(0)); d != 0 {
		t.Errorf("draw(1s ± 1s, lowest) = %s, want 0", d)
	}
	if d := draw(fault.Latency{Latency: time.Second, Jitter: time.Second}, fixed(1<<64-1)); d != 2*time.Second {
		t.Errorf("draw(1s ± 1s, highest) = %s, want 2s", d)
	}
}

func TestTransferAndStep(t *testing.T) {
	for _, tc := range []struct {
		rate, n int64
		want    time.Duration
	}{
		{0, 1 << 40, 0},
		{1000, 32_000, 32 * time.Second},
		{1, 1 << 62, Forever},
		{3, 1, 333333333},
		{fault.MaxRate, 1 << 62, time.Duration((1 << 62) / 1000)}, // 1e9/1e12 ns a byte
	} {
		if got := (Plan{Rate: tc.rate}).Transfer(tc.n); got != tc.want {
			t.Errorf("Transfer(%d bytes at %d B/s) = %s, want %s", tc.n, tc.rate, got, tc.want)
		}
	}
	p := Plan{Out: time.Second, Back: time.Second, Rate: 1000, ResetAt: 3 * time.Second}
	if got := p.Exchange(500); got != 2500*time.Millisecond {
		t.Errorf("Exchange(500) = %s, want 2.5s", got)
	}
	for _, tc := range []struct {
		spent, d, wait time.Duration
		reset          bool
	}{
		{0, time.Second, time.Second, false},
		{2 * time.Second, time.Second, time.Second, true}, // ends at the reset: the reset wins
		{2 * time.Second, 5 * time.Second, time.Second, true},
		{4 * time.Second, 0, 0, true}, // due already
		{time.Second, Forever, 2 * time.Second, true},
	} {
		if wait, reset := p.Step(tc.spent, tc.d); wait != tc.wait || reset != tc.reset {
			t.Errorf("Step(%s, %s) = %s, %v, want %s, %v", tc.spent, tc.d, wait, reset, tc.wait, tc.reset)
		}
	}
	if wait, reset := (Plan{ResetAt: Never}).Step(Forever, Forever); wait != Forever || reset {
		t.Errorf("Step without a reset = %s, %v", wait, reset)
	}
}

// wantLatency is Wait's want for a step that takes the request leg of a
// call from a to b on l.
func wantLatency(l *Links) func() (time.Duration, bool, <-chan struct{}) {
	return func() (time.Duration, bool, <-chan struct{}) {
		p, ch := l.Plan("a", "b")
		w, r := p.Step(0, p.Out)
		return w, r, ch
	}
}

func setLatency(t *testing.T, l *Links, d time.Duration) {
	t.Helper()
	err := l.Update("a", func(f *Faults) error {
		f.Latency = fault.Latency{Latency: d, Direction: fault.DirectionOutbound}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every wait ends: when it is over, at a lift (at once), later for a new
// fault, at its context's end, at the clock's close. On a synctest bubble's
// clock, as the simulated network waits.
func TestWaitEndsWithEverything(t *testing.T) {
	type outcome struct {
		took  time.Duration
		reset bool
		err   error
	}
	run := func(t *testing.T, clock TimerClock, ctx context.Context, l *Links, during func()) outcome {
		done := make(chan outcome, 1)
		start := time.Now()
		go func() {
			reset, err := Wait(ctx, clock, wantLatency(l))
			done <- outcome{time.Since(start), reset, err}
		}()
		synctest.Wait()
		during()
		return <-done
	}
	t.Run("over", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l := NewLinks(nil, "a", "b")
			setLatency(t, l, time.Hour)
			if o := run(t, TimerClock{}, context.Background(), l, func() {}); o.took != time.Hour || o.err != nil {
				t.Errorf("Wait = %+v, want 1h", o)
			}
		})
	})
	t.Run("a lift ends it at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l := NewLinks(nil, "a", "b")
			setLatency(t, l, 2048*time.Second)
			o := run(t, TimerClock{}, context.Background(), l, func() {
				time.Sleep(6 * time.Second)
				setLatency(t, l, 0)
			})
			if o.took != 6*time.Second || o.err != nil {
				t.Errorf("Wait = %+v, want it over at the lift, 6s in", o)
			}
		})
	})
	t.Run("a longer fault lengthens it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l := NewLinks(nil, "a", "b")
			setLatency(t, l, 10*time.Second)
			o := run(t, TimerClock{}, context.Background(), l, func() {
				time.Sleep(6 * time.Second)
				setLatency(t, l, 30*time.Second)
			})
			if o.took != 30*time.Second || o.err != nil {
				t.Errorf("Wait = %+v, want 30s from the step's start", o)
			}
		})
	})
	t.Run("a reset landing ends it with the reset", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l := NewLinks(nil, "a", "b")
			setLatency(t, l, time.Hour)
			o := run(t, TimerClock{}, context.Background(), l, func() {
				time.Sleep(time.Second)
				_ = l.Update("b", func(f *Faults) error { f.Reset = true; return nil })
			})
			if o.took != time.Second || !o.reset || o.err != nil {
				t.Errorf("Wait = %+v, want reset at once", o)
			}
		})
	})
	t.Run("the context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l := NewLinks(nil, "a", "b")
			setLatency(t, l, time.Hour)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			if o := run(t, TimerClock{}, ctx, l, func() {}); o.took != 3*time.Second || !errors.Is(o.err, context.DeadlineExceeded) {
				t.Errorf("Wait = %+v, want the deadline 3s in", o)
			}
		})
	})
	t.Run("the clock's close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			l := NewLinks(nil, "a", "b")
			setLatency(t, l, time.Hour)
			closed := make(chan struct{})
			errClosed := errors.New("closed")
			o := run(t, TimerClock{Closed: closed, Err: errClosed}, context.Background(), l, func() {
				time.Sleep(time.Second)
				close(closed)
			})
			if o.took != time.Second || !errors.Is(o.err, errClosed) {
				t.Errorf("Wait = %+v, want the close's error 1s in", o)
			}
		})
	})
}

func TestLinksUpdate(t *testing.T) {
	l := NewLinks(nil, "a")
	if err := l.Update("ghost", func(*Faults) error { return nil }); !errors.Is(err, ErrNoEnd) {
		t.Errorf("Update(ghost) = %v, want ErrNoEnd", err)
	}
	_, before := l.Plan("a", "b")
	failed := errors.New("no")
	if err := l.Update("a", func(f *Faults) error { f.Rate = 5; return failed }); err != failed {
		t.Errorf("Update = %v, want f's error", err)
	}
	if f, _ := l.Faults("a"); f.Rate != 0 || closed(before) {
		t.Errorf("a failed update changed %+v (woke waits: %v)", f, closed(before))
	}
	if err := l.Update("a", func(f *Faults) error { f.Rate = 5; return nil }); err != nil || !closed(before) {
		t.Errorf("Update = %v, woke waits %v; want the change to wake them", err, closed(before))
	}
}

func TestSplit(t *testing.T) {
	l := fault.Latency{Latency: 101, Jitter: 11}
	for _, tc := range []struct {
		dir             fault.Direction
		sends, receives fault.Latency
	}{
		{fault.DirectionBoth, fault.Latency{Latency: 50, Jitter: 5}, fault.Latency{Latency: 51, Jitter: 6}},
		{"", fault.Latency{Latency: 50, Jitter: 5}, fault.Latency{Latency: 51, Jitter: 6}},
		{fault.DirectionOutbound, fault.Latency{Latency: 101, Jitter: 11, Direction: fault.DirectionOutbound}, fault.Latency{}},
		{fault.DirectionInbound, fault.Latency{}, fault.Latency{Latency: 101, Jitter: 11, Direction: fault.DirectionInbound}},
	} {
		l.Direction = tc.dir
		if s, r := Split(l); s != tc.sends || r != tc.receives {
			t.Errorf("Split(%q) = %+v, %+v, want %+v, %+v", tc.dir, s, r, tc.sends, tc.receives)
		}
	}
}
