package engine

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// metrics are the service's Prometheus collectors. They are registered on the
// Registerer the caller passes (never the global one); two services on one
// registry share the collectors already there.
type metrics struct {
	actions *prometheus.CounterVec
	latency *latencyVec
	faults  *prometheus.CounterVec
	ttr     prometheus.Histogram
	score   prometheus.Gauge

	// byKind caches the label children of each action type and outcome,
	// so Execute neither hashes label values nor a type name per call:
	// indexed by 2*Binding.Index()+outcome (0 failed, 1 landed), the last
	// pair for invalidType. Children are made on first use, as
	// WithLabelValues would, so /metrics shows the same series; racing
	// makers store the same children, as the vectors hand back the one
	// child of a label set.
	byKind []atomic.Pointer[outcomeMetrics]
	// byFault caches the children of faults, by faultOutcomeLabels' index,
	// made on first use as byKind's are.
	byFault [len(faultOutcomeLabels)]atomic.Pointer[prometheus.Counter]
}

// faultOutcomeLabels are the outcome labels of arena_faults_total.
var faultOutcomeLabels = [...]string{"recovered", "undecided", "unrecovered"}

// forFault returns the arena_faults_total child of faultOutcomeLabels[i].
func (m *metrics) forFault(i int) prometheus.Counter {
	if c := m.byFault[i].Load(); c != nil {
		return *c
	}
	c := m.faults.WithLabelValues(faultOutcomeLabels[i])
	m.byFault[i].Store(&c)
	return c
}

// outcomeMetrics are the children for one action type and outcome.
type outcomeMetrics struct {
	actions prometheus.Counter // arena_actions_total{type, outcome}
	latency *latencyHist       // arena_injection_duration_seconds{type}
}

// forOutcome returns the children for typ and outcome, made on first use;
// kind is what the injector knows of typ (the zero kind: invalidType).
func (m *metrics) forOutcome(typ fault.Type, kind fault.Binding, landed bool) *outcomeMetrics {
	i := len(m.byKind) - 2
	if kind.Known() {
		i = 2 * kind.Index()
	}
	outcome := "failed"
	if landed {
		i++
		outcome = "landed"
	}
	if om := m.byKind[i].Load(); om != nil {
		return om
	}
	om := &outcomeMetrics{
		actions: m.actions.WithLabelValues(string(typ), outcome),
		latency: m.latency.with(string(typ)),
	}
	m.byKind[i].Store(om)
	return om
}

// newMetrics registers the collectors on reg (none when nil) for a service
// whose injector knows kinds types.
func newMetrics(reg prometheus.Registerer, kinds int) *metrics {
	m := &metrics{
		byKind: make([]atomic.Pointer[outcomeMetrics], 2*kinds+2),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_actions_total", Help: "Chaos actions executed, by type and outcome (landed or failed).",
		}, []string{"type", "outcome"}),
		latency: newLatencyVec(),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_faults_total", Help: "Landed faults by outcome (recovered, unrecovered, or undecided: the run ended before the verdict).",
		}, []string{"outcome"}),
		ttr: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "arena_time_to_recover_seconds", Help: "Time to recover of recovered faults.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60},
		}),
		score: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "arena_score", Help: "Total score (0-100) of the last finished run.",
		}),
	}
	if reg == nil {
		return m
	}
	m.actions = register(reg, m.actions)
	m.latency = register(reg, m.latency)
	m.faults = register(reg, m.faults)
	m.ttr = register(reg, m.ttr)
	m.score = register(reg, m.score)
	return m
}

// register registers c, or returns the equal collector already registered.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic("arena: register metrics: " + err.Error())
	}
	return c
}

// MetricsSnapshot is the JSON view of this service's metrics. The Prometheus
// collectors count the same things, summed over every service that shares
// the registry.
type MetricsSnapshot struct {
	Actions           map[fault.Type]map[string]int `json:"actions"`        // type → "landed"/"failed" → count
	MeanInjection     clock.Duration                `json:"mean_injection"` // wall-clock
	FaultsRecovered   int                           `json:"faults_recovered"`
	FaultsUnrecovered int                           `json:"faults_unrecovered"`
	MeanTTR           clock.Duration                `json:"mean_ttr"`
	Score             *float64                      `json:"score,omitempty"` // of the last finished run
}

// Metrics returns a consistent snapshot of the service's metrics.
func (s *Service) Metrics() MetricsSnapshot {
	st := s.Stats()
	m := MetricsSnapshot{
		Actions:       map[fault.Type]map[string]int{},
		MeanInjection: st.MeanInjection, FaultsRecovered: st.FaultsRecovered,
		FaultsUnrecovered: st.FaultsUnrecovered, Score: st.LastScore,
	}
	for t, ts := range st.ByType {
		m.Actions[t] = map[string]int{"landed": ts.Succeeded, "failed": ts.Failed}
	}
	if st.FaultsRecovered > 0 {
		m.MeanTTR = clock.Duration(st.ttrSum / time.Duration(st.FaultsRecovered))
	}
	return m
}
