package history

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// A recorded history, made of events: clients invoke operations, the
// system applies each at an instant (or never), and clients get answers
// (OK with what the system returned, a refusal, or a timeout: unknown).
// What the clients see is what a system with the planted bugs gives.
type simEvent struct {
	at     time.Duration
	client int
	kind   int // 0 invoke, 1 apply, 2 answer
	op     int // index into the operations
}

type simOp[T any] struct {
	input, output T
	status        Status
	apply         bool // the system applies it (a refused one never is)
}

// bugs planted in a simulated system.
type bugs struct {
	staleReads float64 // a read returns what the key held before its last write
	lostWrites float64 // a write is acknowledged and never applied
}

// simHistory makes the events of n operations by clients clients on keys
// keys: each takes effect at an instant between its invocation and its
// answer, except the unknown ones (2 in unknowns), applied or not, and
// when applied up to 3s after the client gave up (a late commit); one in
// unknowns is refused.
func simHistory[T any](rng *rand.Rand, n, clients, unknowns int, pick func(i int) T) ([]simEvent, []simOp[T]) {
	var evs []simEvent
	ops := make([]simOp[T], n)
	next := make([]time.Duration, clients)
	for i := range n {
		c := i % clients
		ops[i] = simOp[T]{input: pick(i), status: OK, apply: true}
		call := next[c] + time.Duration(rng.IntN(300))*time.Millisecond
		apply := call + time.Duration(1+rng.IntN(200))*time.Millisecond
		ret := apply + time.Duration(1+rng.IntN(200))*time.Millisecond
		switch r := rng.IntN(unknowns); {
		case r < 2:
			ops[i].status, ops[i].apply = Unknown, rng.IntN(2) == 0
			if rng.IntN(2) == 0 {
				apply = ret + time.Duration(rng.IntN(3000))*time.Millisecond
			}
		case r == 2:
			ops[i].status, ops[i].apply = Failed, false
		}
		next[c] = ret
		evs = append(evs, simEvent{call, c, 0, i}, simEvent{ret, c, 2, i})
		if ops[i].apply {
			evs = append(evs, simEvent{apply, c, 1, i})
		}
	}
	slices.SortStableFunc(evs, func(a, b simEvent) int { return int(a.at - b.at) })
	return evs, ops
}

// play records the events, applying each operation with do (which fills
// in its output), and calls check every few events and at the end.
func play[T any](t *testing.T, rng *rand.Rand, evs []simEvent, ops []simOp[T], do func(*simOp[T]), check func(*Recorder[T])) {
	t.Helper()
	clk := clock.NewVirtual(time.Time{})
	rec := NewRecorder[T](clk)
	calls := map[int]Call[T]{}
	for k, e := range evs {
		clk.Set(clock.VirtualEpoch().Add(e.at))
		o := &ops[e.op]
		switch e.kind {
		case 0:
			calls[e.op] = rec.Invoke(e.client, o.input)
		case 1:
			do(o)
		case 2:
			switch o.status {
			case OK:
				calls[e.op].OK(o.output)
			case Failed:
				calls[e.op].Fail(errors.New("refused"))
			default:
				calls[e.op].Unknown()
			}
		}
		if rng.IntN(15) == 0 || k == len(evs)-1 {
			check(rec)
		}
	}
}

// kvSystem: keys of a register each, with the bugs.
func kvSystem(rng *rand.Rand, b bugs) func(*simOp[KV]) {
	cur, prev := map[string]KVState{}, map[string]KVState{}
	return func(o *simOp[KV]) {
		in := o.input
		k := in.Key()
		s := cur[k]
		switch in.Kind {
		case KVGet:
			if rng.Float64() < b.staleReads {
				s = prev[k]
			}
			o.output = in.Read(s.Value, s.Present)
			return
		case KVPut:
			o.output = in
			if rng.Float64() < b.lostWrites {
				return
			}
			prev[k], cur[k] = s, KVState{Value: in.Value, Present: true}
		case KVCAS:
			swapped := s.Present && s.Value == in.Expect
			o.output = in.Swap(swapped)
			if swapped {
				prev[k], cur[k] = s, KVState{Value: in.Value, Present: true}
			}
		}
	}
}

