package history_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// WithUnknownHorizon: an unknown write is one that took effect within the
// horizon after it was given up on, or never. A write given up on at 1s
// that a read shows missing at 3s and present at 6s took effect between
// 3s and 6s: explained without a horizon, and with one of 3s (by 4s: the
// read at 6s was invoked at 5s, it may have taken effect up to 4s), not
// with one of 1s (by 2s: the read at 3s saw it not yet).
func TestUnknownHorizon(t *testing.T) {
	put, get := history.Put, history.Get
	late := []step{
		{0, 0, put("k", 1), 0}, {1000, 0, put("k", 1), history.Unknown},
		{2500, 1, get("k"), 0}, {3000, 1, get("k").Read(0, false), history.OK},
		{5000, 1, get("k"), 0}, {6000, 1, get("k").Read(1, true), history.OK},
	}
	never := []step{
		{0, 0, put("k", 1), 0}, {1000, 0, put("k", 1), history.Unknown},
		{5000, 1, get("k"), 0}, {6000, 1, get("k").Read(0, false), history.OK},
	}
	// A second write, acknowledged, then a read of the first: the first
	// took effect after the second, over 2.5s after it was given up on.
	overwritten := []step{
		{0, 0, put("k", 1), 0}, {1000, 0, put("k", 1), history.Unknown},
		{3500, 1, put("k", 2), 0}, {3600, 1, put("k", 2), history.OK},
		{5000, 1, get("k"), 0}, {5100, 1, get("k").Read(1, true), history.OK},
	}
	for _, tc := range []struct {
		name    string
		steps   []step
		horizon time.Duration // 0: none
		ok      bool
	}{
		{"late, no horizon", late, 0, true},
		{"late, within a 3s horizon", late, 3 * time.Second, true},
		{"late, past a 1s horizon", late, time.Second, false},
		{"never took effect, 1s horizon", never, time.Second, true},
		{"took effect before the read, 1s horizon", []step{
			{0, 0, put("k", 1), 0}, {1000, 0, put("k", 1), history.Unknown},
			{5000, 1, get("k"), 0}, {6000, 1, get("k").Read(1, true), history.OK},
		}, time.Second, true},
		{"overwritten late, no horizon", overwritten, 0, true},
		{"overwritten late, 10s horizon", overwritten, 10 * time.Second, true},
		{"overwritten late, 2s horizon", overwritten, 2 * time.Second, false},
		{"a pending write has no horizon", []step{
			{0, 0, put("k", 1), 0},
			{2500, 1, get("k"), 0}, {3000, 1, get("k").Read(0, false), history.OK},
			{5000, 1, get("k"), 0}, {6000, 1, get("k").Read(1, true), history.OK},
		}, time.Millisecond, true},
		// Given up on, a CAS's output means nothing: one that found what
		// it expected and swapped is seen by the read.
		{"a cas given up on that swapped, 1s horizon", []step{
			{0, 0, put("k", 1), 0}, {100, 0, put("k", 1), history.OK},
			{200, 0, history.CAS("k", 1, 2), 0}, {1000, 0, history.CAS("k", 1, 2), history.Unknown},
			{1500, 1, get("k"), 0}, {1600, 1, get("k").Read(2, true), history.OK},
		}, time.Second, true},
		{"a stale read is still one", []step{
			{0, 0, put("k", 1), 0}, {100, 0, put("k", 1), history.OK},
			{200, 0, put("k", 2), 0}, {1000, 0, put("k", 2), history.Unknown},
			{5000, 1, get("k"), 0}, {5100, 1, get("k").Read(2, true), history.OK},
			{6000, 1, get("k"), 0}, {6100, 1, get("k").Read(1, true), history.OK},
		}, time.Second, false},
	} {
		opts := []history.CheckOption{history.WithReportDir("")}
		if tc.horizon > 0 {
			opts = append(opts, history.WithUnknownHorizon(tc.horizon))
		}
		err := run(history.Linearizable("kv", script(tc.steps...), history.KVModel(), opts...))
		var v *fault.Violation
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: Run() = %v, want nil", tc.name, err)
		case !tc.ok && !errors.As(err, &v):
			t.Errorf("%s: Run() = %v, want a violation", tc.name, err)
		case !tc.ok && tc.name == "late, past a 1s horizon":
			text := v.Summary + "\n" + strings.Join(v.Details, "\n")
			if !strings.Contains(text, "WithUnknownHorizon: an operation given up on took effect within 1s of that, or never") {
				t.Errorf("%s: the violation does not name the horizon its unknown write was held to:\n%s", tc.name, text)
			}
		}
	}
}

// An operation the recorder made unknown when it was full has no time it
// was given up on: it stays open to the end, not closed at a horizon
// before it was invoked.
func TestUnknownHorizonRecorderFull(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	rec := history.NewRecorder[history.KV](clk, history.WithCap(3))
	clk.Advance(2 * time.Second)
	a := rec.Invoke(0, history.Put("k", 1))
	b := rec.Invoke(1, history.Put("k", 2))
	clk.Advance(time.Second)
	a.OK(history.Put("k", 1))
	rec.Invoke(2, history.Get("k")).OK(history.Get("k").Read(1, true))
	clk.Advance(time.Second)
	rec.Invoke(3, history.Put("k", 4)) // refused: the recorder is full
	clk.Advance(time.Second)
	b.OK(history.Put("k", 2)) // after the cut: unknown, with no time
	if err := run(history.Linearizable("kv", rec, history.KVModel(), history.WithReportDir(""), history.WithUnknownHorizon(time.Second))); err != nil {
		t.Errorf("Run() = %v, want nil: the put cut off by the full recorder may not have happened", err)
	}
}

func TestUnknownHorizonRefusesNonPositive(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "WithUnknownHorizon("+d.String()+")") {
					t.Errorf("WithUnknownHorizon(%s) panicked with %v, want a message naming the value", d, r)
				}
			}()
			history.WithUnknownHorizon(d)
		}()
	}
}
