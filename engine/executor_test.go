package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/heapq"
)

// TestVirtualExecutorSameInstantOrder pins the documented rule: at one
// instant lifts run before injections, before samples, before checks, before
// phase edges; within a kind, in scheduling order; earlier instants first.
func TestVirtualExecutorSameInstantOrder(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	ex := newVirtualExecutor(clk)
	t0 := clk.Now()
	var got []string
	add := func(at time.Duration, kind EventKind, name string) {
		ex.At(t0.Add(at), kind, func(context.Context) {
			got = append(got, fmt.Sprintf("%s@%s", name, clk.Now().Sub(t0)))
		})
	}
	add(time.Second, KindPhase, "phase")
	add(time.Second, KindCheck, "check")
	add(time.Second, KindSample, "sample")
	add(time.Second, KindInject, "inject1")
	add(time.Second, KindLift, "lift")
	add(time.Second, KindInject, "inject2")
	add(500*time.Millisecond, KindPhase, "early")
	add(3*time.Second, KindLift, "late") // after end: not run
	if err := ex.Run(context.Background(), t0.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	want := []string{"early@500ms", "lift@1s", "inject1@1s", "inject2@1s", "sample@1s", "check@1s", "phase@1s"}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	if d := clk.Now().Sub(t0); d != 2*time.Second {
		t.Errorf("clock after Run = +%s, want +2s (the end)", d)
	}
}

func TestVirtualExecutorEventsScheduleEvents(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	ex := newVirtualExecutor(clk)
	t0 := clk.Now()
	n := 0
	var tick func(context.Context)
	tick = func(context.Context) {
		n++
		ex.At(clk.Now().Add(time.Second), KindSample, tick)
	}
	ex.At(t0, KindSample, tick)
	if err := ex.Run(context.Background(), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n != 3601 {
		t.Errorf("ticks in an hour at 1s = %d, want 3601 (both ends included)", n)
	}
}

func TestVirtualExecutorHonoursCancel(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	ex := newVirtualExecutor(clk)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := 0
	for i := range 10 {
		ex.At(clk.Now().Add(time.Duration(i)*time.Second), KindInject, func(context.Context) {
			ran++
			if ran == 3 {
				cancel()
			}
		})
	}
	if err := ex.Run(ctx, clk.Now().Add(time.Minute)); err != context.Canceled {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if ran != 3 {
		t.Errorf("events run = %d, want 3 (none after the cancel)", ran)
	}
}

// TestRealExecutorInSynctest runs the real-time executor in a synctest bubble,
// where time is fake but behaves like the wall clock: events run when due, in
// order, and work started with Go overlaps the schedule.
func TestRealExecutorInSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ex := newRealExecutor(nil)
		t0 := time.Now()
		var mu sync.Mutex
		var got []string
		note := func(s string) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprintf("%s@%s", s, time.Since(t0)))
		}
		ex.At(t0.Add(2*time.Second), KindSample, func(context.Context) { note("sample") })
		ex.At(t0.Add(time.Second), KindInject, func(context.Context) {
			note("inject")
			ex.Go(func(ctx context.Context) {
				time.Sleep(1500 * time.Millisecond) // a slow provider call
				note("landed")
				ex.At(time.Now(), KindCheck, func(context.Context) { note("check") })
			})
		})
		if err := ex.Run(context.Background(), t0.Add(4*time.Second)); err != nil {
			t.Fatal(err)
		}
		want := []string{"inject@1s", "sample@2s", "landed@2.5s", "check@2.5s"}
		if !slices.Equal(got, want) {
			t.Errorf("order = %v, want %v", got, want)
		}
		if d := time.Since(t0); d != 4*time.Second {
			t.Errorf("Run returned after %s, want 4s (the end)", d)
		}
	})
}

func TestRealExecutorCancelWaitsForGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ex := newRealExecutor(nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		finished := false
		ex.Go(func(ctx context.Context) {
			<-ctx.Done()
			time.Sleep(time.Second)
			finished = true
		})
		ex.At(time.Now().Add(time.Second), KindInject, func(context.Context) { cancel() })
		if err := ex.Run(ctx, time.Now().Add(time.Hour)); err != context.Canceled {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
		if !finished {
			t.Error("Run returned before the goroutine started with Go finished")
		}
	})
}