// logSystem: append-only logs, with the bugs.
func logSystem(rng *rand.Rand, b bugs) func(*simOp[LogOp]) {
	logs := map[string][]int64{}
	return func(o *simOp[LogOp]) {
		in := o.input
		l := logs[in.Key()]
		switch in.Kind {
		case LogAppend:
			o.output = in.Acked(int64(len(l) + 1))
			if rng.Float64() < b.lostWrites {
				return
			}
			logs[in.Key()] = append(l, in.Value)
		case LogRead:
			n := len(l)
			if rng.Float64() < b.staleReads && n > 0 {
				n--
			}
			if in.Seq >= 1 && in.Seq <= int64(n) {
				o.output = in.Read(l[in.Seq-1], true)
			} else {
				o.output = in.Read(0, false)
			}
		}
	}
}

// compare runs the check c (incremental: it goes on from its last run) on
// rec, and a check that never ran before on the whole history of rec as
// of then (what checks did before they were incremental): their verdicts,
// and a violation's text, must be the same. It returns whether they were,
// and counts the verdicts.
func compare[T, S any](t *testing.T, c *linearizability[T, S], m Model[T, S], rec *Recorder[T], counts map[string]int, strict bool) bool {
	t.Helper()
	got := c.check(context.Background(), rec)
	whole := &linearizability[T, S]{name: c.name, model: m, opts: c.opts}
	want := whole.whole(context.Background(), rec.History())
	class := func(err error) string {
		var v *fault.Violation
		switch {
		case err == nil:
			return "linearizable"
		case errors.As(err, &v):
			return "violation: " + v.Summary + "\n" + strings.Join(v.Details, "\n") + "\n" + fmt.Sprint(v.Ops)
		case errors.Is(err, fault.ErrNotApplicable):
			return "not applicable"
		}
		return "error: " + err.Error()
	}
	g, w := class(got), class(want)
	counts[strings.SplitN(w, ":", 2)[0]]++
	if g != w {
		if strict {
			t.Errorf("the incremental check says\n%s\none check of the whole history says\n%s", g, w)
		}
		return false
	}
	return true
}

// TestIncrementalEqualsWhole holds the verdicts of a check that goes on
// from what its last run settled equal to those of one check of the
// whole history, run after every few events of randomized recorded
// histories (fixed seeds): key-value and log models, operations that
// overlap, unknown outcomes applied late or never, refusals, checks while
// operations are pending, and planted stale reads and lost writes.
func TestIncrementalEqualsWhole(t *testing.T) {
	for _, tc := range []struct {
		name string
		bugs bugs
	}{
		{"correct", bugs{}},
		{"stale reads", bugs{staleReads: 0.02}},
		{"lost writes", bugs{lostWrites: 0.02}},
	} {
		t.Run("kv/"+tc.name, func(t *testing.T) {
			counts := map[string]int{}
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 1))
				runKV(t, rng, tc.bugs, counts, false, true)
			}
			t.Logf("verdicts: %v", counts)
			if tc.name != "correct" && counts["violation"] == 0 {
				t.Errorf("no violation found: the planted bug did not show; the test compares nothing")
			}
		})
		t.Run("log/"+tc.name, func(t *testing.T) {
			counts := map[string]int{}
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 2))
				runLog(t, rng, tc.bugs, counts, false, true)
			}
			t.Logf("verdicts: %v", counts)
			if tc.name != "correct" && counts["violation"] == 0 {
				t.Errorf("no violation found: the planted bug did not show; the test compares nothing")
			}
		})
	}
}

