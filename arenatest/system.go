package arenatest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

// Methods a runtime may have that the system takes when no option gives
// them (fakes.Cluster has all three).
type (
	prober interface {
		Probe(ctx context.Context) error
	}
	checker interface{ Checks() []fault.Check }
	clocked interface{ Clock() clock.Clock } // only to refuse a *clock.Virtual arena does not control
)

// errUncontrolled refuses a virtual run of a system arena does not drive.
var errUncontrolled = errors.New("the runtime's Clock() is a *clock.Virtual, but arena does not control its system's goroutines and timers " +
	"(the runtime is no clock.VirtualSystem): a virtual run would score a system that does not follow the clock. " +
	"Run your own code in simulated time (arenatest.Simulate with package sim: its goroutines and timers then run on synctest's clock), " +
	"or in real time (a runtime whose Clock is the wall clock, or RealTime())")

// newSystem builds the service of one run: over a fresh fake cluster seeded
// with seed, on a virtual clock unless RealTime() was asked for, or over
// the WithRuntime runtime (or a fresh one of WithFreshRuntime) on its own
// clock.
func newSystem(o *options, seed uint64) (*engine.Service, error) {
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
	var clk clock.Clock
	if rt == nil {
		clk = clock.Real{}
		if o.clock != clockReal {
			clk = clock.NewVirtual(time.Time{})
		}
		c, err := newCluster(append([]fakes.Option{fakes.WithClock(clk), fakes.WithSeed(seed)}, o.cluster...))
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
		clk = clock.Real{}
		if vs, ok := rt.(clock.VirtualSystem); ok && vs.VirtualClock() != nil {
			clk = vs.VirtualClock()
		} else if c, ok := rt.(clocked); ok {
			if _, ok := c.Clock().(*clock.Virtual); ok {
				return nil, errUncontrolled
			}
		}
		_, virtual := clk.(*clock.Virtual)
		switch {
		case o.clock == clockVirtual && !virtual:
			return nil, errors.New("Virtual(): the runtime runs in real time (a runtime on a virtual clock is a clock.VirtualSystem: every goroutine and timer of its system follows the clock; a system of its own goroutines runs in simulated time, arenatest.Simulate)")
		case o.clock == clockReal && virtual:
			return nil, errors.New("RealTime(): the runtime follows a virtual clock")
		}
		if d, ok := rt.(fault.DAGProvider); ok && dag == nil {
			dag = d
		}
		if p, ok := rt.(prober); ok && probe == nil {
			probe = p.Probe
		}
		if c, ok := rt.(checker); ok && !o.hasChecks {
			checks = c.Checks()
		}
	}
	svcOpts := []engine.Option{engine.WithClock(clk), engine.WithSeed(seed), engine.WithChecks(checks...), engine.WithObserveOptions(o.observe)}
	if probe != nil {
		svcOpts = append(svcOpts, engine.WithProbe(probe))
	}
	injOpts := []fault.InjectorOption{fault.WithDAG(dag), fault.WithRoles(o.roles)}
	seen := map[fault.Type]bool{}
	for _, f := range o.faults {
		if err := f.Check(); err != nil {
			return nil, fmt.Errorf("WithFaults: %w", err)
		}
		if seen[f.Type] {
			return nil, fmt.Errorf("WithFaults: fault %s given twice", f.Type)
		}
		seen[f.Type] = true
		injOpts = append(injOpts, fault.WithFault(f))
	}
	return engine.NewService(fault.NewInjectorFor(rt, injOpts...), events.NewMemoryStore(), nil, svcOpts...), nil
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
func loadScenario(scen any, faults []fault.Spec) (*scenario.Scenario, string, error) {
	switch v := scen.(type) {
	case *scenario.Scenario:
		if v == nil {
			return nil, "", errors.New("nil *scenario.Scenario")
		}
		sc := *v
		return &sc, sc.Name, nil
	case string:
		sc, err := scenarios.Resolve(v, faults...)
		return sc, v, err
	}
	return nil, "", fmt.Errorf("scenario is %T, want a built-in name or file path (string) or a *scenario.Scenario", scen)
}

// rollbackAtCleanup lifts, when the test ends however it ends (passed,
// failed, t.Fatal, a panic), every fault still in place on svc. A run
// rolls back its own faults when it ends; this covers a test that stops
// in the middle of one, or lands faults of its own.
func rollbackAtCleanup(t TB, svc *engine.Service) {
	t.Cleanup(func() {
		for _, rb := range svc.Rollback(context.Background()) {
			if rb.Outcome != engine.RollbackLifted {
				t.Logf("arena: rollback at cleanup: %s %s %s: %s", rb.ActionID, rb.Type, rb.TargetID, rb.Detail)
			}
		}
	})
}