func TestStopEndsTheRunAtThatInstant(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	ex := newVirtualExecutor(clk)
	t0 := clk.Now()
	ran := 0
	for i := range 10 {
		ex.At(t0.Add(time.Duration(i)*time.Second), KindSample, func(context.Context) { ran++ })
	}
	ex.At(t0.Add(3*time.Second), KindPhase, func(context.Context) { ex.Stop() })
	if err := ex.Run(context.Background(), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ran != 4 || clk.Now().Sub(t0) != 3*time.Second {
		t.Errorf("ran %d events, clock at +%s; want 4 (0s…3s) and +3s", ran, clk.Now().Sub(t0))
	}
	synctest.Test(t, func(t *testing.T) {
		ex := newRealExecutor(nil)
		t0 := time.Now()
		ex.At(t0.Add(2*time.Second), KindPhase, func(context.Context) { ex.Stop() })
		if err := ex.Run(context.Background(), t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(t0); d != 2*time.Second {
			t.Errorf("real-time Run returned after %s, want 2s", d)
		}
	})
}

// hangRuntime's kills block until their context ends.
type hangRuntime struct{ *stubRuntime }

func (h hangRuntime) StopAgent(ctx context.Context, _ string) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestHungProviderCallIsCancelledAfterGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := newStub(clock.Real{}, 0)
		svc := NewService(fault.NewInjector(hangRuntime{stub}, nil), nil, nil, WithProbe(stub.probe))
		start := time.Now()
		rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second}, kill(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 5*time.Second+defaultGrace {
			t.Errorf("run returned after %s, want 10s (5s + the grace)", d)
		}
		if len(rep.InjectionErrors) != 1 && len(rep.Faults) != 0 {
			t.Errorf("report = %d faults, %d injection errors", len(rep.Faults), len(rep.InjectionErrors))
		}
	})
}

