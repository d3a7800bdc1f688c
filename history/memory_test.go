package history_test

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// sequentialRegister records n operations on one register by one client,
// one after another: writes, each followed by a read of what it wrote.
func sequentialRegister(n int) *history.Recorder[history.KV] {
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk)
	for i := range n {
		clk.Advance(time.Microsecond)
		v := int64(i/2 + 1)
		if i%2 == 0 {
			rec.Invoke(0, history.Put("r", v)).OK(history.Put("r", v))
		} else {
			rec.Invoke(0, history.Get("r")).OK(history.Get("r").Read(v, true))
		}
	}
	return rec
}

// writesThenImpossibleRead records n writes to one register, one after
// another, then a read of a value none of them wrote.
func writesThenImpossibleRead(n int) *history.Recorder[history.KV] {
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk)
	for i := range n {
		clk.Advance(time.Microsecond)
		rec.Invoke(0, history.Put("r", int64(i+1))).OK(history.Put("r", int64(i+1)))
	}
	clk.Advance(time.Microsecond)
	rec.Invoke(1, history.Get("r")).OK(history.Get("r").Read(-1, true))
	return rec
}

// overlappingWrites records n writes to one register by two clients, each
// invoked before the one before it was answered (each overlaps its
// neighbours), then, if impossible, a read of a value none of them wrote.
func overlappingWrites(n int, impossible bool) *history.Recorder[history.KV] {
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk)
	var prev history.Call[history.KV]
	for i := range n {
		clk.Advance(time.Microsecond)
		c := rec.Invoke(i%2, history.Put("r", int64(i+1)))
		if i > 0 {
			prev.OK(history.Put("r", int64(i)))
		}
		prev = c
	}
	clk.Advance(time.Microsecond)
	prev.OK(history.Put("r", int64(n)))
	if impossible {
		clk.Advance(time.Microsecond)
		rec.Invoke(2, history.Get("r")).OK(history.Get("r").Read(-1, true))
	}
	return rec
}

// The adversarial histories of issue 34. Porcupine keeps, for every state
// it caches, a bitset of one bit per operation of the part: one long part
// takes memory quadratic in its length, and the time budget was its only
// bound (the sequential two took 1.4 and 1.5 GiB, and came back decided
// after 5 and 10s on a fast machine, undecided at 10s on a slower one).
// Now a sequential prefix is replayed, not searched, and a search stops at
// the memory budget.
type memoryCase struct {
	name string
	rec  func() *history.Recorder[history.KV]
	want string // the start of Run's error; "" for none
}

var memoryCases = []memoryCase{
	{"sequential-100k", func() *history.Recorder[history.KV] { return sequentialRegister(100_000) }, ""},
	{"writes-99k-impossible-read", func() *history.Recorder[history.KV] { return writesThenImpossibleRead(99_000) },
		"the history is not linearizable (99001 operations, 0 with unknown outcomes)"},
	{"overlapping-100k", func() *history.Recorder[history.KV] { return overlappingWrites(100_000, false) },
		"undecided within its 256 MiB memory budget: decided 0 of 100000 operations (0 of 1 parts) linearizable; undecided: the history (100000 operations, 0 with unknown outcomes: out of memory after "},
	{"overlapping-99k-impossible-read", func() *history.Recorder[history.KV] { return overlappingWrites(99_000, true) },
		"undecided within its 256 MiB memory budget: decided 0 of 99001 operations (0 of 1 parts) linearizable; undecided: the history (99001 operations, 0 with unknown outcomes: out of memory after "},
}

// BenchmarkMemoryBudget checks each adversarial history with the default
// budgets and reports the peak of the heap's live objects while it ran
// (sampled every millisecond) and the process's peak resident set (run one
// case per process for it to mean that case:
// go test -run '^$' -bench 'MemoryBudget/sequential' -benchtime 1x ./history/).
func BenchmarkMemoryBudget(b *testing.B) {
	for _, tc := range memoryCases {
		b.Run(tc.name, func(b *testing.B) {
			check := history.Linearizable("register", tc.rec(), history.Register(), history.WithReportDir(""))
			runtime.GC()
			base := heapObjects()
			peak, stop := samplePeakHeap()
			var err error
			for b.Loop() {
				err = check.Run(context.Background())
			}
			b.ReportMetric(float64(stop()-base)/(1<<20), "peak-heap-MiB")
			if rss := maxRSS(); rss > 0 {
				b.ReportMetric(float64(rss)/(1<<20), "maxrss-MiB")
			}
			_ = peak
			b.Log(firstLine(err))
		})
	}
}

func firstLine(err error) string {
	if err == nil {
		return "linearizable"
	}
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// samplePeakHeap samples the heap's objects every millisecond until stop,
// which returns the largest sample.
func samplePeakHeap() (*uint64, func() uint64) {
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, heapObjects())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return &peak, func() uint64 {
		close(done)
		wg.Wait()
		return max(peak, heapObjects())
	}
}

// Each adversarial history, with the default budgets, is decided when it
// is sequential (replayed, in no memory to speak of), and otherwise stops
// when its memory budget is spent, long before its time budget, and says
// so: undecided, naming the budget, the part, and the states porcupine
// kept.
func TestLinearizableMemoryBudget(t *testing.T) {
	for _, tc := range memoryCases {
		start := time.Now()
		err := run(history.Linearizable("register", tc.rec(), history.Register(), history.WithReportDir("")))
		t.Logf("%s: %s in %s", tc.name, firstLine(err), time.Since(start))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Run() = %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: Run() = %v, want it to start %q", tc.name, err, tc.want)
		case strings.HasPrefix(tc.want, "undecided") && !errors.Is(err, fault.ErrUndecided):
			t.Errorf("%s: Run() = %v, want it undecided", tc.name, err)
		}
		var v *fault.Violation
		if errors.As(err, &v) {
			want := []string{
				"longest linearizable prefix found: 99000 of 99001 operations, the last put(r, 99000) by client 0; the state then: 99000",
				"no order explains get(r) = -1 by client 1, with no operation in flight with it, after put(r, 99000) by client 0 was answered",
			}
			if diff := strings.Join(v.Details, "\n"); diff != strings.Join(want, "\n") {
				t.Errorf("%s: Details = %q, want %q", tc.name, v.Details, want)
			}
		}
	}
}

// A budget given is the budget kept, and its message says it.
func TestLinearizableMemoryBudgetGiven(t *testing.T) {
	err := run(history.Linearizable("kv", pathological(40), history.KVModel(), history.WithMemoryBudget(1<<20)))
	want := `undecided within its 1 MiB memory budget: decided 0 of 81 operations (0 of 1 parts) linearizable; undecided: key "k" (81 operations, 40 with unknown outcomes: out of memory after `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Run() = %v, want it to start %q", err, want)
	}
	err = run(history.Linearizable("kv", kvHistory(2000, 20, 10, 1), history.KVModel(), history.WithMemoryBudget(64<<10)))
	want = "undecided within its 64 KiB memory budget: the history's 2000 operations alone take 140.6 KiB"
	if err == nil || err.Error() != want {
		t.Errorf("Run() = %v, want %q", err, want)
	}
}
