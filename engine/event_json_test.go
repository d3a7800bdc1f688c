package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// checkEncoder fails t unless appendJSON encodes v as json.Marshal does:
// the hand-written encoders of the events' payloads.
func checkEncoder[T any](t *testing.T, v T, appendJSON func([]byte) []byte) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendJSON(nil); string(got) != string(want) {
		t.Errorf("appendJSON(%#v)\n = %s\nwant %s", v, got, want)
	}
}

func checkActionEventJSON(t *testing.T, e ActionEvent) {
	t.Helper()
	checkEncoder(t, e, e.appendJSON)
}

func TestActionEventJSONMatchesMarshal(t *testing.T) {
	strs := []string{"", "worker-3", "a\"b\\c", "<script>&</script>", "tab\tnl\nret\rbs\bff\f", "\x00\x01\x1f\x7f",
		"ünïcödé µ 日本", "\u2028 and \u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate", "emoji 🎉"}
	durs := []time.Duration{0, 1, 999, time.Microsecond, 1500 * time.Nanosecond, time.Millisecond + 1, 999999999,
		time.Second, 90 * time.Minute, 1500 * time.Millisecond, -1, -time.Hour - 1, math.MaxInt64, math.MinInt64}
	for i, s := range strs {
		for j, d := range durs {
			checkActionEventJSON(t, ActionEvent{ActionID: s, Type: fault.Type(strs[(i+j)%len(strs)]), TargetID: strs[(i+1)%len(strs)],
				SourceID: strs[(i+j+2)%len(strs)], Success: j%2 == 0, Error: strs[(i+3*j)%len(strs)], Duration: clock.Duration(d)})
		}
	}
}

func TestFormatDurationMatchesTime(t *testing.T) {
	for _, d := range []time.Duration{0, 1, -1, 999, 1000, 1001, 999999, 1000000, 123456789, 1e9, 61e9, 3601e9 + 5e8,
		math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		var buf [32]byte
		if got := string(formatDuration(&buf, d)); got != d.String() {
			t.Errorf("formatDuration(%d) = %q, want %q", int64(d), got, d.String())
		}
	}
}

func TestActionIDMatchesSprintf(t *testing.T) {
	var blocks idBlocks
	for _, n := range []uint64{0, 1, 9, 10, 63, 64, 65, 99999, 100000, 100001, 999999, 1000000, 1234567, math.MaxUint64 - 64, math.MaxUint64} {
		want := fmt.Sprintf("act-%06d", n)
		if got := blocks.id(n); got != want {
			t.Errorf("idBlocks.id(%d) = %q, want %q", n, got, want)
		}
	}
	for n := range uint64(3 * idBlockLen) { // in order, as the service hands them out
		if got, want := blocks.id(n), fmt.Sprintf("act-%06d", n); got != want {
			t.Fatalf("idBlocks.id(%d) = %q, want %q", n, got, want)
		}
	}
	for _, p := range []uint64{1e6, 1e7, 1e12, 1e19} { // where IDs gain a digit: blocks on either side, counted up in full
		for n := p - idBlockLen; n < p+idBlockLen; n++ {
			if got, want := blocks.id(n), fmt.Sprintf("act-%06d", n); got != want {
				t.Fatalf("idBlocks.id(%d) = %q, want %q", n, got, want)
			}
		}
	}
	if n := testing.AllocsPerRun(10*idBlockLen, func() { _ = blocks.id(7) }); n != 0 {
		t.Errorf("%v allocations per ID within a block, want 0", n)
	}
}

func FuzzActionEventJSON(f *testing.F) {
	f.Add("act-000001", "kill_agent", "worker-1", "", true, "", int64(1500))
	f.Add("<&>", "\u2028", "\xff", "\x00", false, "boom \"quoted\"", int64(-3600e9))
	f.Fuzz(func(t *testing.T, id, typ, target, source string, ok bool, errText string, d int64) {
		checkActionEventJSON(t, ActionEvent{ActionID: id, Type: fault.Type(typ), TargetID: target, SourceID: source,
			Success: ok, Error: errText, Duration: clock.Duration(d)})
		var buf [32]byte
		if got := string(formatDuration(&buf, time.Duration(d))); got != time.Duration(d).String() {
			t.Errorf("formatDuration(%d) = %q, want %q", d, got, time.Duration(d).String())
		}
	})
}

func checkLiftEventJSON(t *testing.T, e liftEvent) {
	t.Helper()
	checkEncoder(t, e, e.appendJSON)
}

func TestLiftEventJSONMatchesMarshal(t *testing.T) {
	strs := []string{"", "worker-3", "a\"b\\c", "<script>&</script>", "tab\tnl\nret\rbs\bff\f", "\x00\x01\x1f\x7f",
		"ünïcödé µ 日本", "\u2028 and \u2029", "bad \xff utf8 \xc3", "duration", "request", "rollback"}
	for i, s := range strs {
		for j := range strs {
			checkLiftEventJSON(t, liftEvent{ActionID: s, Type: fault.Type(strs[(i+j)%len(strs)]), TargetID: strs[(i+1)%len(strs)],
				Why: strs[(i+j+2)%len(strs)], Error: strs[(i+3*j)%len(strs)]})
		}
	}
}

func FuzzLiftEventJSON(f *testing.F) {
	f.Add("act-000001", "network_partition", "worker-1", "duration", "")
	f.Add("<&>", "\u2028", "\xff", "\x00", "lift failed: \"quoted\"")
	f.Fuzz(func(t *testing.T, id, typ, target, why, errText string) {
		checkLiftEventJSON(t, liftEvent{ActionID: id, Type: fault.Type(typ), TargetID: target, Why: why, Error: errText})
	})
}

func FuzzActionID(f *testing.F) {
	f.Add(uint64(0))
	f.Add(uint64(999_999))
	f.Add(uint64(math.MaxUint64))
	f.Fuzz(func(t *testing.T, n uint64) {
		var blocks idBlocks
		for m := n - n%idBlockLen; ; m++ { // every ID of n's block up to n, as Execute hands them out
			if got, want := blocks.id(m), fmt.Sprintf("act-%06d", m); got != want {
				t.Fatalf("idBlocks.id(%d) = %q, want %q", m, got, want)
			}
			if m == n {
				break
			}
		}
	})
}
