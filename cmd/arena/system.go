package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// systemOptions describe the system a command runs against.
type systemOptions struct {
	seed    uint64 // seeds the fake workload (and, through the scenario, the selectors)
	virtual bool   // a virtual clock: the run takes CPU time only
	workers int    // fake workers
	observe engine.ObserveOptions
	options []engine.Option // more service options (serve adds metrics and a flight recorder)
	events  []events.Option // options of the event store (serve bounds its retention)
}

// system is the default system under test: a fake cluster, seeded, with its
// probe and checks wired into a service, on a virtual clock unless asked for
// real time. Every command that runs chaos (run, survive, …) starts here.
type system struct {
	clock   clock.Clock
	cluster *fakes.Cluster
	store   *events.MemoryStore
	svc     *engine.Service
}

func newSystem(o systemOptions) (*system, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	var clk clock.Clock = clock.Real{}
	if o.virtual {
		clk = clock.NewVirtual(time.Time{})
	}
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(o.seed), fakes.WithWorkers(o.workers))
	store := events.NewMemoryStore(o.events...)
	opts := append([]engine.Option{engine.WithClock(clk), engine.WithSeed(o.seed), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...),
		engine.WithObserveOptions(o.observe)}, o.options...)
	svc := engine.NewService(fault.NewInjector(c, c), store, nil, opts...)
	return &system{clock: clk, cluster: c, store: store, svc: svc}, nil
}

// check bounds the system flags: bad input naming the flag. A command that
// makes its systems later (shrink, one per run) checks them before it
// starts.
func (o systemOptions) check() error {
	if err := checkWorkers(o.workers); err != nil {
		return err
	}
	if err := o.observe.Validate(); err != nil {
		return badInput(fmt.Errorf("--%s", strings.ReplaceAll(err.Error(), "_", "-")))
	}
	return nil
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
