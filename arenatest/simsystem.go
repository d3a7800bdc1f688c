package arenatest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/shrink"
	"github.com/ares-arena/arena/sim"
	"gopkg.in/yaml.v3"
)

// System is your system on a simulated world, written once: it builds the
// system on w (its nodes, its clients, a workload), arranges for what it
// started to stop (the nodes' Stop hooks, t.Cleanup for the rest), and
// returns the options by which arena observes it: WithProbe, WithChecks,
// WithRoles, WithDAG, WithFaults, WithObserve, or WithRuntime for a
// runtime of your own over the world (the world itself by default).
//
//	func raft(t *testing.T, w *sim.World) []arenatest.Option {
//		c, err := NewCluster(w, Config{Nodes: 3})
//		if err != nil {
//			t.Fatal(err)
//		}
//		wl, err := StartWorkload(c, WorkloadConfig{})
//		if err != nil {
//			t.Fatal(err)
//		}
//		t.Cleanup(wl.Stop)
//		return []arenatest.Option{arenatest.WithRoles(c.Roles), arenatest.WithProbe(wl.Probe), arenatest.WithChecks(wl.Checks()...)}
//	}
//
// SimulateRun and SimulateSurvive call it for their run, in a fresh world
// in a bubble of its own, and again for every schedule the shrinker tries
// (WithShrinkOnFailure), each in a fresh world and bubble too; a Sweep
// calls them once per seed.
type System func(t *testing.T, w *sim.World) []Option

// systemOptions are the options a System may return.
var systemOptions = []string{"WithRuntime", "WithDAG", "WithFaults", "WithProbe", "WithChecks", "WithRoles", "WithObserve"}

// simulateRunOptions are those of SimulateRun and SimulateSurvive: Run's
// for a system in simulated time, and Simulate's.
var simulateRunOptions = []string{"WithSeed", "WithWatchdog", "WithShrinkOnFailure", "WithReportDir", "WithGate", "WithAbortWhen",
	"AllowUnhealthyStart()", "WithDAG", "WithFaults", "WithProbe", "WithChecks", "WithRoles", "WithObserve"}

// SimulateRun plays a scenario (as Run does) against the system sys builds
// on a fresh sim.World, in a testing/synctest bubble (as Simulate does),
// and returns the report, whether the run passed its gate or not: a
// failed gate fails t with Run's message but does not stop it, so a Sweep
// counts the run with its grade. Its seed is the override (-arena.seed,
// ARENA_SEED), else the -arena.replay file's, else WithSeed, else the
// scenario's config.seed, else drawn; the world, crypto/rand and the run
// share it.
//
// With WithShrinkOnFailure, a run that fails its gate is shrunk outside
// the bubble: each schedule the shrinker tries runs in a bubble of its
// own, on a fresh world that sys builds, and the budget is wall time. The
// failure message then ends with the smallest schedule that still fails,
// its failure rate, the simulated and wall time the search took, and the
// command that replays it (-arena.replay).
//
// What stops the test as Simulate does (sys failing, goroutines left
// running, a bubble stuck) still stops it.
func SimulateRun(t *testing.T, sys System, scen any, opts ...Option) *scenario.Report {
	t.Helper()
	r, err := newSimRun(t, "SimulateRun", sys, opts)
	if err != nil {
		return stop[scenario.Report](t, "SimulateRun", err)
	}
	inCode := uint64(0)
	if replayFile() == "" {
		if inCode, err = scenarioSeed(scen, r.o.faults); err != nil {
			return stop[scenario.Report](t, "SimulateRun", err)
		}
	}
	if r.seed, err = simulationSeedOr(r.o, inCode); err != nil {
		return stop[scenario.Report](t, "SimulateRun", err)
	}
	var rep *scenario.Report
	r.play(t, func(t *testing.T, opts []Option) {
		t.Helper()
		rep = Run(t, scen, opts...)
	})
	return rep
}

// scenarioSeed is the seed a scenario's config gives. A scenario file with
// fault types of the system's own (a System's WithFaults, known once the
// system is built) cannot be validated yet: its seed is read alone, and
// Run validates the whole inside the bubble.
func scenarioSeed(scen any, faults []fault.Spec) (uint64, error) {
	sc, _, err := loadScenario(scen, faults)
	if err == nil {
		return sc.Config.Seed, nil
	}
	path, ok := scen.(string)
	if !ok {
		return 0, err
	}
	data, rerr := os.ReadFile(path)
	var head struct {
		Config struct {
			Seed uint64 `yaml:"seed"`
		} `yaml:"config"`
	}
	if rerr != nil || yaml.Unmarshal(data, &head) != nil {
		return 0, err
	}
	return head.Config.Seed, nil
}

// SimulateSurvive is SimulateRun for a survival run (Survive): seeded
// random chaos for cfg.Duration against the system sys builds, in
// simulated time. With WithShrinkOnFailure the run lists all its actions
// and, when it fails its gate, is shrunk as SimulateRun's is.
func SimulateSurvive(t *testing.T, sys System, cfg engine.SurvivalConfig, opts ...Option) *engine.SurvivalReport {
	t.Helper()
	r, err := newSimRun(t, "SimulateSurvive", sys, opts)
	if err != nil {
		return stop[engine.SurvivalReport](t, "SimulateSurvive", err)
	}
	if r.seed, err = simulationSeedOr(r.o, cfg.Seed); err != nil {
		return stop[engine.SurvivalReport](t, "SimulateSurvive", err)
	}
	if r.o.shrink != nil && cfg.TimelineCap < scenario.MaxSteps {
		cfg.TimelineCap = scenario.MaxSteps // every action listed: the run can become a scenario
	}
	var rep *engine.SurvivalReport
	r.play(t, func(t *testing.T, opts []Option) {
		t.Helper()
		rep = Survive(t, cfg, opts...)
	})
	return rep
}

