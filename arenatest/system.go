package arenatest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/scenarios"
)

// Methods a runtime may have that the system takes when no option gives
// them (fakes.Cluster has all three).
type (
	prober interface {
		Probe(ctx context.Context) error
	}
	checker interface{ Checks() []arena.Check }
	clocked interface{ Clock() arena.Clock } // only to refuse a VirtualClock arena does not control
)

// errUncontrolled refuses a virtual run of a system arena does not drive.
var errUncontrolled = errors.New("the runtime's Clock() is an *arena.VirtualClock, but arena does not control its system's goroutines and timers " +
	"(the runtime is no arena.VirtualSystem): a virtual run would score a system that does not follow the clock. " +
	"Run your own code in simulated time (arenatest.Simulate with package sim: its goroutines and timers then run on synctest's clock), " +
	"or in real time (a runtime whose Clock is the wall clock, or RealTime())")

// newSystem builds the service of one run: over a fresh fake cluster seeded
// with seed, on a virtual clock unless RealTime() was asked for, or over
// the WithRuntime runtime (or a fresh one of WithFreshRuntime) on its own
// clock.
func newSystem(o *options, seed uint64) (*arena.Service, error) {
	rt, dag, probe, checks := o.runtime, o.dag, o.probe, o.checks
	if o.fresh != nil {
		var err error
		if rt, err = o.fresh(seed); err != nil {
			return nil, fmt.Errorf("WithFreshRuntime: %w", err)
		}
		if rt == nil {
			return nil, errors.New("WithFreshRuntime: nil runtime")
		}
	}
	var clock arena.Clock
	if rt == nil {
		clock = arena.RealClock{}
		if o.clock != clockReal {
			clock = arena.NewVirtualClock(time.Time{})
		}
		c, err := newCluster(append([]fakes.Option{fakes.WithClock(clock), fakes.WithSeed(seed)}, o.cluster...))
		if err != nil {
			return nil, err
		}
		rt, probe, checks = c, c.Probe, c.Checks()
		if dag == nil {
			dag = c
		}
		if o.probe != nil {
			probe = o.probe
		}
		if o.hasChecks {
			checks = o.checks
		}
	} else {
		clock = arena.RealClock{}
		if vs, ok := rt.(arena.VirtualSystem); ok && vs.VirtualClock() != nil {
			clock = vs.VirtualClock()
		} else if c, ok := rt.(clocked); ok {
			if _, ok := c.Clock().(*arena.VirtualClock); ok {
				return nil, errUncontrolled
			}
		}
		_, virtual := clock.(*arena.VirtualClock)
		switch {
		case o.clock == clockVirtual && !virtual:
			return nil, errors.New("Virtual(): the runtime runs in real time (a runtime on a virtual clock is an arena.VirtualSystem: every goroutine and timer of its system follows the clock; a system of its own goroutines runs in simulated time, arenatest.Simulate)")
		case o.clock == clockReal && virtual:
			return nil, errors.New("RealTime(): the runtime follows a virtual clock")
		}
		if d, ok := rt.(arena.DAGProvider); ok && dag == nil {
			dag = d
		}
		if p, ok := rt.(prober); ok && probe == nil {
			probe = p.Probe
		}
		if c, ok := rt.(checker); ok && !o.hasChecks {
			checks = c.Checks()
		}
	}
	svcOpts := []arena.Option{arena.WithClock(clock), arena.WithSeed(seed), arena.WithChecks(checks...), arena.WithObserveOptions(o.observe)}
	if probe != nil {
		svcOpts = append(svcOpts, arena.WithProbe(probe))
	}
	injOpts := []arena.InjectorOption{arena.WithDAG(dag), arena.WithRoles(o.roles)}
	seen := map[arena.ActionType]bool{}
	for _, f := range o.faults {
		if err := f.Check(); err != nil {
			return nil, fmt.Errorf("WithFaults: %w", err)
		}
		if seen[f.Type] {
			return nil, fmt.Errorf("WithFaults: fault %s given twice", f.Type)
		}
		seen[f.Type] = true
		injOpts = append(injOpts, arena.WithFault(f))
	}
	return arena.NewService(arena.NewInjectorFor(rt, injOpts...), events.NewMemoryStore(), nil, svcOpts...), nil
}

// newCluster is fakes.NewCluster with its panic on an invalid option
// (fakes.WithWorkers(0)) turned into an error.
func newCluster(opts []fakes.Option) (c *fakes.Cluster, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("WithCluster: %v", p)
		}
	}()
	return fakes.NewCluster(opts...), nil
}

// loadScenario resolves Run's scenario argument: a built-in name or a file
// path (scenarios.Resolve), or a scenario built in code (copied, so the caller's is unchanged).
func loadScenario(scenario any, faults []arena.FaultSpec) (*arena.Scenario, string, error) {
	switch v := scenario.(type) {
	case *arena.Scenario:
		if v == nil {
			return nil, "", errors.New("nil *arena.Scenario")
		}
		sc := *v
		return &sc, sc.Name, nil
	case string:
		sc, err := scenarios.Resolve(v, faults...)
		return sc, v, err
	}
	return nil, "", fmt.Errorf("scenario is %T, want a built-in name or file path (string) or an *arena.Scenario", scenario)
}

// rollbackAtCleanup lifts, when the test ends however it ends (passed,
// failed, t.Fatal, a panic), every fault still in place on svc. A run
// rolls back its own faults when it ends; this covers a test that stops
// in the middle of one, or lands faults of its own.
func rollbackAtCleanup(t TB, svc *arena.Service) {
	t.Cleanup(func() {
		for _, rb := range svc.Rollback(context.Background()) {
			if rb.Outcome != arena.RollbackLifted {
				t.Logf("arena: rollback at cleanup: %s %s %s: %s", rb.ActionID, rb.Type, rb.TargetID, rb.Detail)
			}
		}
	})
}
