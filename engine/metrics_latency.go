package engine

import (
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// latencyBuckets are the upper bounds (seconds) of
// arena_injection_duration_seconds: 100µs to 26s, by fours.
var latencyBuckets = prometheus.ExponentialBuckets(0.0001, 4, latencyBucketCount)

const latencyBucketCount = 10

// latencyBounds are latencyBuckets in nanoseconds.
var latencyBounds = func() (b [latencyBucketCount]time.Duration) {
	for i, s := range latencyBuckets {
		b[i] = time.Duration(math.Round(s * float64(time.Second)))
	}
	return b
}()

// latencyVec is arena_injection_duration_seconds, a histogram by type, as a
// collector of its own: an observation is two atomic adds (its bucket, and
// the sum in nanoseconds), where client_golang's Histogram pays four and a
// compare-and-swap loop on a float, on every Execute. The count is the sum of the buckets, made when collected, so a
// scrape's buckets and count always agree; its sum may already hold an
// observation under way that they do not (observe adds to the sum first,
// Collect reads it last). Two services on one registry share it, as they share the
// other collectors (register).
type latencyVec struct {
	desc  *prometheus.Desc
	mu    sync.Mutex
	byTyp map[string]*latencyHist
}

// latencyHist is the histogram of one type.
type latencyHist struct {
	typ      string
	created  time.Time
	buckets  [latencyBucketCount + 1]atomic.Uint64 // the last: above every bound (+Inf)
	sumNanos atomic.Int64
}

func newLatencyVec() *latencyVec {
	return &latencyVec{
		desc: prometheus.NewDesc("arena_injection_duration_seconds", "Wall-clock time to land a fault, by type.",
			[]string{"type"}, nil),
		byTyp: map[string]*latencyHist{},
	}
}

// with returns the histogram of typ, made on first use.
func (v *latencyVec) with(typ string) *latencyHist {
	v.mu.Lock()
	defer v.mu.Unlock()
	h := v.byTyp[typ]
	if h == nil {
		h = &latencyHist{typ: typ, created: time.Now()}
		v.byTyp[typ] = h
	}
	return h
}

// observe counts one landing that took d: in the first bucket whose bound
// d does not exceed, as a Prometheus histogram does.
func (h *latencyHist) observe(d time.Duration) {
	i := 0
	for i < len(latencyBounds) && d > latencyBounds[i] {
		i++
	}
	h.sumNanos.Add(int64(d))
	h.buckets[i].Add(1)
}

// Describe implements prometheus.Collector.
func (v *latencyVec) Describe(ch chan<- *prometheus.Desc) { ch <- v.desc }

// Collect implements prometheus.Collector.
func (v *latencyVec) Collect(ch chan<- prometheus.Metric) {
	v.mu.Lock()
	hs := slices.Collect(maps.Values(v.byTyp))
	v.mu.Unlock()
	for _, h := range hs {
		cumulative := make(map[float64]uint64, len(latencyBuckets))
		var count uint64
		for i := range h.buckets {
			count += h.buckets[i].Load()
			if i < len(latencyBuckets) {
				cumulative[latencyBuckets[i]] = count
			}
		}
		sum := time.Duration(h.sumNanos.Load()).Seconds()
		ch <- prometheus.MustNewConstHistogramWithCreatedTimestamp(v.desc, count, sum, cumulative, h.created, h.typ)
	}
}
