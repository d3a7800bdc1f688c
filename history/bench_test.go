package history_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// BenchmarkRecorder records b.N key-value operations (an invocation and its
// outcome each) from 8 goroutines on the wall clock, and reports operations
// recorded per second (and per second of CPU the process used, a figure a
// loaded machine does not distort) and the heap the recorder retains per
// operation.
func BenchmarkRecorder(b *testing.B) {
	const goroutines = 8
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	rec := history.NewRecorder[history.KV](clock.Real{}, history.WithCap(b.N+64*64)) // shards hold up to 64 ops of the cap each
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	var wg sync.WaitGroup
	for g := range goroutines {
		n := b.N / goroutines
		if g < b.N%goroutines {
			n++
		}
		wg.Go(func() {
			for i := range n {
				op := history.Put(keys[i%len(keys)], int64(i))
				rec.Invoke(g, op).OK(op)
			}
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu
	b.StopTimer()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if h := rec.History(); len(h.Ops) != b.N {
		b.Fatalf("recorded %d of %d", len(h.Ops), b.N)
	}
	runtime.KeepAlive(rec)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	if cpu > 0 { // on a shared machine: what one core records, whatever the load
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "ops/cpu-s")
	}
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "retained-B/op")
}

// BenchmarkJepsen checks each of porcupine's Jepsen etcd histories with
// arena's key-value check (snapshot, parts, porcupine, and on a violation
// its explanation) and with porcupine called directly on the same data, as
// porcupine's own benchmarks do. The verdicts must agree.
func BenchmarkJepsen(b *testing.B) {
	for n := range jepsenHistories {
		lines := readJepsen(b, n)
		if len(lines) == 0 {
			continue // etcd_095.log is empty; porcupine's own tests leave it out too
		}
		events := jepsenEvents(lines)
		want := porcupine.CheckEvents(etcdModel, events)
		check := history.Linearizable("etcd", jepsenRecorder(lines), history.KVModel(), history.WithReportDir(""))
		b.Run(fmt.Sprintf("etcd_%03d/arena", n), func(b *testing.B) {
			for b.Loop() {
				if err := check.Run(context.Background()); (err == nil) != want {
					b.Fatalf("arena: %v; porcupine: linearizable %v", err, want)
				}
			}
		})
		b.Run(fmt.Sprintf("etcd_%03d/porcupine", n), func(b *testing.B) {
			for b.Loop() {
				if porcupine.CheckEvents(etcdModel, events) != want {
					b.Fatal("porcupine changed its mind")
				}
			}
		})
	}
}

// kvHistory records a linearizable history of n operations on keys keys by
// clients concurrent clients on a virtual clock: each operation takes
// effect at a random instant between its invocation and its answer; one
// write in a hundred times out (unknown), having taken effect or not.
func kvHistory(n, keys, clients int, seed uint64) *history.Recorder[history.KV] {
	rng := rand.New(rand.NewPCG(seed, seed))
	type event struct {
		at     time.Duration
		client int
		kind   int // 0 invoke, 1 apply, 2 answer
		op     *history.KV
		status history.Status
		apply  bool
	}
	var evs []event
	next := make([]time.Duration, clients)
	for i := range n {
		c := i % clients
		op := new(history.KV)
		k := fmt.Sprintf("k%d", rng.IntN(keys))
		switch r := rng.IntN(10); {
		case r < 5:
			*op = history.Get(k)
		case r < 8:
			*op = history.Put(k, int64(i+1))
		default:
			*op = history.CAS(k, int64(rng.IntN(i+1)), int64(i+1))
		}
		call := next[c] + time.Duration(rng.IntN(1000))*time.Microsecond
		apply := call + time.Duration(1+rng.IntN(2000))*time.Microsecond
		ret := apply + time.Duration(1+rng.IntN(2000))*time.Microsecond
		next[c] = ret
		status, applies := history.OK, true
		if op.Kind != history.KVGet && rng.IntN(100) == 0 {
			status, applies = history.Unknown, rng.IntN(2) == 0
		}
		evs = append(evs, event{call, c, 0, op, status, applies}, event{apply, c, 1, op, status, applies}, event{ret, c, 2, op, status, applies})
	}
	slices.SortStableFunc(evs, func(a, b event) int { return int(a.at - b.at) })
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk)
	state := map[string]int64{}
	calls := make([]history.Call[history.KV], clients)
	for _, e := range evs {
		clk.Set(clock.VirtualEpoch().Add(e.at))
		switch e.kind {
		case 0:
			calls[e.client] = rec.Invoke(e.client, *e.op)
		case 1:
			if !e.apply {
				continue
			}
			o := e.op
			v, found := state[o.Key()]
			switch o.Kind {
			case history.KVGet:
				*o = o.Read(v, found)
			case history.KVPut:
				state[o.Key()] = o.Value
			case history.KVCAS:
				*o = o.Swap(found && v == o.Expect)
				if o.Swapped {
					state[o.Key()] = o.Value
				}
			}
		case 2:
			if e.status == history.Unknown {
				calls[e.client].Unknown()
			} else {
				calls[e.client].OK(*e.op)
			}
		}
	}
	return rec
}

// BenchmarkKV10k checks a 10,000-operation, 100-key history of 10 clients.
func BenchmarkKV10k(b *testing.B) {
	rec := kvHistory(10_000, 100, 10, 7)
	b.Run("first", func(b *testing.B) { // a new check each time: the whole history
		for b.Loop() {
			if err := history.Linearizable("kv", rec, history.KVModel()).Run(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("again", func(b *testing.B) { // one check run again: it reads only what is new (nothing)
		check := history.Linearizable("kv", rec, history.KVModel())
		for b.Loop() {
			if err := check.Run(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestKVHistoryIsLinearizable(t *testing.T) {
	if err := history.Linearizable("kv", kvHistory(2000, 20, 10, 1), history.KVModel()).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkBudget runs a check that cannot decide (pathological) with a
// budget of 500ms and reports how far past the budget it stopped.
func BenchmarkBudget(b *testing.B) {
	const budget = 500 * time.Millisecond
	check := history.Linearizable("kv", pathological(40), history.KVModel(), history.WithBudget(budget))
	var worst time.Duration
	for b.Loop() {
		err := check.Run(context.Background())
		var u *fault.UndecidedError
		if !errors.As(err, &u) {
			b.Fatalf("Run() = %v, want undecided", err)
		}
		worst = max(worst, u.Elapsed)
	}
	b.ReportMetric(100*float64(worst-budget)/float64(budget), "worst-overrun-%")
}
