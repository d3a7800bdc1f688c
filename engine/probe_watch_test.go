package engine

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// failsafe bounds what a test waits for the watchdog: far past any timeout
// here, so only a watchdog that never fires reaches it.
const failsafe = 30 * time.Second

// waitDone waits for c's Done, or fails the test at the failsafe.
func waitDone(t *testing.T, c context.Context, what string) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(failsafe):
		t.Fatalf("%s: Done not closed after %s", what, failsafe)
	}
}

// A sample's context behaves as a context whose cancel function the
// observer holds, with the watchdog's timeout: Err, Done, Value and Cause
// agree, the first error stays, and a context is reused only when the
// probe did not ask for Done.
func TestSampleCtx(t *testing.T) {
	bg := context.WithValue(context.Background(), ctxKey{}, "v")

	t.Run("live, then over", func(t *testing.T) {
		w := newProbeWatch(time.Hour)
		c := w.begin(bg)
		if err := c.Err(); err != nil {
			t.Fatalf("err %v in a live sample", err)
		}
		if v := c.Value(ctxKey{}); v != "v" {
			t.Fatalf("value %v, want the parent's", v)
		}
		if _, ok := c.Deadline(); ok {
			t.Fatal("a deadline the parent does not have")
		}
		w.end(c)
		if err := c.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v after the sample, want Canceled", err)
		}
		select {
		case <-c.Done():
		default:
			t.Fatal("Done asked for after the sample is not closed")
		}
	})

	t.Run("reused only when Done was not asked for", func(t *testing.T) {
		w := newProbeWatch(time.Hour)
		c1 := w.begin(bg)
		w.end(c1)
		c2 := w.begin(bg)
		if c2 != c1 {
			t.Fatal("a context only read for Err was not reused")
		}
		if err := c2.Err(); err != nil {
			t.Fatalf("reused context: err %v in its new sample", err)
		}
		done := c2.Done()
		w.end(c2)
		<-done
		c3 := w.begin(bg)
		defer w.end(c3)
		if c3 == c2 {
			t.Fatal("a context whose Done was asked for was reused")
		}
		if err := c2.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("the old context: err %v in the next sample, want Canceled", err)
		}
		if err := c3.Err(); err != nil {
			t.Fatalf("the new context: err %v", err)
		}
	})

	t.Run("a probe waiting on Done is ended at the timeout, not before", func(t *testing.T) {
		const timeout = 20 * time.Millisecond
		w := newProbeWatch(timeout)
		start := time.Now()
		c := w.begin(bg)
		waitDone(t, c, "hung probe")
		if d := time.Since(start); d < timeout {
			t.Fatalf("ended after %s, before the timeout %s", d, timeout)
		}
		if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want DeadlineExceeded", err)
		}
		if err := context.Cause(c); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cause %v, want DeadlineExceeded", err)
		}
		w.end(c)
		if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v after the sample, want DeadlineExceeded (the first error stays)", err)
		}
	})

	t.Run("a probe polling Err is ended at the timeout", func(t *testing.T) {
		const timeout = 20 * time.Millisecond
		w := newProbeWatch(timeout)
		start := time.Now()
		c := w.begin(bg)
		var err error
		for err = c.Err(); err == nil; err = c.Err() {
			if time.Since(start) > failsafe {
				t.Fatalf("Err still nil after %s", failsafe)
			}
			time.Sleep(time.Millisecond)
		}
		if d := time.Since(start); d < timeout {
			t.Fatalf("ended after %s, before the timeout %s", d, timeout)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want DeadlineExceeded", err)
		}
		w.end(c)
		if c2 := w.begin(bg); c2 != c {
			t.Error("a context only read for Err was not reused after a timeout")
		} else if err := c2.Err(); err != nil {
			t.Errorf("reused after a timeout: err %v", err)
		}
	})

	t.Run("parent cancelled", func(t *testing.T) {
		parent, cancel := context.WithCancelCause(bg)
		w := newProbeWatch(time.Hour)
		c := w.begin(parent)
		child, stop := context.WithCancel(c) // asks for Done
		defer stop()
		why := errors.New("why")
		cancel(why)
		waitDone(t, child, "child of a cancelled parent")
		if err := c.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want Canceled", err)
		}
		if err := context.Cause(c); err != why {
			t.Fatalf("cause %v, want the parent's", err)
		}
		w.end(c)
		if err := context.Cause(c); err != why {
			t.Fatalf("cause %v after the sample, want the parent's", err)
		}
	})

	t.Run("parent's deadline stays the error", func(t *testing.T) {
		parent, cancel := context.WithDeadline(bg, time.Now().Add(-time.Second))
		defer cancel()
		w := newProbeWatch(time.Hour)
		c := w.begin(parent)
		if d, ok := c.Deadline(); !ok || d.After(time.Now()) {
			t.Fatalf("deadline %v %v, want the parent's", d, ok)
		}
		if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want the parent's DeadlineExceeded", err)
		}
		w.end(c)
		if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v after the sample, want DeadlineExceeded (the first error stays)", err)
		}
	})

	t.Run("the watchdog goes when no sample is in progress", func(t *testing.T) {
		w := newProbeWatch(time.Millisecond)
		c := w.begin(bg)
		if !w.alive.Load() {
			t.Fatal("no watchdog during a sample")
		}
		w.end(c)
		for deadline := time.Now().Add(failsafe); w.alive.Load(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("watchdog still alive %s after the last sample", failsafe)
			}
		}
		c = w.begin(bg) // and comes back with the next
		defer w.end(c)
		if !w.alive.Load() {
			t.Fatal("no watchdog for a sample after it went")
		}
	})
}

