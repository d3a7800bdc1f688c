package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
)

// systemOptions describe the system a command runs against.
type systemOptions struct {
	seed    uint64 // seeds the fake workload (and, through the scenario, the selectors)
	virtual bool   // a virtual clock: the run takes CPU time only
	workers int    // fake workers
	observe arena.ObserveOptions
	options []arena.Option  // more service options (serve adds metrics and a flight recorder)
	events  []events.Option // options of the event store (serve bounds its retention)
}

// system is the default system under test: a fake cluster, seeded, with its
// probe and checks wired into a service, on a virtual clock unless asked for
// real time. Every command that runs chaos (run, survive, …) starts here.
type system struct {
	clock   arena.Clock
	cluster *fakes.Cluster
	store   *events.MemoryStore
	svc     *arena.Service
}

func newSystem(o systemOptions) (*system, error) {
	if err := checkWorkers(o.workers); err != nil {
		return nil, err
	}
	var clock arena.Clock = arena.RealClock{}
	if o.virtual {
		clock = arena.NewVirtualClock(time.Time{})
	}
	c := fakes.NewCluster(fakes.WithClock(clock), fakes.WithSeed(o.seed), fakes.WithWorkers(o.workers))
	store := events.NewMemoryStore(o.events...)
	if err := o.observe.Validate(); err != nil {
		return nil, badInput(fmt.Errorf("--%s", strings.ReplaceAll(err.Error(), "_", "-")))
	}
	opts := append([]arena.Option{arena.WithClock(clock), arena.WithSeed(o.seed), arena.WithProbe(c.Probe), arena.WithChecks(c.Checks()...),
		arena.WithObserveOptions(o.observe)}, o.options...)
	svc := arena.NewService(arena.NewInjector(c, c), store, nil, opts...)
	return &system{clock: clock, cluster: c, store: store, svc: svc}, nil
}

// addSystemFlags registers the flags that choose the system, and one per
// observation setting (--probe-interval, --settle-time, …): they set the
// run's settings where the scenario's config.observe does not.
func addSystemFlags(o *systemOptions, flags interface {
	BoolVar(p *bool, name string, value bool, usage string)
	IntVar(p *int, name string, value int, usage string)
	DurationVar(p *time.Duration, name string, value time.Duration, usage string)
}) {
	flags.BoolVar(&o.virtual, "virtual", true, "run in virtual time (the fake cluster needs no real time); --virtual=false runs in real time")
	flags.IntVar(&o.workers, "workers", fakes.DefaultWorkers, "number of workers of the fake cluster")
	for _, s := range o.observe.Settings() {
		name := strings.ReplaceAll(s.Name, "_", "-")
		if s.Duration != nil {
			flags.DurationVar(s.Duration, name, 0, s.Doc)
		} else {
			flags.IntVar(s.Count, name, 0, s.Doc)
		}
	}
}
