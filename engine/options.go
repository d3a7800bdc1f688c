package engine

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// Option configures a Service. Options are small named values (Uber's
// functional-options form), so that tests can compare them.
type Option interface{ apply(*serviceOptions) }

type serviceOptions struct {
	clock            clock.Clock
	probe            fault.Probe
	checks           []fault.Check
	registerer       prometheus.Registerer
	flight           FlightRecorder
	evolution        EvolutionCoordinator
	historyCap       int
	seed             uint64
	emergencyTimeout time.Duration
	observe          ObserveOptions
	maxFaultDuration time.Duration
	rollbackTimeout  time.Duration
}

// Service option defaults.
const (
	DefaultHistoryCap       = 1000
	DefaultEmergencyTimeout = 5 * time.Second
)

func defaultServiceOptions() serviceOptions {
	return serviceOptions{clock: clock.Real{}, historyCap: DefaultHistoryCap, seed: 1, emergencyTimeout: DefaultEmergencyTimeout,
		maxFaultDuration: DefaultMaxFaultDuration, rollbackTimeout: DefaultRollbackTimeout}
}

type clockOption struct{ c clock.Clock }

func (o clockOption) apply(s *serviceOptions) {
	if o.c != nil {
		s.clock = o.c
	}
}

// WithClock sets the system's clock. A *clock.Virtual makes runs virtual:
// they jump the clock from event to event and play at CPU speed.
func WithClock(c clock.Clock) Option { return clockOption{c} }

type probeOption struct{ p fault.Probe }

func (o probeOption) apply(s *serviceOptions) { s.probe = o.p }

// WithProbe sets the system's health probe, sampled during runs.
func WithProbe(p fault.Probe) Option { return probeOption{p} }

type checksOption struct{ checks []fault.Check }

func (o checksOption) apply(s *serviceOptions) { s.checks = append([]fault.Check(nil), o.checks...) }

// WithChecks sets the system's consistency checks.
func WithChecks(checks ...fault.Check) Option { return checksOption{checks} }

type registererOption struct{ reg prometheus.Registerer }

func (o registererOption) apply(s *serviceOptions) { s.registerer = o.reg }

// WithRegisterer registers the service's Prometheus collectors on reg.
// Without it the collectors exist but are not registered anywhere.
func WithRegisterer(reg prometheus.Registerer) Option { return registererOption{reg} }

type flightOption struct{ fr FlightRecorder }

func (o flightOption) apply(s *serviceOptions) { s.flight = o.fr }

// WithFlightRecorder turns on the flight bridge.
func WithFlightRecorder(fr FlightRecorder) Option { return flightOption{fr} }

type evolutionOption struct{ ec EvolutionCoordinator }

func (o evolutionOption) apply(s *serviceOptions) { s.evolution = o.ec }

// WithEvolution turns on the evolution bridge.
func WithEvolution(ec EvolutionCoordinator) Option { return evolutionOption{ec} }

type historyCapOption int

func (o historyCapOption) apply(s *serviceOptions) { s.historyCap = int(o) }

// WithHistoryCap bounds the history (default 1000; 0 keeps none).
func WithHistoryCap(n int) Option {
	if n < 0 {
		panic("arena: WithHistoryCap: negative cap")
	}
	return historyCapOption(n)
}

type seedOption uint64

func (o seedOption) apply(s *serviceOptions) { s.seed = uint64(o) }

// WithSeed seeds the target selectors of actions executed outside a run.
func WithSeed(seed uint64) Option { return seedOption(seed) }

type emergencyTimeoutOption time.Duration

func (o emergencyTimeoutOption) apply(s *serviceOptions) { s.emergencyTimeout = time.Duration(o) }

// WithEmergencyTimeout bounds ApplyEmergency calls (default 5s).
func WithEmergencyTimeout(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithEmergencyTimeout: timeout must be positive")
	}
	return emergencyTimeoutOption(d)
}

type observeOption struct{ o ObserveOptions }

func (o observeOption) apply(s *serviceOptions) { s.observe = o.o }

// WithObserveOptions sets the default observation options of runs.
func WithObserveOptions(opts ObserveOptions) Option { return observeOption{opts} }

type maxFaultDurationOption time.Duration

func (o maxFaultDurationOption) apply(s *serviceOptions) { s.maxFaultDuration = time.Duration(o) }

// WithMaxFaultDuration bounds a fault's `duration` (default 1h): a longer
// one is refused before it lands, with a *ValidationError naming
// metadata.duration (a 400 over HTTP).
func WithMaxFaultDuration(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithMaxFaultDuration: duration must be positive")
	}
	return maxFaultDurationOption(d)
}

type rollbackTimeoutOption time.Duration

func (o rollbackTimeoutOption) apply(s *serviceOptions) { s.rollbackTimeout = time.Duration(o) }

// WithRollbackTimeout bounds the lifts of one rollback (default 30s): when
// a run or the process ends, arena lifts the faults it still owns, and a
// runtime that hangs must not hold the exit for longer.
func WithRollbackTimeout(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithRollbackTimeout: timeout must be positive")
	}
	return rollbackTimeoutOption(d)
}
