package history_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/history"
)

// step is one event of a scripted history: at ms, client invokes op (done
// false) or completes its call with out and status.
type step struct {
	ms     int
	client int
	op     history.KV
	status history.Status // 0: invoke
}

// script records steps on a virtual clock and returns the recorder.
func script(steps ...step) *history.Recorder[history.KV] {
	clock := arena.NewVirtualClock(time.Time{})
	rec := history.NewRecorder[history.KV](clock)
	calls := map[int]history.Call[history.KV]{}
	for _, s := range steps {
		clock.Set(arena.VirtualEpoch().Add(time.Duration(s.ms) * time.Millisecond))
		switch s.status {
		case history.Pending:
			calls[s.client] = rec.Invoke(s.client, s.op)
		case history.OK:
			calls[s.client].OK(s.op)
		case history.Failed:
			calls[s.client].Fail(errors.New("refused"))
		case history.Unknown:
			calls[s.client].Unknown()
		}
	}
	return rec
}

func run(c arena.Check) error { return c.Run(context.Background()) }

func TestLinearizable(t *testing.T) {
	put := history.Put
	get := history.Get
	cases := []struct {
		name  string
		steps []step
		model history.Model[history.KV, history.KVState]
		ok    bool
	}{
		{"sequential", []step{
			{0, 0, put("k", 1), 0}, {1, 0, put("k", 1), history.OK},
			{2, 1, get("k"), 0}, {3, 1, get("k").Read(1, true), history.OK},
		}, history.KVModel(), true},
		{"concurrent read sees either", []step{
			{0, 0, put("k", 1), 0}, {1, 1, get("k"), 0},
			{2, 1, get("k").Read(0, false), history.OK}, {3, 0, put("k", 1), history.OK},
		}, history.KVModel(), true},
		{"stale read", []step{
			{0, 0, put("k", 1), 0}, {1, 0, put("k", 1), history.OK},
			{2, 0, put("k", 2), 0}, {3, 0, put("k", 2), history.OK},
			{4, 1, get("k"), 0}, {5, 1, get("k").Read(1, true), history.OK},
		}, history.KVModel(), false},
		{"unknown write may have happened", []step{
			{0, 0, put("k", 1), 0}, {1, 0, put("k", 1), history.Unknown},
			{5, 1, get("k"), 0}, {6, 1, get("k").Read(1, true), history.OK},
		}, history.KVModel(), true},
		{"unknown write may not have happened", []step{
			{0, 0, put("k", 1), 0}, {1, 0, put("k", 1), history.Unknown},
			{5, 1, get("k"), 0}, {6, 1, get("k").Read(0, false), history.OK},
		}, history.KVModel(), true},
		{"failed write did not happen", []step{
			{0, 0, put("k", 1), 0}, {1, 0, put("k", 1), history.Failed},
			{5, 1, get("k"), 0}, {6, 1, get("k").Read(1, true), history.OK},
		}, history.KVModel(), false},
		{"cas", []step{
			{0, 0, put("k", 1), 0}, {1, 0, put("k", 1), history.OK},
			{2, 0, history.CAS("k", 1, 2), 0}, {3, 0, history.CAS("k", 1, 2).Swap(true), history.OK},
			{4, 0, history.CAS("k", 1, 3), 0}, {5, 0, history.CAS("k", 1, 3).Swap(false), history.OK},
			{6, 0, history.Delete("k"), 0}, {7, 0, history.Delete("k"), history.OK},
			{8, 0, get("k"), 0}, {9, 0, get("k").Read(0, false), history.OK},
		}, history.KVModel(), true},
		{"cas swapped what it could not", []step{
			{0, 0, put("k", 1), 0}, {1, 0, put("k", 1), history.OK},
			{2, 0, history.CAS("k", 5, 2), 0}, {3, 0, history.CAS("k", 5, 2).Swap(true), history.OK},
		}, history.KVModel(), false},
		{"keys apart", []step{
			{0, 0, put("a", 1), 0}, {1, 0, put("a", 1), history.OK},
			{2, 1, get("b"), 0}, {3, 1, get("b").Read(0, false), history.OK},
		}, history.KVModel(), true},
		{"register: keys are one register", []step{
			{0, 0, put("a", 1), 0}, {1, 0, put("a", 1), history.OK},
			{2, 1, get("b"), 0}, {3, 1, get("b").Read(0, false), history.OK},
		}, history.Register(), false},
	}
	for _, tc := range cases {
		err := run(history.Linearizable("kv", script(tc.steps...), tc.model, history.WithReportDir("")))
		var v *arena.Violation
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: Run() = %v, want nil", tc.name, err)
		case !tc.ok && !errors.As(err, &v):
			t.Errorf("%s: Run() = %v, want a violation", tc.name, err)
		}
	}
}

