package history_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// publish records acknowledged appends of values at seqs 1, 2, ….
func publish(rec *history.Recorder[history.LogOp], values ...int64) {
	for i, v := range values {
		rec.Invoke(0, history.Append("s", v)).OK(history.Append("s", v).Acked(int64(i + 1)))
	}
}

// consume records client's deliveries of (seq, value) pairs.
func consume(rec *history.Recorder[history.LogOp], client int, pairs ...int64) {
	for i := 0; i+1 < len(pairs); i += 2 {
		rec.Invoke(client, history.ReadAt("s", pairs[i])).OK(history.ReadAt("s", pairs[i]).Read(pairs[i+1], true))
	}
}

func reader(msgs ...history.Message) history.Reader {
	return func(context.Context) ([]history.Message, error) { return msgs, nil }
}

func TestStreamChecks(t *testing.T) {
	type check func(string, *history.Recorder[history.LogOp], history.Reader) fault.Check
	cases := []struct {
		name   string
		record func(rec *history.Recorder[history.LogOp])
		read   history.Reader
		check  check
		want   string // "" passes; else in the violation's summary and ops
	}{
		{"consumed all", func(r *history.Recorder[history.LogOp]) { publish(r, 10, 20, 30); consume(r, 1, 1, 10, 2, 20, 3, 30) }, nil, history.NoLostWrites, ""},
		{"readable at the end", func(r *history.Recorder[history.LogOp]) { publish(r, 10, 20); consume(r, 1, 1, 10) }, reader(history.Message{Key: "s", Seq: 2, Value: 20}), history.NoLostWrites, ""},
		{"unknown append missing", func(r *history.Recorder[history.LogOp]) {
			publish(r, 10)
			r.Invoke(0, history.Append("s", 20)).Unknown()
			consume(r, 1, 1, 10)
		}, nil, history.NoLostWrites, ""},
		{"acknowledged append lost", func(r *history.Recorder[history.LogOp]) { publish(r, 10, 20, 30); consume(r, 1, 1, 10, 3, 30) }, nil, history.NoLostWrites,
			"1 of 3 acknowledged appends lost|append(s, 20) = 2 — acknowledged, neither consumed nor readable"},
		{"acknowledged at a seq holding another", func(r *history.Recorder[history.LogOp]) { publish(r, 10, 20); consume(r, 1, 1, 10, 2, 99) }, nil, history.NoLostWrites,
			"1 of 2 acknowledged appends lost|append(s, 20) = 2 — acknowledged at 2, which holds [99]"},
		{"no duplicates", func(r *history.Recorder[history.LogOp]) { publish(r, 10, 20); consume(r, 1, 1, 10, 2, 20, 2, 20) }, nil, history.NoDuplicates, ""},
		{"value twice", func(r *history.Recorder[history.LogOp]) { publish(r, 10, 20); consume(r, 1, 1, 10, 2, 20) },
			reader(history.Message{Key: "s", Seq: 3, Value: 20}), history.NoDuplicates, `1 duplicates: log "s": value 20 at sequence numbers [2 3]|append(s, 20) = 2`},
		{"seq twice", func(r *history.Recorder[history.LogOp]) { publish(r, 10); consume(r, 1, 1, 10); consume(r, 2, 1, 11) }, nil, history.NoDuplicates,
			`log "s": sequence number 1 holds [10 11]`},
		{"gapless", func(r *history.Recorder[history.LogOp]) { publish(r, 10, 20, 30); consume(r, 1, 1, 10, 2, 20) }, reader(history.Message{Key: "s", Seq: 3, Value: 30}), history.NoGaps, ""},
		{"hole in the log", func(r *history.Recorder[history.LogOp]) { publish(r, 10, 20, 30); consume(r, 1, 1, 10, 3, 30) }, nil, history.NoGaps,
			`log "s": 1 sequence numbers missing between 1 and 3: 2|append(s, 20) = 2`},
		{"consumer skipped", func(r *history.Recorder[history.LogOp]) { publish(r, 10, 20, 30); consume(r, 1, 1, 10, 3, 30) },
			reader(history.Message{Key: "s", Seq: 2, Value: 20}), history.NoGaps, `log "s": client 1 read 1 then 3, skipping 2|read(s, 3) = 30 — skipped 2|append(s, 20) = 2`},
		// Sequence numbers are the system's: any int64, found by counting, never by walking the span.
		{"a gap of 2⁶⁴ − 2", func(r *history.Recorder[history.LogOp]) {
			publish(r, 10)
			consume(r, 1, math.MinInt64, 20, math.MaxInt64, 30)
		}, nil, history.NoGaps,
			`1 gaps: log "s": 18446744073709551614 sequence numbers missing between -9223372036854775808 and 9223372036854775807: ` +
				`-9223372036854775807 -9223372036854775806 -9223372036854775805 -9223372036854775804 -9223372036854775803 -9223372036854775802 -9223372036854775801 -9223372036854775800 -9223372036854775799 -9223372036854775798 … (18446744073709551614 in all)|append(s, 10) = 1`},
		{"a skip across 2⁶²", func(r *history.Recorder[history.LogOp]) {
			publish(r, 10, 20)
			consume(r, 1, 1, 10, 1<<62, 30)
		}, reader(history.Message{Key: "s", Seq: 2, Value: 20}), history.NoGaps, `log "s": client 1 read 1 then 4611686018427387904, skipping 2|read(s, 4611686018427387904) = 30 — skipped 2`},
	}
	for _, tc := range cases {
		rec := history.NewRecorder[history.LogOp](clock.NewVirtual(time.Time{}))
		tc.record(rec)
		err := tc.check("stream", rec, tc.read).Run(context.Background())
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: Run() = %v, want nil", tc.name, err)
			}
			continue
		}
		var v *fault.Violation
		if !errors.As(err, &v) {
			t.Errorf("%s: Run() = %v, want a violation", tc.name, err)
			continue
		}
		got := v.Summary + "|" + strings.Join(v.Details, "|")
		for _, op := range v.Ops {
			got += "|" + op.Op
		}
		for _, want := range strings.Split(tc.want, "|") {
			if !strings.Contains(got, want) {
				t.Errorf("%s: violation %q, want %q in it", tc.name, got, want)
			}
		}
	}
}

