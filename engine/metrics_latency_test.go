package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// arena_injection_duration_seconds reads as client_golang's histogram of the
// same name, buckets and observations would: each bound inclusive, the
// count the sum of the buckets, the sum in seconds.
func TestLatencyVecIsAPrometheusHistogram(t *testing.T) {
	ours := newLatencyVec()
	theirs := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "arena_injection_duration_seconds", Help: "Wall-clock time to land a fault, by type.",
		Buckets: latencyBuckets,
	}, []string{"type"})
	observe := func(typ string, d time.Duration) {
		ours.with(typ).observe(d)
		theirs.WithLabelValues(typ).Observe(d.Seconds())
	}
	for _, d := range []time.Duration{
		0, time.Microsecond, 100 * time.Microsecond, 100*time.Microsecond + 1, // the first bound, on and past it
		400 * time.Microsecond, 1600 * time.Microsecond, 25600 * time.Microsecond,
		26214400 * time.Microsecond, 26214400*time.Microsecond + 1, time.Minute, // the last bound, then +Inf
	} {
		observe("network_partition", d)
	}
	observe("kill_agent", 3*time.Millisecond)
	got, want := gather(t, ours), gather(t, theirs)
	if got != want {
		t.Errorf("gathered:\n%s\nwant (client_golang):\n%s", got, want)
	}
	if !strings.Contains(got, `type=network_partition le=0.0001 3`) || !strings.Contains(got, `type=network_partition le=+Inf 10`) {
		t.Errorf("gathered:\n%s\nwant 3 observations in the first bucket and 10 in all", got)
	}
}

// gather is c's metrics, one line per bucket, count and sum (rounded to the
// nanosecond: client_golang sums seconds as floats, arena nanoseconds), with
// the family's name, help and type.
func gather(t *testing.T, c prometheus.Collector) string {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, mf := range mfs {
		fmt.Fprintf(&b, "%s %q %s\n", mf.GetName(), mf.GetHelp(), mf.GetType())
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			at := strings.Join(labels, ",")
			h := m.GetHistogram()
			for _, bk := range h.GetBucket() {
				fmt.Fprintf(&b, "%s le=%v %d\n", at, bk.GetUpperBound(), bk.GetCumulativeCount())
			}
			fmt.Fprintf(&b, "%s le=+Inf %d\n%s sum=%.9f\n", at, h.GetSampleCount(), at, h.GetSampleSum())
		}
	}
	return b.String()
}
