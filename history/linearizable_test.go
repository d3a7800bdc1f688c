package history_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
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
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk)
	calls := map[int]history.Call[history.KV]{}
	for _, s := range steps {
		clk.Set(clock.VirtualEpoch().Add(time.Duration(s.ms) * time.Millisecond))
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

func run(c fault.Check) error { return c.Run(context.Background()) }

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
		var v *fault.Violation
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
	var v *fault.Violation
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
	want := "put(k7, 2) — answered before client 1 invoked get(k7) = 1|put(k7, 3)|get(k7) = 1 — no order explains it"
	if got := strings.Join(ops, "|"); got != want {
		t.Errorf("Ops = %q, want %q", got, want)
	}
	if at := v.Ops[2].Call.Sub(clock.VirtualEpoch()); at != 45*time.Millisecond || v.Ops[2].Return.Sub(clock.VirtualEpoch()) != 50*time.Millisecond {
		t.Errorf("the get's times: %s to %s, want 45ms to 50ms after the epoch", at, v.Ops[2].Return.Sub(clock.VirtualEpoch()))
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
	rec := history.NewRecorder[history.KV](clock.NewVirtual(time.Time{}))
	rec.Invoke(0, history.Put("k", 1)).Fail(errors.New("refused"))
	if err := run(history.Linearizable("kv", rec, history.KVModel())); !errors.Is(err, fault.ErrNotApplicable) {
		t.Errorf("Run() on a history of one failed op = %v, want ErrNotApplicable", err)
	}
}

// pathological records n concurrent writes on one key whose outcomes are
// unknown, then a read of a value nobody wrote: deciding that no order of
// the writes explains it takes porcupine time exponential in n.
func pathological(n int) *history.Recorder[history.KV] {
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk)
	for i := range n {
		rec.Invoke(i, history.Put("k", int64(i+1))).Unknown()
	}
	clk.Advance(time.Second)
	rec.Invoke(n, history.Get("k")).OK(history.Get("k").Read(1_000_000, true))
	for i := range n {
		clk.Advance(time.Millisecond)
		rec.Invoke(n+1+i, history.Get("k")).OK(history.Get("k").Read(int64(i+1), true))
	}
	return rec
}