func TestStreamChecksCannotLook(t *testing.T) {
	rec := history.NewRecorder[history.LogOp](clock.NewVirtual(time.Time{}))
	publish(rec, 10)
	if err := history.NoLostWrites("s", rec, nil).Run(context.Background()); !errors.Is(err, fault.ErrNotApplicable) {
		t.Errorf("nothing read: Run() = %v, want ErrNotApplicable", err)
	}
	failing := func(context.Context) ([]history.Message, error) { return nil, errors.New("connection refused") }
	err := history.NoGaps("s", rec, failing).Run(context.Background())
	if err == nil || err.Error() != "read the log: connection refused" || errors.Is(err, fault.ErrNotApplicable) {
		t.Errorf("reader failing: Run() = %v, want a failed check naming the read", err)
	}
}

// TestStreamChecksBounded: a log with thousands of findings is described
// by its count and the first ones: the violation stays small.
func TestStreamChecksBounded(t *testing.T) {
	rec := history.NewRecorder[history.LogOp](clock.NewVirtual(time.Time{}))
	var msgs []history.Message
	for seq := int64(2); seq <= 1000; seq++ {
		msgs = append(msgs, history.Message{Key: "s", Seq: seq, Value: seq})
	}
	for client := range 3000 { // each consumer skips 2…1000
		consume(rec, client, 1, 1, 1001, 1001)
	}
	err := history.NoGaps("stream", rec, reader(msgs...)).Run(context.Background())
	var v *fault.Violation
	if !errors.As(err, &v) {
		t.Fatalf("Run() = %v, want a violation", err)
	}
	if want := `3000 gaps: log "s": client 0 read 1 then 1001, skipping 2 3 4 5 6 7 8 9 10 11 … (999 in all)`; v.Summary != want {
		t.Errorf("Summary = %q, want %q", v.Summary, want)
	}
	if len(v.Details) != 19 || len(v.Ops) != 20 {
		t.Errorf("%d details, %d operations; want the first 19 and 20", len(v.Details), len(v.Ops))
	}
}

// FuzzStreamChecks feeds the stream checks what a broken or hostile system
// might answer (any int64 sequence numbers and values, in any order, read
// or readable, and acknowledged appends at any sequence number): every
// check ends, and what it reports stays within the violation's bounds.
func FuzzStreamChecks(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1, 10, 2, 0, 0, 0, 0, 0, 0, 0, 3, 30})
	f.Add([]byte{0, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		rec := history.NewRecorder[history.LogOp](clock.NewVirtual(time.Time{}))
		var msgs []history.Message
		for i := 0; i+10 <= len(data) && i < 10*2000; i += 10 {
			kind, seq, v := data[i]%3, int64(binary.BigEndian.Uint64(data[i+1:i+9])), int64(data[i+9])
			switch kind {
			case 0: // a consumer's delivery
				rec.Invoke(int(data[i+9]%4), history.ReadAt("s", seq)).OK(history.ReadAt("s", seq).Read(v, true))
			case 1: // in the log at check time
				msgs = append(msgs, history.Message{Key: "s", Seq: seq, Value: v})
			case 2: // an acknowledged publish
				rec.Invoke(9, history.Append("s", v)).OK(history.Append("s", v).Acked(seq))
			}
		}
		for _, check := range []func(string, *history.Recorder[history.LogOp], history.Reader) fault.Check{history.NoLostWrites, history.NoDuplicates, history.NoGaps} {
			err := check("stream", rec, reader(msgs...)).Run(context.Background())
			var v *fault.Violation
			if errors.As(err, &v) && (len(v.Details) >= 20 || len(v.Ops) > 20 || len(v.Summary) > 4096) {
				t.Fatalf("%s: a violation of %d details, %d operations, a summary of %d bytes: want at most 19, 20 and a line", v.Summary[:min(len(v.Summary), 80)], len(v.Details), len(v.Ops), len(v.Summary))
			}
		}
	})
}