// A violation names the key, the longest linearizable prefix and the state
// after it, the operation no order explains and those in flight with it,
// and porcupine's visualization is written to the report directory.
func TestLinearizableViolationEvidence(t *testing.T) {
	dir := t.TempDir()
	rec := script(
		step{0, 0, history.Put("k7", 1), 0}, step{10, 0, history.Put("k7", 1), history.OK},
		step{20, 0, history.Put("k7", 2), 0}, step{30, 0, history.Put("k7", 2), history.OK},
		step{40, 2, history.Put("k7", 3), 0},
		step{45, 1, history.Get("k7"), 0}, step{50, 1, history.Get("k7").Read(1, true), history.OK},
		step{60, 2, history.Put("k7", 3), history.OK},
		step{70, 3, history.Get("k8"), 0}, step{80, 3, history.Get("k8").Read(0, false), history.OK},
	)
	check := history.Linearizable("kv linearizable", rec, history.KVModel(), history.WithReportDir(dir))
	err := run(check)
	var v *arena.Violation
	if !errors.As(err, &v) {
		t.Fatalf("Run() = %v, want a violation", err)
	}
	if want := `key "k7" is not linearizable (4 operations, 0 with unknown outcomes)`; v.Summary != want {
		t.Errorf("Summary = %q, want %q", v.Summary, want)
	}
	details := strings.Join(v.Details, "\n")
	for _, want := range []string{
		"longest linearizable prefix found: 3 of 4 operations, the last put(k7, 3) by client 2; the state then: 3",
		"no order explains get(k7) = 1 by client 1, with 1 operation in flight with it, after put(k7, 2) by client 0 was answered",
	} {
		if !strings.Contains(details, want) {
			t.Errorf("Details = %q, want %q in them", details, want)
		}
	}
	if len(v.Ops) != 3 {
		t.Fatalf("Ops = %+v, want 3", v.Ops)
	}
	var ops []string
	for _, op := range v.Ops {
		ops = append(ops, op.Op)
	}
	want := "put(k7, 2) — answered before it was invoked|put(k7, 3)|get(k7) = 1 — no order explains it"
	if got := strings.Join(ops, "|"); got != want {
		t.Errorf("Ops = %q, want %q", got, want)
	}
	if at := v.Ops[2].Call.Sub(arena.VirtualEpoch()); at != 45*time.Millisecond || v.Ops[2].Return.Sub(arena.VirtualEpoch()) != 50*time.Millisecond {
		t.Errorf("the get's times: %s to %s, want 45ms to 50ms after the epoch", at, v.Ops[2].Return.Sub(arena.VirtualEpoch()))
	}
	if len(v.Files) != 1 || !strings.HasPrefix(v.Files[0], dir) {
		t.Fatalf("Files = %v, want one visualization in %s", v.Files, dir)
	}
	first := v.Files[0]
	page, err := os.ReadFile(v.Files[0])
	if err != nil || !strings.Contains(string(page), "<html") || !strings.Contains(string(page), "get(k7) = 1") {
		t.Errorf("visualization %s: %v, %d bytes, want a page showing get(k7) = 1", v.Files[0], err, len(page))
	}

	// The check runs again after the next recovery, on a longer history
	// with the same violation: the part's one file is rewritten, not copied.
	rec.Invoke(4, history.Get("k7")).OK(history.Get("k7").Read(3, true))
	if err := run(check); !errors.As(err, &v) || len(v.Files) != 1 || v.Files[0] != first {
		t.Fatalf("second run: %v, files %v; want the violation in %s again", err, v.Files, first)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the report directory after two runs, want 1: %v", len(entries), entries)
	}
	if page, err := os.ReadFile(first); err != nil || !strings.Contains(string(page), "get(k7) = 3") {
		t.Errorf("visualization after the second run: %v, want it to show the new get(k7) = 3", err)
	}
}

func TestLinearizableNothingRecorded(t *testing.T) {
	rec := history.NewRecorder[history.KV](arena.NewVirtualClock(time.Time{}))
	rec.Invoke(0, history.Put("k", 1)).Fail(errors.New("refused"))
	if err := run(history.Linearizable("kv", rec, history.KVModel())); !errors.Is(err, arena.ErrNotApplicable) {
		t.Errorf("Run() on a history of one failed op = %v, want ErrNotApplicable", err)
	}
}

// pathological records n concurrent writes on one key whose outcomes are
// unknown, then a read of a value nobody wrote: deciding that no order of
// the writes explains it takes porcupine time exponential in n.
func pathological(n int) *history.Recorder[history.KV] {
	clock := arena.NewVirtualClock(time.Time{})
	rec := history.NewRecorder[history.KV](clock)
	for i := range n {
		rec.Invoke(i, history.Put("k", int64(i+1))).Unknown()
	}
	clock.Advance(time.Second)
	rec.Invoke(n, history.Get("k")).OK(history.Get("k").Read(1_000_000, true))
	for i := range n {
		clock.Advance(time.Millisecond)
		rec.Invoke(n+1+i, history.Get("k")).OK(history.Get("k").Read(int64(i+1), true))
	}
	return rec
}

