package arena

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Option configures a Service.
type Option interface{ apply(*serviceOptions) }

type serviceOptions struct {
	clock            Clock
	probe            Probe
	checks           []Check
	registerer       prometheus.Registerer
	flight           FlightRecorder
	evolution        EvolutionCoordinator
	historyCap       int
	seed             uint64
	emergencyTimeout time.Duration
	observe          ObserveOptions
}

// Service option defaults.
const (
	DefaultHistoryCap       = 1000
	DefaultEmergencyTimeout = 5 * time.Second
)

func defaultServiceOptions() serviceOptions {
	return serviceOptions{clock: RealClock{}, historyCap: DefaultHistoryCap, seed: 1, emergencyTimeout: DefaultEmergencyTimeout}
}

type optionFunc func(*serviceOptions)

func (f optionFunc) apply(o *serviceOptions) { f(o) }

// WithClock sets the system's clock. A *VirtualClock makes runs virtual:
// they are played by a VirtualExecutor at CPU speed.
func WithClock(c Clock) Option {
	return optionFunc(func(o *serviceOptions) {
		if c != nil {
			o.clock = c
		}
	})
}

// WithProbe sets the system's health probe, sampled during runs.
func WithProbe(p Probe) Option { return optionFunc(func(o *serviceOptions) { o.probe = p }) }

// WithChecks sets the system's consistency checks.
func WithChecks(checks ...Check) Option {
	return optionFunc(func(o *serviceOptions) { o.checks = append([]Check(nil), checks...) })
}

// WithRegisterer registers the service's Prometheus collectors on reg.
// Without it the collectors exist but are not registered anywhere.
func WithRegisterer(reg prometheus.Registerer) Option {
	return optionFunc(func(o *serviceOptions) { o.registerer = reg })
}

// WithFlightRecorder turns on the flight bridge.
func WithFlightRecorder(fr FlightRecorder) Option {
	return optionFunc(func(o *serviceOptions) { o.flight = fr })
}

// WithEvolution turns on the evolution bridge.
func WithEvolution(ec EvolutionCoordinator) Option {
	return optionFunc(func(o *serviceOptions) { o.evolution = ec })
}

// WithHistoryCap bounds the history (default 1000; 0 keeps none).
func WithHistoryCap(n int) Option {
	if n < 0 {
		panic("arena: WithHistoryCap: negative cap")
	}
	return optionFunc(func(o *serviceOptions) { o.historyCap = n })
}

// WithSeed seeds the target selectors of actions executed outside a run.
func WithSeed(seed uint64) Option { return optionFunc(func(o *serviceOptions) { o.seed = seed }) }

// WithEmergencyTimeout bounds ApplyEmergency calls (default 5s).
func WithEmergencyTimeout(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithEmergencyTimeout: timeout must be positive")
	}
	return optionFunc(func(o *serviceOptions) { o.emergencyTimeout = d })
}

// WithObserveOptions sets the default observation options of runs.
func WithObserveOptions(opts ObserveOptions) Option {
	return optionFunc(func(o *serviceOptions) { o.observe = opts })
}