// simRun is one SimulateRun or SimulateSurvive.
type simRun struct {
	fn    string
	sys   System
	o     *options
	inner []Option // the caller's options for the run inside the bubble
	seed  uint64
}

func newSimRun(t *testing.T, fn string, sys System, opts []Option) (*simRun, error) {
	if sys == nil {
		return nil, fmt.Errorf("nil System")
	}
	o, err := collect(fn, simulateRunOptions, opts)
	if err != nil {
		return nil, err
	}
	r := &simRun{fn: fn, sys: sys, o: o}
	for _, opt := range opts {
		switch opt.(type) {
		case seedOption, watchdogOption, shrinkOption: // the bubble's, or the shrinker's
		default:
			r.inner = append(r.inner, opt)
		}
	}
	return r, nil
}

// simulationSeedOr is simulationSeed with a seed in code under WithSeed.
func simulationSeedOr(o *options, inCode uint64) (uint64, error) {
	if o.seed == 0 {
		o.seed = inCode
	}
	return simulationSeed(o)
}

// system calls sys on w and checks the options it returns.
func (r *simRun) system(t *testing.T, w *sim.World) ([]Option, error) {
	opts := r.sys(t, w)
	if _, err := collect("a System", systemOptions, opts); err != nil {
		return nil, fmt.Errorf("System: %w (a System returns the options by which arena observes the system it built: WithProbe, WithChecks, WithRoles, WithDAG, WithFaults, WithObserve, WithRuntime)", err)
	}
	return append(slices.Clone(r.inner), opts...), nil
}

// play runs body (Run or Survive) on a fresh world in a bubble, then
// reports the run's gate failure, shrunk when asked, with t.
func (r *simRun) play(t *testing.T, body func(t *testing.T, opts []Option)) {
	t.Helper()
	var held *pendingFailure
	done := false
	b := bubble{seed: r.seed, watchdog: watchdogOf(r.o)}
	wallStart := clock.Wall()
	var wall time.Duration // the run's, without the shrinking after it
	defer func() {
		t.Helper()
		if wall == 0 {
			wall = clock.Wall().Sub(wallStart)
		}
		logSimulation(t, r.seed, b.simulated, wall)
		switch {
		case held != nil && !done: // the bubble stopped the test besides: no shrinking then
			t.Errorf("%s", held.f.text(t))
		case held == nil && t.Failed():
			logReplay(t, r.seed)
		}
	}()
	fixSeed(t, r.seed)
	s := &simulation{seed: r.seed, outer: t, held: func(p pendingFailure) { held = &p }}
	b.run(t, s, func(t *testing.T, w *sim.World) {
		t.Helper()
		opts, err := r.system(t, w)
		if err != nil {
			stop[struct{}](t, r.fn, err)
			return
		}
		body(t, opts)
	})
	done, wall = true, clock.Wall().Sub(wallStart)
	if held == nil {
		return
	}
	if r.o.shrink != nil && replayFile() == "" {
		held.f.shrunk = r.shrink(t, *held)
	}
	t.Errorf("%s", held.f.text(t))
}

// shrink shrinks the failed run outside the bubble, each schedule in a
// bubble of its own (host).
func (r *simRun) shrink(t *testing.T, p pendingFailure) []string {
	sc := p.sc
	if p.survival != nil {
		var gate scenario.Gate
		if r.o.gate != nil {
			gate = *r.o.gate
		}
		var err error
		if sc, err = shrink.FromSurvival(p.survival, gate); err != nil {
			return []string{shrinkError(err)}
		}
	}
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: sc, Host: r.host(t), Budget: *r.o.shrink})
	return shrunkLines(t, res, err)
}

// host runs each schedule the shrinker tries in a bubble of its own, on a
// fresh world that the System builds, seeded with the schedule's seed.
func (r *simRun) host(t *testing.T) shrink.SystemHost {
	return func(ctx context.Context, seed uint64, play shrink.Play) (*scenario.Report, error) {
		b := bubble{seed: seed, watchdog: watchdogOf(r.o), candidate: true}
		var rep *scenario.Report
		var err error
		s := &simulation{seed: seed} // no outer: a sweep does not count the shrinker's runs
		b.run(t, s, func(t *testing.T, w *sim.World) {
			var svc *engine.Service
			opts, e := r.system(t, w)
			var o *options
			if e == nil {
				o, e = collect("Run", runOptions, opts)
			}
			if e == nil {
				e = s.adopt(o)
			}
			if e == nil {
				svc, e = newSystem(o, seed)
			}
			if e != nil {
				err = e
				return
			}
			rollbackAtCleanup(t, svc)
			ictx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			go follow(ctx, ictx, cancel)
			rep, err = play(ictx, svc)
		})
		if rep == nil && err == nil && b.deadlock != "" {
			err = fmt.Errorf("the simulation is blocked for good (%s)", b.deadlock)
		}
		return rep, err
	}
}

// follow ends inner, a context of a bubble, when outer, made outside it,
// ends (the shrinker's budget, the test's end). A goroutine of the bubble
// cannot wait on outer's channel (simulated time would stop while it
// does): it looks every simulated 100ms instead.
func follow(outer, inner context.Context, cancel context.CancelCauseFunc) {
	for {
		if outer.Err() != nil {
			cancel(context.Cause(outer))
			return
		}
		select {
		case <-inner.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}
