package history_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena"
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
	type check func(string, *history.Recorder[history.LogOp], history.Reader) arena.Check
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
	}
	for _, tc := range cases {
		rec := history.NewRecorder[history.LogOp](arena.NewVirtualClock(time.Time{}))
		tc.record(rec)
		err := tc.check("stream", rec, tc.read).Run(context.Background())
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: Run() = %v, want nil", tc.name, err)
			}
			continue
		}
		var v *arena.Violation
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
	rec := history.NewRecorder[history.LogOp](arena.NewVirtualClock(time.Time{}))
	publish(rec, 10)
	if err := history.NoLostWrites("s", rec, nil).Run(context.Background()); !errors.Is(err, arena.ErrNotApplicable) {
		t.Errorf("nothing read: Run() = %v, want ErrNotApplicable", err)
	}
	failing := func(context.Context) ([]history.Message, error) { return nil, errors.New("connection refused") }
	err := history.NoGaps("s", rec, failing).Run(context.Background())
	if err == nil || err.Error() != "read the log: connection refused" || errors.Is(err, arena.ErrNotApplicable) {
		t.Errorf("reader failing: Run() = %v, want a failed check naming the read", err)
	}
}