// A virtual sample costs no allocation: its context is reused and the
// watchdog, once started, is not started again.
func TestVirtualSampleDoesNotAllocate(t *testing.T) {
	ex := newVirtualExecutor(clock.NewVirtual(time.Time{}))
	o := newObserver(ex, func(ctx context.Context) error { return ctx.Err() }, nil, ObserveOptions{})
	ctx := context.Background()
	o.sample(ctx) // the first sample makes the context and the timeline's entry
	if n := testing.AllocsPerRun(1000, func() { o.sample(ctx) }); n != 0 {
		t.Errorf("%v allocations per sample, want 0", n)
	}
}

// A probe that hangs in a virtual run is ended by the watchdog in real time:
// the run goes on to its end, and the hung samples are unhealthy with the
// deadline as their reason. One probe waits on Done, one polls Err.
func TestVirtualRunEndsAHungProbe(t *testing.T) {
	for _, tc := range []struct {
		name string
		hang func(ctx context.Context) error
	}{
		{"waits on Done", func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}},
		{"polls Err", func(ctx context.Context) error {
			for ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			return ctx.Err()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			probe := func(ctx context.Context) error {
				n++
				if n == 3 || n == 4 { // the samples at 200ms and 300ms
					return tc.hang(ctx)
				}
				return ctx.Err()
			}
			clk := clock.NewVirtual(time.Time{})
			svc := NewService(fault.NewInjector(nil, nil), nil, nil, WithClock(clk), WithProbe(probe),
				WithObserveOptions(ObserveOptions{ProbeTimeout: 10 * time.Millisecond}))
			done := make(chan struct{})
			var rep *Report
			var err error
			go func() {
				defer close(done)
				rep, err = RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: time.Second})
			}()
			select {
			case <-done:
			case <-time.After(failsafe):
				t.Fatalf("the run did not end within %s: the hung probe was not ended", failsafe)
			}
			if err != nil {
				t.Fatal(err)
			}
			want := []Transition{
				{At: 0, Healthy: true},
				{At: clock.Duration(200 * time.Millisecond), Healthy: false, Reason: context.DeadlineExceeded.Error()},
				{At: clock.Duration(400 * time.Millisecond), Healthy: true},
			}
			if rep.Samples != 11 || rep.HealthySamples != 9 || !slices.Equal(rep.Timeline, want) {
				t.Errorf("samples %d, healthy %d, timeline %+v; want 11, 9, %+v", rep.Samples, rep.HealthySamples, rep.Timeline, want)
			}
		})
	}
}
