package history_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/history"
)

// Operations from many goroutines are all recorded, with their outcomes,
// sorted by invocation, every stamp distinct and each operation's call
// before its return, even on a virtual clock that never moves.
func TestRecorderConcurrent(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk)
	const goroutines, each = 8, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				c := rec.Invoke(g, history.Put("k", int64(g*each+i)))
				switch i % 3 {
				case 0:
					c.OK(history.Put("k", int64(g*each+i)))
				case 1:
					c.Unknown()
				}
			}
		})
	}
	wg.Wait()
	h := rec.History()
	if len(h.Ops) != goroutines*each || h.Dropped != 0 {
		t.Fatalf("History() has %d ops, %d dropped, want %d and 0", len(h.Ops), h.Dropped, goroutines*each)
	}
	stamps := map[time.Duration]bool{}
	count := map[history.Status]int{}
	for i, op := range h.Ops {
		if i > 0 && op.Call <= h.Ops[i-1].Call {
			t.Fatalf("ops[%d].Call = %s, not after ops[%d].Call = %s", i, op.Call, i-1, h.Ops[i-1].Call)
		}
		count[op.Status]++
		for _, s := range []time.Duration{op.Call, op.Return} {
			if s != 0 && stamps[s] {
				t.Fatalf("stamp %s given twice", s)
			}
			stamps[s] = true
		}
		if op.Status != history.Pending && op.Return <= op.Call {
			t.Errorf("ops[%d]: return %s not after call %s", i, op.Return, op.Call)
		}
	}
	want := map[history.Status]int{history.OK: 1336, history.Unknown: 1336, history.Pending: 1328}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", count, want)
	}
}