// TestIncrementalEqualsWholeUnderHorizon: the same, with every unknown
// outcome closed at a horizon (WithUnknownHorizon) of 3s, the latest the
// simulated systems apply an operation given up on: the histories of a
// correct system stay linearizable, the planted bugs still show, and the
// check that goes on from its last run agrees with one of the whole. A
// horizon of 100ms, which the late operations break, finds violations in
// the correct system's histories, and the two checks agree on them too.
func TestIncrementalEqualsWholeUnderHorizon(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bugs    bugs
		horizon time.Duration
	}{
		{"correct", bugs{}, 3 * time.Second},
		{"stale reads", bugs{staleReads: 0.02}, 3 * time.Second},
		{"lost writes", bugs{lostWrites: 0.02}, 3 * time.Second},
		{"correct, broken horizon", bugs{}, 100 * time.Millisecond},
	} {
		for _, model := range []string{"kv", "log"} {
			t.Run(model+"/"+tc.name, func(t *testing.T) {
				counts := map[string]int{}
				for seed := range uint64(20) {
					if model == "kv" {
						runKVWith(t, rand.New(rand.NewPCG(seed, 1)), tc.bugs, counts, false, true, tc.horizon)
					} else {
						runLogWith(t, rand.New(rand.NewPCG(seed, 2)), tc.bugs, counts, false, true, tc.horizon)
					}
				}
				t.Logf("verdicts: %v", counts)
				switch {
				case counts["error"] > 0:
					t.Errorf("verdicts %v: a check failed with an error", counts)
				case tc.name == "correct" && counts["violation"] > 0:
					t.Errorf("verdicts %v: a correct system's histories failed under a horizon its late operations keep to", counts)
				case tc.name != "correct" && counts["violation"] == 0:
					t.Errorf("no violation found: the planted bug did not show; the test compares nothing")
				}
			})
		}
	}
}

func runKV(t *testing.T, rng *rand.Rand, b bugs, counts map[string]int, wrong, strict bool) bool {
	return runKVWith(t, rng, b, counts, wrong, strict, 0)
}

func runLog(t *testing.T, rng *rand.Rand, b bugs, counts map[string]int, wrong, strict bool) bool {
	return runLogWith(t, rng, b, counts, wrong, strict, 0)
}

// runWith plays a history through check c (of model m), comparing it with
// one check of the whole at every check.
func runWith[T, S any](t *testing.T, rng *rand.Rand, evs []simEvent, ops []simOp[T], do func(*simOp[T]), c *linearizability[T, S], counts map[string]int, strict bool) bool {
	same := true
	play(t, rng, evs, ops, do, func(rec *Recorder[T]) {
		same = compare(t, c, c.model, rec, counts, strict) && same
	})
	return same
}

// runModel plays a history through the check Linearizable makes of m
// (over sets of states under a horizon); wrong plants the wrong settling.
func runModel[T, S any](t *testing.T, rng *rand.Rand, evs []simEvent, ops []simOp[T], do func(*simOp[T]), name string, m Model[T, S], horizon time.Duration, wrong bool, counts map[string]int, strict bool) bool {
	opts := []CheckOption{WithReportDir("")}
	if horizon > 0 {
		o := defaultCheckOptions(append(opts, WithUnknownHorizon(horizon)))
		return runWith(t, rng, evs, ops, do, &linearizability[T, states[S]]{name: name, model: maybeModel(m, horizon), opts: o, settleIgnoresPending: wrong}, counts, strict)
	}
	return runWith(t, rng, evs, ops, do, &linearizability[T, S]{name: name, model: m, opts: defaultCheckOptions(opts), settleIgnoresPending: wrong}, counts, strict)
}

func runKVWith(t *testing.T, rng *rand.Rand, b bugs, counts map[string]int, wrong, strict bool, horizon time.Duration) bool {
	keys := []string{"a", "b", "c"}
	evs, ops := simHistory(rng, 240, 4, 24, func(i int) KV {
		k := keys[rng.IntN(len(keys))]
		switch r := rng.IntN(10); {
		case r < 4:
			return Get(k)
		case r < 8:
			return Put(k, int64(i+1))
		default:
			return CAS(k, int64(rng.IntN(i+1)), int64(i+1))
		}
	})
	return runModel(t, rng, evs, ops, kvSystem(rng, b), "kv", KVModel(), horizon, wrong, counts, strict)
}

