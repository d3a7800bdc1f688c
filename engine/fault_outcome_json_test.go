package engine

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
)

// checkFaultOutcomeJSON fails t unless appendJSON encodes f as json.Marshal
// does, error for error, and its fast path is taken exactly where
// json.Marshal succeeds.
func checkFaultOutcomeJSON(t *testing.T, f *FaultOutcome) {
	t.Helper()
	want, wantErr := json.Marshal(f)
	got, err := f.appendJSON([]byte("prefix"))
	switch {
	case (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error():
		t.Errorf("appendJSON(%#v) error = %v, want %v", f, err, wantErr)
	case err == nil && string(got) != "prefix"+string(want):
		t.Errorf("appendJSON(%#v)\n = %s\nwant prefix%s", f, got, want)
	}
	fast, ok := f.appendFast(nil)
	switch {
	case ok != (wantErr == nil):
		t.Errorf("appendFast(%#v) ok = %v, want %v (json.Marshal error %v)", f, ok, !ok, wantErr)
	case ok && string(fast) != string(want):
		t.Errorf("appendFast(%#v)\n = %s\nwant %s", f, fast, want)
	}
}

func TestFaultOutcomeJSONMatchesMarshal(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 891000000, time.UTC)
	dur := func(d time.Duration) *clock.Duration { v := clock.Duration(d); return &v }
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	base := func() FaultOutcome {
		return FaultOutcome{
			Action: fault.Action{ID: "act-000001", Type: fault.KillAgent, TargetID: "worker-1", CreatedAt: at},
			At:     clock.Duration(90 * time.Second), InjectDuration: clock.Duration(1500), Degraded: true, Recovered: true, TTR: clock.Duration(12 * time.Second),
		}
	}
	tests := []struct {
		name string
		edit func(*FaultOutcome)
	}{
		{"plain", func(*FaultOutcome) {}},
		{"zero", func(f *FaultOutcome) { *f = FaultOutcome{} }},
		{"html, control and invalid UTF-8", func(f *FaultOutcome) {
			f.Action.ID, f.Action.Type = "<script>&amp;</script>", "a\"b\\c\t\x00\x7f"
			f.Action.TargetID, f.Action.SourceID = "bad \xff utf8 \xc3", "\u2028 and \u2029 🎉"
			f.LiftError = "lift: \"refused\" <&> \xed\xa0\x80"
		}},
		{"nil metadata", func(f *FaultOutcome) { f.Action.Metadata = nil }},
		{"empty metadata", func(f *FaultOutcome) { f.Action.Metadata = map[string]any{} }},
		{"metadata of every kind", func(f *FaultOutcome) {
			f.Action.Metadata = map[string]any{
				"duration": "30s", "delay": 2, "rate": 0.25, "big": 1e21, "small": 1e-7, "neg": -3.5, "int64": int64(math.MaxInt64),
				"ok": true, "nil": nil, "list": []any{1, "<a>", map[string]any{"z": 1, "a": []int{}}},
				"nested": map[string]any{"b": "\u2028", "a": map[string]string{"k": "&"}}, "dur": clock.Duration(time.Minute),
				"type": fault.PauseAgent, "bytes": []byte("hi"), "raw": json.RawMessage(` { "x" : 1 } `),
			}
		}},
		{"metadata keys escaped and sorted bytewise", func(f *FaultOutcome) {
			f.Action.Metadata = map[string]any{"b": 1, "B": 2, "<": 3, "\xff": 4, "é": 5, "a\u2028": 6, "": 7, "a": "x", "aa": 8, "_": 9}
		}},
		{"many metadata keys", func(f *FaultOutcome) {
			f.Action.Metadata = map[string]any{}
			for i := range 20 {
				f.Action.Metadata[string(rune('a'+i))+"k"] = i
			}
		}},
		{"negative and extreme durations", func(f *FaultOutcome) {
			f.At, f.InjectDuration, f.TTR = -1, clock.Duration(math.MinInt64), clock.Duration(math.MaxInt64)
			f.Lifted, f.HealedByRuntime = dur(-time.Hour-1), dur(999*time.Microsecond)
		}},
		{"zero durations given", func(f *FaultOutcome) { f.Lifted, f.HealedByRuntime = dur(0), dur(0) }},
		{"undecided", func(f *FaultOutcome) { f.Recovered, f.Degraded, f.Undecided = false, false, true }},
		{"zero time", func(f *FaultOutcome) { f.Action.CreatedAt = time.Time{} }},
		{"time with zone", func(f *FaultOutcome) { f.Action.CreatedAt = at.In(time.FixedZone("X", -(5*3600 + 30*60))) }},
		{"time with a zone of seconds", func(f *FaultOutcome) { f.Action.CreatedAt = at.In(time.FixedZone("", 3600+59)) }},
		{"time with a local zone", func(f *FaultOutcome) { f.Action.CreatedAt = time.Unix(1e9, 1).In(time.Local) }},
		{"year 9999", func(f *FaultOutcome) { f.Action.CreatedAt = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC) }},
		{"year 10000", func(f *FaultOutcome) { f.Action.CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"year -1", func(f *FaultOutcome) { f.Action.CreatedAt = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"zone of 24 hours", func(f *FaultOutcome) { f.Action.CreatedAt = at.In(time.FixedZone("", 24*3600)) }},
		{"zone of -23:59", func(f *FaultOutcome) { f.Action.CreatedAt = at.In(time.FixedZone("", -(23*3600 + 59*60))) }},
		{"NaN metadata", func(f *FaultOutcome) { f.Action.Metadata = map[string]any{"a": "x", "rate": math.NaN()} }},
		{"cyclic metadata", func(f *FaultOutcome) { f.Action.Metadata = map[string]any{"c": cyclic} }},
		{"unsupported metadata", func(f *FaultOutcome) { f.Action.Metadata = map[string]any{"ch": make(chan int)} }},
		{"checks", func(f *FaultOutcome) {
			f.Checks = []CheckResult{
				{Name: "linearizable", At: clock.Duration(time.Minute), Passed: true, FaultID: "act-000001"},
				{Name: "<bad>", At: -1, NotApplicable: true, Undecided: true, Error: "no \"history\"\n\xff"},
				{},
			}
		}},
		{"empty checks", func(f *FaultOutcome) { f.Checks = []CheckResult{} }},
		{"check with a violation", func(f *FaultOutcome) {
			f.Checks = []CheckResult{{Name: "kv", Error: "lost write", Violation: &fault.Violation{
				Summary: "lost <write>", Details: []string{"\u2028"},
				Ops: []fault.ViolationOp{{Client: 1, Op: "put(k, 1) ok", Call: at, Return: at.Add(time.Second), At: 5, Faults: []string{"act-1"}}},
			}}, {Name: "after"}}
		}},
		{"violation whose time fails", func(f *FaultOutcome) {
			f.Checks = []CheckResult{{Violation: &fault.Violation{Ops: []fault.ViolationOp{{Call: time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC)}}}}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base()
			tt.edit(&f)
			checkFaultOutcomeJSON(t, &f)
		})
	}
}

// TestFaultOutcomeEventPayload: the service appends the outcome as
// json.Marshal encodes it, and where that fails it counts the error the
// reflective path counted.
func TestFaultOutcomeEventPayload(t *testing.T) {
	ctx := context.Background()
	store := events.NewMemoryStore()
	stub := newStub(clock.NewVirtual(time.Time{}), 0)
	svc := NewService(fault.NewInjector(stub, stub), store, nil)
	ok := FaultOutcome{Action: fault.Action{ID: "act-000007", Type: fault.KillAgent, Metadata: map[string]any{"duration": "1m", "n": 3}}, Recovered: true, TTR: clock.Duration(time.Second)}
	bad := FaultOutcome{Action: fault.Action{ID: "act-000008", CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, Undecided: true}
	svc.faultOutcome(ctx, ok, 0, time.Time{})
	svc.faultOutcome(ctx, bad, 0, time.Time{})

	evs, err := store.Read(ctx, events.Filter{Streams: []string{EventStream}}, 0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events = %d, %v; want 1", len(evs), err)
	}
	want, _ := json.Marshal(ok)
	if evs[0].Type != EventFaultRecovered || string(evs[0].Data) != string(want) {
		t.Errorf("event = %s %s, want %s %s", evs[0].Type, evs[0].Data, EventFaultRecovered, want)
	}
	_, wantErr := json.Marshal(bad)
	if st := svc.Stats(); st.EventErrors != 1 || st.LastEventError != wantErr.Error() {
		t.Errorf("event errors = %d (%q), want 1 (%q)", st.EventErrors, st.LastEventError, wantErr)
	}
}

func FuzzFaultOutcomeJSON(f *testing.F) {
	f.Add("act-000001", "kill_agent", "worker-1", "", "duration", "30s", 0.5, int64(1e9), int64(0), 0, int64(90e9), int64(1500), int64(12e9), true, "", uint8(3), "linearizable", "", "")
	f.Add("<&>", "\u2028", "\xff", "\x00", "\xc3", "a\"b", math.Inf(1), int64(253402300800), int64(-1), 86400, int64(-1), int64(math.MinInt64), int64(math.MaxInt64), false, "lift \"err\"", uint8(0xff), "<c>", "\n", "act-1")
	f.Fuzz(func(t *testing.T, id, typ, target, source, key, val string, num float64, sec, nsec int64, zone int,
		at, inject, ttr int64, lifted bool, liftErr string, flags uint8, check, checkErr, faultID string) {
		o := FaultOutcome{
			Action: fault.Action{ID: id, Type: fault.Type(typ), TargetID: target, SourceID: source,
				CreatedAt: time.Unix(sec, nsec).In(time.FixedZone("", zone))},
			At: clock.Duration(at), InjectDuration: clock.Duration(inject), TTR: clock.Duration(ttr), LiftError: liftErr,
			Degraded: flags&1 != 0, Recovered: flags&2 != 0, Undecided: flags&4 != 0,
		}
		if flags&8 != 0 {
			o.Action.Metadata = map[string]any{key: val, key + "\x00n": num, val: map[string]any{key: num, "s": []any{val, sec}}}
		}
		if lifted {
			o.Lifted, o.HealedByRuntime = &o.At, &o.TTR
		}
		if flags&16 != 0 {
			c := CheckResult{Name: check, At: clock.Duration(nsec), Passed: flags&32 != 0, NotApplicable: flags&64 != 0,
				Undecided: flags&128 != 0, Error: checkErr, FaultID: faultID}
			o.Checks = append(o.Checks, c)
			if flags&32 != 0 {
				c.Violation = &fault.Violation{Summary: checkErr, Ops: []fault.ViolationOp{{Op: check, Call: o.Action.CreatedAt}}}
				o.Checks = append(o.Checks, c)
			}
		}
		checkFaultOutcomeJSON(t, &o)
	})
}