// A check that cannot decide within its budget stops there and is
// undecided, saying how far it got.
func TestLinearizableBudget(t *testing.T) {
	const budget = 200 * time.Millisecond
	err := run(history.Linearizable("kv", pathological(40), history.KVModel(), history.WithBudget(budget)))
	var u *fault.UndecidedError
	if !errors.As(err, &u) || !errors.Is(err, fault.ErrUndecided) {
		t.Fatalf("Run() = %v, want a *fault.UndecidedError", err)
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
		clk := clock.NewVirtual(time.Time{})
		rec := history.NewRecorder[history.LogOp](clk)
		rec.Invoke(0, history.Append("s", 10)).OK(history.Append("s", 10).Acked(1))
		rec.Invoke(0, history.Append("s", 20)).OK(history.Append("s", 20).Acked(2))
		rec.Invoke(1, history.ReadAt(tc.read.Key(), tc.read.Seq)).OK(tc.read)
		err := run(history.Linearizable("log", rec, history.LogModel(), history.WithReportDir("")))
		if (err == nil) != tc.ok {
			t.Errorf("%s: Run() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.LogOp](clk)
	rec.Invoke(0, history.Append("s", 10)).OK(history.Append("s", 10).Acked(2)) // the first append cannot be at 2
	if err := run(history.Linearizable("log", rec, history.LogModel(), history.WithReportDir(""))); err == nil {
		t.Errorf("an append acknowledged at 2 on an empty log is linearizable")
	}
}

// A model whose code panics fails the check with the panic, naming the
// function, and the run goes on: porcupine calls the model on goroutines of
// its own, where a panic would end the test binary, and arena calls it to
// split the history, explain a violation and draw it.
func TestLinearizableModelPanics(t *testing.T) {
	boom := func() { panic("boom") }
	cases := []struct {
		fn     string
		key    string // the part named, "" for none
		broken func(m *history.Model[history.KV, history.KVState])
	}{
		{"Init", `key "k": `, func(m *history.Model[history.KV, history.KVState]) {
			m.Init = func() history.KVState { boom(); return history.KVState{} }
		}},
		{"Step", `key "k": `, func(m *history.Model[history.KV, history.KVState]) {
			step := m.Step
			m.Step = func(s history.KVState, op history.Op[history.KV]) (bool, history.KVState) {
				if op.Value.Kind == history.KVCAS {
					boom()
				}
				return step(s, op)
			}
		}},
		{"Equal", `key "k": `, func(m *history.Model[history.KV, history.KVState]) {
			m.Equal = func(a, b history.KVState) bool { boom(); return false }
		}},
		{"Hash", `key "k": `, func(m *history.Model[history.KV, history.KVState]) {
			m.Hash = func(history.KVState) uint64 { boom(); return 0 }
		}},
		{"Partition", "", func(m *history.Model[history.KV, history.KVState]) {
			m.Partition = func(history.KV) string { boom(); return "" }
		}},
		{"ReadOnly", "", func(m *history.Model[history.KV, history.KVState]) {
			m.ReadOnly = func(history.KV) bool { boom(); return false }
		}},
		{"Describe", `key "k": `, func(m *history.Model[history.KV, history.KVState]) {
			m.Describe = func(history.Op[history.KV]) string { boom(); return "" }
		}},
		{"DescribeState", `key "k": `, func(m *history.Model[history.KV, history.KVState]) {
			m.DescribeState = func(history.KVState) string { boom(); return "" }
		}},
	}
	for _, tc := range cases {
		m := history.KVModel()
		tc.broken(&m)
		// Two concurrent writes of 2 (porcupine reaches the same state two
		// ways: Equal), a compare-and-set, a read no order explains (the
		// explanation: Describe, DescribeState) and a read with an unknown
		// outcome (ReadOnly).
		rec := script(
			step{0, 0, history.Put("k", 1), 0}, step{1, 0, history.Put("k", 1), history.OK},
			step{2, 1, history.Put("k", 2), 0}, step{3, 2, history.Put("k", 2), 0},
			step{5, 1, history.Put("k", 2), history.OK}, step{6, 2, history.Put("k", 2), history.OK},
			step{7, 3, history.CAS("k", 2, 3), 0}, step{8, 3, history.CAS("k", 2, 3).Swap(true), history.OK},
			step{9, 1, history.Get("k"), 0}, step{10, 1, history.Get("k").Read(5, true), history.OK},
			step{11, 4, history.Get("k"), 0}, step{12, 4, history.Get("k"), history.Unknown},
		)
		err := run(history.Linearizable("kv", rec, m, history.WithReportDir(t.TempDir())))
		want := tc.key + "the model panicked (in " + tc.fn + "): boom"
		var v *fault.Violation
		if err == nil || errors.As(err, &v) || err.Error() != want {
			t.Errorf("%s panics: Run() = %v, want the check failed with %q, not a violation", tc.fn, err, want)
		}
	}
}

// A part's sequential prefix (each operation answered before the next was
// invoked) is replayed, not searched: a violation in it or after it is
// explained as porcupine's would be, and drawn from a few operations
// before the search.
func TestLinearizableSequentialPrefix(t *testing.T) {
	writes := func(rec *history.Recorder[history.KV], clk *clock.Virtual, n int) {
		for i := range n {
			clk.Advance(time.Millisecond)
			rec.Invoke(0, history.Put("r", int64(i+1))).OK(history.Put("r", int64(i+1)))
		}
	}
	for _, tc := range []struct {
		name    string
		record  func(*history.Recorder[history.KV], *clock.Virtual)
		details []string
	}{
		{"after the prefix", func(rec *history.Recorder[history.KV], clk *clock.Virtual) {
			writes(rec, clk, 1000)
			clk.Advance(time.Millisecond)
			put, get := rec.Invoke(0, history.Put("r", 1001)), rec.Invoke(1, history.Get("r"))
			put.OK(history.Put("r", 1001))
			get.OK(history.Get("r").Read(1001, true))
			clk.Advance(time.Millisecond)
			rec.Invoke(2, history.Get("r")).OK(history.Get("r").Read(-1, true))
		}, []string{
			"longest linearizable prefix found: 1002 of 1003 operations, the last get(r) = 1001 by client 1; the state then: 1001",
			"no order explains get(r) = -1 by client 2, with no operation in flight with it, after get(r) = 1001 by client 1 was answered",
		}},
		{"in the prefix", func(rec *history.Recorder[history.KV], clk *clock.Virtual) {
			rec.Invoke(0, history.Get("r")).OK(history.Get("r").Read(5, true))
			writes(rec, clk, 1000)
		}, []string{
			"longest linearizable prefix found: 0 of 1001 operations; the initial state: none",
			"no order explains get(r) = 5 by client 0, with no operation in flight with it",
		}},
	} {
		clk := clock.NewVirtual(time.Time{})
		rec := history.NewRecorder[history.KV](clk)
		tc.record(rec, clk)
		err := run(history.Linearizable("register", rec, history.Register(), history.WithReportDir(t.TempDir())))
		var v *fault.Violation
		if !errors.As(err, &v) {
			t.Fatalf("%s: Run() = %v, want a violation", tc.name, err)
		}
		if got, want := strings.Join(v.Details, "\n"), strings.Join(tc.details, "\n"); got != want {
			t.Errorf("%s: Details = %q, want %q", tc.name, v.Details, tc.details)
		}
		if len(v.Files) != 1 {
			t.Errorf("%s: Files = %v, want one visualization", tc.name, v.Files)
		}
	}
}