func runLogWith(t *testing.T, rng *rand.Rand, b bugs, counts map[string]int, wrong, strict bool, horizon time.Duration) bool {
	keys := []string{"s", "t"}
	appended := 0
	evs, ops := simHistory(rng, 200, 4, 60, func(i int) LogOp {
		k := keys[rng.IntN(len(keys))]
		if rng.IntN(10) < 4 {
			return ReadAt(k, int64(1+rng.IntN(appended/len(keys)+2)))
		}
		appended++
		return Append(k, int64(i+1))
	})
	return runModel(t, rng, evs, ops, logSystem(rng, b), "log", LogModel(), horizon, wrong, counts, strict)
}

// TestIncrementalCatchesWrongSettling: the comparison above has teeth. A
// settling that ignores pending operations (it moves a part's cut past
// an operation invoked before it and not answered yet, and drops it) is
// wrong: when the operation is answered, a stale read it returned is
// behind the cut, never checked, and the check passes a history that one
// check of the whole finds not linearizable. The same histories and
// comparison as TestIncrementalEqualsWhole must tell.
func TestIncrementalCatchesWrongSettling(t *testing.T) {
	counts := map[string]int{}
	differ := 0
	for seed := range uint64(20) {
		if !runKV(t, rand.New(rand.NewPCG(seed, 1)), bugs{staleReads: 0.02}, counts, true, false) {
			differ++
		}
		if !runLog(t, rand.New(rand.NewPCG(seed, 2)), bugs{staleReads: 0.02}, counts, true, false) {
			differ++
		}
	}
	if differ == 0 {
		t.Fatalf("a settling that ignores pending operations gave the same verdicts as one check of the whole history on all 40 histories: the comparison cannot tell a wrong incremental check")
	}
	t.Logf("%d of 40 histories told the wrong settling apart", differ)
}

// BenchmarkCheckAfterRecovery records a key-value history of 20,000
// operations by 3 clients on 8 keys (raft-sim's shape: 1 in 12 with an
// unknown outcome) and checks it after every 100 events, 300 checks in
// all: incremental, as a check runs now, and whole (every check from the
// start, as checks ran before). It reports the time spent checking per
// history (check-ms), and the last check's time (last-check-µs): the
// incremental check's stays flat as the history grows, the whole one's
// grows with it.
func BenchmarkCheckAfterRecovery(b *testing.B) {
	for _, mode := range []string{"incremental", "whole"} {
		b.Run(mode, func(b *testing.B) {
			var spent, last time.Duration
			checks := 0
			for b.Loop() {
				rng := rand.New(rand.NewPCG(7, 7))
				keys := []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"}
				evs, ops := simHistory(rng, 20_000, 3, 24, func(i int) KV {
					k := keys[rng.IntN(len(keys))]
					if rng.IntN(10) < 3 {
						return Get(k)
					}
					return Put(k, int64(i+1))
				})
				m := KVModel()
				c := &linearizability[KV, KVState]{name: "kv", model: m, opts: defaultCheckOptions([]CheckOption{WithReportDir("")})}
				clk := clock.NewVirtual(time.Time{})
				rec := NewRecorder[KV](clk)
				calls := map[int]Call[KV]{}
				do := kvSystem(rng, bugs{})
				for k, e := range evs {
					clk.Set(clock.VirtualEpoch().Add(e.at))
					o := &ops[e.op]
					switch e.kind {
					case 0:
						calls[e.op] = rec.Invoke(e.client, o.input)
					case 1:
						do(o)
					case 2:
						switch o.status {
						case OK:
							calls[e.op].OK(o.output)
						case Failed:
							calls[e.op].Fail(errors.New("refused"))
						default:
							calls[e.op].Unknown()
						}
					}
					if k%200 == 199 || k == len(evs)-1 {
						from := time.Now()
						var err error
						if mode == "whole" {
							err = c.whole(context.Background(), rec.History())
						} else {
							err = c.check(context.Background(), rec)
						}
						last = time.Since(from)
						spent += last
						checks++
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.ReportMetric(float64(spent.Milliseconds())/float64(b.N), "check-ms")
			b.ReportMetric(float64(last.Microseconds()), "last-check-µs")
			b.ReportMetric(float64(checks)/float64(b.N), "checks")
		})
	}
}
