package engine

import (
	"math"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/bound"
)

func checkHealthEventJSON(t *testing.T, e HealthEvent) {
	t.Helper()
	checkEncoder(t, e, e.appendJSON)
}

func TestHealthEventJSONMatchesMarshal(t *testing.T) {
	strs := []string{"", "run-000001", "quorum lost: 1 of 3 workers available", "a\"b\\c", "<script>&</script>",
		"tab\tnl\nret", "\x00\x1f\x7f", "µ 日本 🎉", "\u2028\u2029", "bad \xff utf8", bound.Cut("ü"+string(make([]byte, 2000)), MaxHealthReason)}
	durs := []time.Duration{0, 1, time.Microsecond, 100 * time.Millisecond, 90 * time.Minute, -1, math.MaxInt64, math.MinInt64}
	for i, s := range strs {
		for j, d := range durs {
			checkHealthEventJSON(t, HealthEvent{RunID: strs[(i+j)%len(strs)], At: clock.Duration(d), Healthy: j%2 == 0, Reason: s})
		}
	}
}

func FuzzHealthEventJSON(f *testing.F) {
	f.Add("run-000001", int64(1500), false, "leader unavailable: stopped")
	f.Add("<&>", int64(-3600e9), true, "\u2028\xff\x00")
	f.Fuzz(func(t *testing.T, run string, at int64, healthy bool, reason string) {
		checkHealthEventJSON(t, HealthEvent{RunID: run, At: clock.Duration(at), Healthy: healthy, Reason: reason})
	})
}