func TestOneVirtualRunPerClock(t *testing.T) {
	svc, _ := virtualService(time.Second)
	a, err := svc.NewRun(RunOptions{Seed: 1, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.NewRun(RunOptions{Seed: 2, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var inner error
	a.At(time.Second, KindPhase, func(ctx context.Context) {
		_, inner = b.Play(ctx) // while a drives the clock
	})
	wg.Go(func() {
		if _, err := a.Play(context.Background()); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	if !errors.Is(inner, ErrRunActive) { // the service refuses before the clock is looked at
		t.Errorf("second concurrent Play = %v, want ErrRunActive", inner)
	}
	if _, err := b.Play(context.Background()); !errors.Is(err, ErrClockBusy) {
		t.Errorf("Play after the clock moved = %v, want ErrClockBusy", err)
	}
}

// TestEventQueueOrder: the typed heap pops by (at, kind, seq) whatever the
// order of pushes and pops.
func TestEventQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q heapq.Heap[scheduled, *scheduled]
	var popped []scheduled
	seq := uint64(0)
	base := time.Unix(0, 0)
	for range 5000 {
		if rng.IntN(3) > 0 || len(q) == 0 {
			seq++
			q.Push(scheduled{at: base.Add(time.Duration(rng.IntN(50)) * time.Second), kind: EventKind(rng.IntN(3)), seq: seq})
			continue
		}
		popped = append(popped, q.Pop())
		if n := len(popped); n > 1 && len(q) > 0 && q[0].Less(&popped[n-1]) {
			t.Fatalf("heap top %+v is before the event just popped %+v", q[0], popped[n-1])
		}
	}
	var rest []scheduled
	for len(q) > 0 {
		rest = append(rest, q.Pop())
	}
	for i := 1; i < len(rest); i++ {
		if rest[i].Less(&rest[i-1]) {
			t.Fatalf("popped out of order at %d: %+v after %+v", i, rest[i], rest[i-1])
		}
	}
}

// queueOps plays ops, two bytes each, on a queue and on a plain heap of the
// same events in the order they were scheduled (the reference), and fails
// at the first event they pop differently. A fifth of the events are
// samples At schedules, to be ordered against the observer's.
func queueOps(t *testing.T, ops []byte) {
	t.Helper()
	var (
		q    queue
		seen queueTop // the player's, as in virtualExecutor.Run
		ref  heapq.Heap[scheduled, *scheduled]
		n    uint64 // events scheduled; each event's fn reports its number
		ran  uint64
	)
	base := time.Unix(0, 0)
	event := func() func(context.Context) {
		n++
		id := n
		return func(context.Context) { ran = id }
	}
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i], ops[i+1]
		at := base.Add(time.Duration(arg%16) * time.Second)
		switch op % 4 {
		case 0:
			kind := EventKind(arg / 16 % 5)
			q.at(at, kind, event())
			ref.Push(scheduled{at: at, kind: kind, seq: n})
		case 1:
			if q.hasSample {
				continue // the observer queues one at a time
			}
			q.sampleAt(at, event())
			ref.Push(scheduled{at: at, kind: KindSample, seq: n})
		case 2:
			got, fn, ok := q.pop(at, &seen)
			want, wantOK := scheduled{}, len(ref) > 0 && !ref[0].at.After(at)
			if wantOK {
				want = ref.Pop()
			}
			if ok {
				fn(nil)
			}
			if ok != wantOK || (ok && (ran != want.seq || got != want.at)) {
				t.Fatalf("op %d: pop(%v) = event %d at %v, %v; want event %d %+v, %v", i/2, at, ran, got, ok, want.seq, want, wantOK)
			}
		case 3:
			got, ok := q.peek()
			if wantOK := len(ref) > 0; ok != wantOK || (ok && got != ref[0].at) {
				t.Fatalf("op %d: peek() = %v, %v; want the heap's top", i/2, got, ok)
			}
		}
	}
	for len(ref) > 0 {
		want := ref.Pop()
		_, fn, ok := q.pop(base.Add(time.Hour), &seen)
		if ok {
			fn(nil)
		}
		if !ok || ran != want.seq {
			t.Fatalf("draining: pop() = event %d, %v; want event %d", ran, ok, want.seq)
		}
	}
	if got, ok := q.next(base.Add(time.Hour), nil); ok {
		t.Fatalf("drained queue: next() = %+v, want nothing", got)
	}
}

// TestQueueSampleOutOfTurn: pop takes the sample without the lock only while
// the heap's top is the one it last saw: an event scheduled before the
// sample since, or a Stop, is seen.
func TestQueueSampleOutOfTurn(t *testing.T) {
	base := time.Unix(0, 0)
	var (
		q    queue
		seen queueTop
		ran  string
	)
	mark := func(s string) func(context.Context) { return func(context.Context) { ran = s } }
	play := func(end time.Time) string {
		ran = ""
		if _, fn, ok := q.pop(end, &seen); ok {
			fn(nil)
		}
		return ran
	}
	q.at(base.Add(10*time.Second), KindInject, mark("tick"))
	q.sampleAt(base, mark("sample 0"))
	if got := play(base.Add(time.Minute)); got != "sample 0" {
		t.Fatalf("first pop ran %q, want sample 0", got)
	}
	q.sampleAt(base.Add(time.Second), mark("sample 1"))
	q.at(base.Add(500*time.Millisecond), KindCheck, mark("check")) // after seen was recorded
	if got := play(base.Add(time.Minute)); got != "check" {
		t.Fatalf("pop ran %q, want the check scheduled since", got)
	}
	if got := play(base.Add(time.Minute)); got != "sample 1" {
		t.Fatalf("pop ran %q, want sample 1", got)
	}
	q.sampleAt(base.Add(2*time.Second), mark("sample 2"))
	if got := play(base.Add(1500 * time.Millisecond)); got != "" {
		t.Fatalf("pop past the end ran %q, want nothing", got)
	}
	q.Stop()
	if got := play(base.Add(time.Minute)); got != "" {
		t.Fatalf("pop after Stop ran %q, want nothing", got)
	}
	q.startOvertime() // drops the tick
	if got := play(base.Add(time.Minute)); got != "sample 2" {
		t.Fatalf("pop in overtime ran %q, want sample 2", got)
	}
	q.sampleAt(base.Add(20*time.Second), mark("sample 3"))
	if got := play(base.Add(time.Minute)); got != "sample 3" {
		t.Fatalf("pop ran %q, want sample 3 (the tick was dropped)", got)
	}
}

// TestQueueSampleSlot: the observer's sample, kept beside the heap, leaves
// the order of events what one heap of them all gives.
func TestQueueSampleSlot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		ops := make([]byte, 2*rng.IntN(200))
		for i := range ops {
			ops[i] = byte(rng.UintN(256))
		}
		queueOps(t, ops)
	}
}

func FuzzQueueSampleSlot(f *testing.F) {
	f.Add([]byte{1, 3, 0, 0x23, 1, 3, 0, 0x23, 2, 15, 2, 15, 2, 15})
	f.Add([]byte{0, 0x25, 1, 5, 3, 0, 2, 4, 1, 4, 2, 5})
	f.Fuzz(queueOps)
}