// Stamps are the clock's offsets from the recorder's start when the clock
// moves between events.
func TestRecorderTimes(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	clk.Advance(time.Hour)
	rec := history.NewRecorder[history.KV](clk)
	clk.Advance(2 * time.Second)
	c := rec.Invoke(0, history.Get("k"))
	clk.Advance(time.Second)
	c.OK(history.Get("k").Read(4, true))
	h := rec.History()
	op := h.Ops[0]
	if op.Call != 2*time.Second || op.Return != 3*time.Second || !h.Time(op.Call).Equal(clock.VirtualEpoch().Add(time.Hour+2*time.Second)) {
		t.Errorf("op = %+v at %s, want call 2s, return 3s, 1h2s after the epoch", op, h.Time(op.Call))
	}
	if op.Value != history.Get("k").Read(4, true) || op.Status != history.OK {
		t.Errorf("op = %+v, want get(k) = 4 ok", op)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// A timeout is unknown, never failed; a refusal is failed; Done with an
// error is unknown; the first outcome is kept.
func TestRecorderOutcomes(t *testing.T) {
	rec := history.NewRecorder[history.KV](clock.NewVirtual(time.Time{}))
	cases := []struct {
		name   string
		finish func(c history.Call[history.KV])
		want   history.Status
	}{
		{"Fail(refused)", func(c history.Call[history.KV]) { c.Fail(errors.New("not leader")) }, history.Failed},
		{"Fail(deadline)", func(c history.Call[history.KV]) { c.Fail(fmt.Errorf("put: %w", context.DeadlineExceeded)) }, history.Unknown},
		{"Fail(net timeout)", func(c history.Call[history.KV]) { c.Fail(timeoutErr{}) }, history.Unknown},
		{"Done(err)", func(c history.Call[history.KV]) { c.Done(history.Put("k", 1), errors.New("EOF")) }, history.Unknown},
		{"Done(nil)", func(c history.Call[history.KV]) { c.Done(history.Put("k", 1), nil) }, history.OK},
		{"OK then Fail", func(c history.Call[history.KV]) { c.OK(history.Put("k", 1)); c.Fail(errors.New("late")) }, history.OK},
	}
	for i, tc := range cases {
		tc.finish(rec.Invoke(i, history.Put("k", 1)))
	}
	for i, op := range rec.History().Ops {
		if op.Status != cases[i].want {
			t.Errorf("%s: status %s, want %s", cases[i].name, op.Status, cases[i].want)
		}
	}
}

// Past its cap a recorder refuses invocations and counts them; the history
// ends at the first refusal: later outcomes are unknown, later invocations
// left out.
func TestRecorderCap(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk, history.WithCap(3))
	a := rec.Invoke(0, history.Put("k", 1))
	b := rec.Invoke(1, history.Put("k", 2))
	clk.Advance(time.Second)
	a.OK(history.Put("k", 1))
	rec.Invoke(2, history.Put("k", 3)).OK(history.Put("k", 3))
	clk.Advance(time.Second)
	refused := rec.Invoke(3, history.Put("k", 4)) // the cut
	refused.OK(history.Put("k", 4))
	clk.Advance(time.Second)
	b.OK(history.Put("k", 2)) // after the cut: unknown
	rec.Invoke(4, history.Get("k"))
	h := rec.History()
	if h.Cut != 2*time.Second || h.Dropped != 2 || len(h.Ops) != 3 {
		t.Fatalf("cut %s, dropped %d, %d ops; want the cut at 2s, 2 dropped, 3 ops", h.Cut, h.Dropped, len(h.Ops))
	}
	want := []history.Status{history.OK, history.Unknown, history.OK}
	for i, op := range h.Ops {
		if op.Status != want[i] {
			t.Errorf("ops[%d] (%s) is %s, want %s", i, op.Value, op.Status, want[i])
		}
	}
}

func TestRecorderMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"nil clock": func() { history.NewRecorder[history.KV](nil) },
		"cap 0":     func() { history.WithCap(0) },
		"budget 0":  func() { history.WithBudget(0) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// A snapshot taken while clients record ends after everything in it: no
// operation starts or ends after its Now (an open operation is open up to
// Now, and must not seem to end before it began).
func TestRecorderSnapshotWhileRecording(t *testing.T) {
	rec := history.NewRecorder[history.KV](clock.Real{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 5000 {
				c := rec.Invoke(g, history.Put("k", int64(i)))
				if i%2 == 0 {
					c.OK(history.Put("k", int64(i)))
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for snapshots := 0; ; snapshots++ {
		h := rec.History()
		for _, op := range h.Ops {
			if op.Call >= h.Now || op.Return >= h.Now {
				t.Fatalf("snapshot %d: op %+v is not before the snapshot's end %s", snapshots, op, h.Now)
			}
		}
		select {
		case <-done:
			return
		default:
		}
	}
}

// A snapshot is a cut across the recorder's shards: an operation in it
// that saw another's effect finds that one in it too. Shards are copied one
// after another, so without a common cut a put invoked between two copies
// was missing while a later get that read it was there, and a check of the
// snapshot reported a linearizability violation the system never had.
func TestHistoryIsACut(t *testing.T) {
	rec := history.NewRecorder[history.KV](clock.Real{}, history.WithCap(20_000))
	var (
		mu  sync.Mutex
		cur int64
		wg  sync.WaitGroup
	)
	stop := make(chan struct{})
	for c := range 8 { // eight clients: eight shards
		wg.Go(func() {
			for n := int64(1); n <= 2500; n++ { // 8 × 2500: the cap
				select {
				case <-stop:
					return
				default:
				}
				if n%2 == 0 {
					v := int64(c)<<32 | n
					call := rec.Invoke(c, history.Put("k", v))
					mu.Lock()
					cur = v
					mu.Unlock()
					call.OK(history.Put("k", v))
					continue
				}
				call := rec.Invoke(c, history.Get("k"))
				mu.Lock()
				v := cur
				mu.Unlock()
				call.OK(history.Get("k").Read(v, v != 0))
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	for i := range 500 {
		h := rec.History()
		puts := map[int64]bool{}
		for _, op := range h.Ops {
			if op.Value.Kind == history.KVPut {
				puts[op.Value.Value] = true
			}
		}
		for _, op := range h.Ops {
			if op.Value.Kind == history.KVGet && op.Status == history.OK && op.Value.Found && !puts[op.Value.Value] {
				t.Fatalf("snapshot %d of %d operations: %s (client %d, %s..%s) read a put that is not in it", i, len(h.Ops), op.Value, op.Client, op.Call, op.Return)
			}
			if op.Call > h.Now || (op.Status != history.Pending && op.Return > h.Now) {
				t.Fatalf("snapshot %d at %s holds %s (%s..%s), past its end", i, h.Now, op.Value, op.Call, op.Return)
			}
		}
	}
}