// A check that cannot decide within its budget stops there and is
// undecided, saying how far it got.
func TestLinearizableBudget(t *testing.T) {
	const budget = 200 * time.Millisecond
	err := run(history.Linearizable("kv", pathological(40), history.KVModel(), history.WithBudget(budget)))
	var u *arena.UndecidedError
	if !errors.As(err, &u) || !errors.Is(err, arena.ErrUndecided) {
		t.Fatalf("Run() = %v, want an *arena.UndecidedError", err)
	}
	if u.Elapsed < budget {
		t.Errorf("Elapsed = %s, below the budget %s: it stopped before running out", u.Elapsed, budget)
	}
	want := `decided 0 of 81 operations (0 of 1 parts) linearizable; undecided: key "k" (81 operations, 40 with unknown outcomes: out of time)`
	if u.Progress != want {
		t.Errorf("Progress = %q, want %q", u.Progress, want)
	}
}

// The log model: appends get the next sequence number, reads see what was
// appended there.
func TestLinearizableLog(t *testing.T) {
	for _, tc := range []struct {
		name string
		read history.LogOp
		ok   bool
	}{
		{"read the second append", history.ReadAt("s", 2).Read(20, true), true},
		{"read past the end", history.ReadAt("s", 3).Read(0, false), true},
		{"read another value", history.ReadAt("s", 2).Read(10, true), false},
		{"read nothing where something is", history.ReadAt("s", 1).Read(0, false), false},
	} {
		clock := arena.NewVirtualClock(time.Time{})
		rec := history.NewRecorder[history.LogOp](clock)
		rec.Invoke(0, history.Append("s", 10)).OK(history.Append("s", 10).Acked(1))
		rec.Invoke(0, history.Append("s", 20)).OK(history.Append("s", 20).Acked(2))
		rec.Invoke(1, history.ReadAt(tc.read.Key(), tc.read.Seq)).OK(tc.read)
		err := run(history.Linearizable("log", rec, history.LogModel(), history.WithReportDir("")))
		if (err == nil) != tc.ok {
			t.Errorf("%s: Run() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	clock := arena.NewVirtualClock(time.Time{})
	rec := history.NewRecorder[history.LogOp](clock)
	rec.Invoke(0, history.Append("s", 10)).OK(history.Append("s", 10).Acked(2)) // the first append cannot be at 2
	if err := run(history.Linearizable("log", rec, history.LogModel(), history.WithReportDir(""))); err == nil {
		t.Errorf("an append acknowledged at 2 on an empty log is linearizable")
	}
}

// A model whose code panics (porcupine calls it on goroutines of its own,
// where a panic would end the test binary) fails the check with the panic,
// and the run goes on.
func TestLinearizableModelPanics(t *testing.T) {
	for _, where := range []string{"Step", "Equal", "Hash"} {
		m := history.KVModel()
		kvStep, kvEqual, kvHash := m.Step, m.Equal, m.Hash
		switch where {
		case "Step":
			m.Step = func(s history.KVState, op history.Op[history.KV]) (bool, history.KVState) {
				if op.Value.Kind == history.KVCAS {
					panic("no cas here")
				}
				return kvStep(s, op)
			}
		case "Equal":
			m.Equal = func(a, b history.KVState) bool {
				if a.Value == 2 || b.Value == 2 {
					panic("no cas here")
				}
				return kvEqual(a, b)
			}
		case "Hash":
			m.Hash = func(s history.KVState) uint64 {
				if s.Value == 2 {
					panic("no cas here")
				}
				return kvHash(s)
			}
		}
		rec := script(
			step{0, 0, history.Put("k", 1), 0}, step{1, 0, history.Put("k", 1), history.OK},
			step{2, 1, history.CAS("k", 1, 2), 0}, step{3, 1, history.CAS("k", 1, 2).Swap(true), history.OK},
			step{4, 2, history.Get("k"), 0}, step{5, 2, history.Get("k").Read(2, true), history.OK},
		)
		err := run(history.Linearizable("kv", rec, m, history.WithReportDir("")))
		var v *arena.Violation
		if err == nil || errors.As(err, &v) || !strings.Contains(err.Error(), `key "k": the model panicked (in `) || !strings.HasSuffix(err.Error(), "): no cas here") {
			t.Errorf("%s panics: Run() = %v, want the check failed with the panic, not a violation", where, err)
		}
	}
}
