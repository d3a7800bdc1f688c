package arenatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
	"github.com/ares-arena/arena/sim"
)

var simulateOptions = []string{"WithSeed", "WithWatchdog"}

// simulation is what Run and Survive find when they are called inside
// Simulate: the world, which is their default system, its seed, and the
// test that called Simulate (a sweep's seed notes its reports).
type simulation struct {
	world *sim.World
	seed  uint64
	outer *testing.T
	// held, when set (SimulateRun), takes a run's gate failure instead of
	// t.Errorf: it is reported, and shrunk, outside the bubble.
	held func(pendingFailure)
}

// pendingFailure is a failed run held for SimulateRun.
type pendingFailure struct {
	f        failure
	sc       *scenario.Scenario     // Run's scenario, as it ran
	survival *engine.SurvivalReport // or Survive's report
}

// simulations maps the bubble's *testing.T to its simulation.
var simulations sync.Map

// errShrinkInSimulate is the migration of WithShrinkOnFailure inside
// Simulate: every schedule the shrinker tries needs a fresh world.
var errShrinkInSimulate = errors.New("WithShrinkOnFailure inside Simulate: every schedule the shrinker tries needs a fresh world, " +
	"built by your setup, in a bubble of its own; put the setup in an arenatest.System and call " +
	"arenatest.SimulateRun(t, system, scenario, WithShrinkOnFailure(budget)) (see \"Shrinking in simulated time\" in the package docs)")

// adopt makes the options of a Run or Survive inside the simulation run
// against its world, with its seed.
func (s *simulation) adopt(o *options) error {
	switch {
	case slices.Contains(o.given, "WithSeed"):
		return errors.New("WithSeed: inside Simulate the world and its runs share one seed; give WithSeed to Simulate")
	case o.clock == clockVirtual:
		return errors.New("Virtual(): inside Simulate the clock is simulated (synctest), not arena's virtual clock; leave the option out")
	case o.runtime == nil && len(o.cluster) > 0:
		return errors.New("WithCluster tunes the default fake cluster; inside Simulate the default system is the world (sim.World)")
	case o.shrink != nil:
		return errShrinkInSimulate
	}
	if o.runtime == nil {
		o.runtime = s.world
	}
	o.seed = s.seed
	return nil
}

func simulationOf(t TB) *simulation {
	if s, ok := simulations.Load(t); ok {
		return s.(*simulation)
	}
	return nil
}

// Simulate runs f in a testing/synctest bubble with a fresh sim.World: the
// system f builds on the world (its own, unmodified code: goroutines,
// timers, net/http, gRPC, raft) runs in simulated time, which jumps
// whenever every goroutine of the bubble is blocked, so a simulated day
// takes minutes. Inside f, Run and Survive (called with the bubble's t)
// run against the world by default, with its seed, and their reports say
// "simulated (synctest)".
//
//	arenatest.Simulate(t, func(t *testing.T, w *sim.World) {
//		c, _ := mysystem.Start(w)
//		arenatest.Run(t, "leader-failover", arenatest.WithProbe(c.Probe), arenatest.WithRoles(c.Roles))
//	})
//
// The seed is the override (-arena.seed, ARENA_SEED), else the seed of the
// -arena.replay file, else WithSeed, else drawn; it seeds the world (each
// node's Rand, the faults' draws), crypto/rand (testing/cryptotest, unless
// the test is parallel) and every run inside, and a failure prints it with
// the command that replays the same schedule.
//
// When f returns (or fails the test), Simulate lifts what faults are left
// (the runs' own cleanup), closes the world (every node's Stop hook, every
// connection and listener), and gives the system's goroutines a simulated
// minute to return. Those that do not are named in the failure, with what
// they wait on, who started them and whether a node's Start or the test
// function did (the fix differs), instead of synctest's bare deadlock
// panic; so are the goroutines of an f that blocks for good.
//
// Simulated time moves only while every goroutine of the bubble waits on
// something inside it. A goroutine blocked on a real socket, a system
// call or a lock held outside the bubble stops it: Simulate's watchdog,
// outside the bubble, notices that one has been so blocked for the
// WithWatchdog limit (default 30s of wall time) and ends the test binary
// with a message that names it and the fix, instead of a hang until go
// test's timeout.
//
// A failing simulation stops the test (testing/synctest fails the test
// that called it with t.FailNow): to report a run whatever it does, and to
// shrink one that fails, use SimulateRun or SimulateSurvive, which take
// the system as a System.
//
// Simulate needs a *testing.T: synctest does not run under Ginkgo.
func Simulate(t *testing.T, f func(t *testing.T, w *sim.World), opts ...Option) {
	t.Helper()
	o, err := collect("Simulate", simulateOptions, opts)
	if err != nil {
		stop[struct{}](t, "Simulate", err)
		return
	}
	seed, err := simulationSeed(o)
	if err != nil {
		stop[struct{}](t, "Simulate", err)
		return
	}
	fixSeed(t, seed)
	b := bubble{seed: seed, watchdog: watchdogOf(o)}
	wallStart := clock.Wall()
	defer func() {
		t.Helper()
		logSimulation(t, seed, b.simulated, clock.Wall().Sub(wallStart))
		if t.Failed() {
			logReplay(t, seed)
		}
	}()
	b.run(t, &simulation{seed: seed, outer: t}, f)
}

// simulationSeed is the seed of a simulation: the override, else the
// replayed file's (the world and the file's schedule share it), else
// WithSeed, else drawn.
func simulationSeed(o *options) (uint64, error) {
	inFile := uint64(0)
	if path := replayFile(); path != "" {
		sc, err := scenarios.Resolve(path)
		if err != nil {
			return 0, fmt.Errorf("-%s: %w", ReplayFlag, err)
		}
		if inFile = sc.Config.Seed; inFile != 0 {
			o.seed = 0 // the file's seed, not the code's
		}
	}
	return seedFor(o, inFile)
}

func watchdogOf(o *options) time.Duration {
	if deterministic() {
		return 0 // nothing outside the program can block it
	}
	if o.watchdog != nil {
		return *o.watchdog
	}
	return defaultWatchdog
}

// replayCommands are the two commands that replay t's simulation: with the
// seed, or under -arena.replay with the file (whose seed the run took).
func replayCommands(t TB, seed uint64) [2]string {
	if deterministic() {
		return detRerun(t, seed)
	}
	if path := replayFile(); path != "" {
		sel := selector(t)
		return [2]string{
			fmt.Sprintf("go test %s -%s=%s", sel, ReplayFlag, path),
			fmt.Sprintf("%s=%s go test %s", ReplayEnv, path, sel),
		}
	}
	return rerun(t, seed)
}

// bubble is one synctest bubble around a fresh world: Simulate's, and one
// per schedule the shrinker tries for SimulateRun.
type bubble struct {
	seed     uint64
	watchdog time.Duration
	// candidate: a run of the shrinker's. Goroutines left over are not the
	// test's failure: the failing run, on the same system, reported them.
	candidate bool

	simulated time.Duration // the bubble's, when it ends
	deadlock  string        // synctest's deadlock panic, when the bubble ended so
}

// run runs f in the bubble: a world seeded with b.seed, crypto/rand seeded
// too, s registered for Run and Survive, and at f's end the world closed
// and its goroutines waited for.
func (b *bubble) run(t *testing.T, s *simulation, f func(t *testing.T, w *sim.World)) {
	t.Helper()
	var id atomic.Int64
	var reported atomic.Bool // leftovers named inside: synctest's panic that follows says no more
	wd := startWatchdog(t.Name(), &id, b.watchdog)
	defer wd.stop()
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		msg := fmt.Sprint(p)
		if !strings.HasPrefix(msg, "deadlock: ") {
			panic(p)
		}
		b.deadlock = msg
		if !reported.Load() && !b.candidate { // f itself is blocked for good
			t.Errorf("arena: simulation: every goroutine of the bubble is blocked for good (%s):\n%s\nseed: %d",
				msg, namesOf(leftovers(dumpLabelled(), int(id.Load()), 0)), b.seed)
		}
	}()
	synctest.Test(t, func(t *testing.T) {
		t.Helper()
		self, bid := self()
		id.Store(int64(bid))
		if note := seedCrypto(t, b.seed); note != "" && !b.candidate {
			t.Logf("arena: simulation: crypto/rand is not seeded: %s", note)
		}
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(testLabel, "test")))
		w := sim.New(sim.WithSeed(b.seed))
		s.world = w
		start := time.Now()
		simulations.Store(t, s)
		// At t's cleanup, after the runs' own (rollbackAtCleanup, made
		// later, runs first): close the world, wait for its goroutines.
		t.Cleanup(func() {
			defer simulations.Delete(t)
			if err := w.Close(context.Background()); err != nil && !b.candidate {
				t.Errorf("arena: simulation: closing the world: %v", err)
			}
			if gs := settle(bid, self); len(gs) > 0 && !b.candidate {
				reported.Store(true)
				t.Errorf("arena: simulation: goroutines still running a simulated minute after the world closed:\n%s\n%s\nseed: %d", namesOf(gs), leakFixes(gs), b.seed)
			}
			b.simulated = time.Since(start)
		})
		f(t, w)
	})
}

// seedCrypto seeds crypto/rand, and the crypto packages' implicit
// randomness, from the world's seed for the bubble's test
// (testing/cryptotest.SetGlobalRandom). It cannot in a parallel test (the
// source is the process's): the note says why.
func seedCrypto(t *testing.T, seed uint64) (note string) {
	defer func() {
		if p := recover(); p != nil {
			note = fmt.Sprint(p)
		}
	}()
	cryptotest.SetGlobalRandom(t, seed)
	return ""
}

// settle waits, in simulated time, up to a minute for the goroutines of
// the bubble other than self (and the testing package's) to return, and
// returns those that remain (none when all did).
func settle(bubble, self int) []goroutine {
	for range 60 {
		synctest.Wait()
		if len(leftovers(dumpAll(), bubble, self)) == 0 {
			return nil
		}
		time.Sleep(time.Second)
	}
	synctest.Wait()
	return leftovers(dumpLabelled(), bubble, self)
}

// leftovers returns the goroutines of the bubble in dump but self and
// the testing package's own.
func leftovers(dump []byte, bubble, self int) []goroutine {
	var out []goroutine
	for _, g := range goroutines(dump) {
		if g.bubble != bubble || g.id == self || g.createdBy == "testing/synctest.Test" || strings.HasPrefix(g.state, "synctest.Run") {
			// the bubble's root and the goroutine that waits on it
			continue
		}
		out = append(out, g)
	}
	return out
}

// namesOf lists goroutines one a line, at most 20, each with who started
// it: a node's Start, or the test function.
func namesOf(gs []goroutine) string {
	var b strings.Builder
	for i, g := range gs {
		if i == 20 {
			fmt.Fprintf(&b, "  … and %d more\n", len(gs)-20)
			break
		}
		fmt.Fprintf(&b, "  - %s", g.name())
		switch {
		case g.node != "":
			fmt.Fprintf(&b, " (node %s's Start)", g.node)
		case g.test:
			b.WriteString(" (the test function)")
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// leakFixes says how to stop the goroutines left, by who started them: a
// node's Start (its Stop hook must stop them), the test function (the
// test must stop its own workload before it returns), or neither known.
func leakFixes(gs []goroutine) string {
	var nodes []string
	test, unknown := 0, 0
	for _, g := range gs {
		switch {
		case g.node != "":
			if !slices.Contains(nodes, g.node) {
				nodes = append(nodes, g.node)
			}
		case g.test:
			test++
		default:
			unknown++
		}
	}
	var fixes []string
	if test > 0 {
		fixes = append(fixes, fmt.Sprintf("fix: %s started by the test function, not by a node's Start: stop it before the test function returns "+
			"(defer its Stop, or t.Cleanup), or make it return when its context ends or its connection closes", plural(test, "goroutine was", "goroutines were")))
	}
	if len(nodes) > 0 {
		fixes = append(fixes, fmt.Sprintf("fix: stop the goroutines of node %s in the node's Stop hook (sim.NodeConfig.Stop), which runs when the world closes, "+
			"or make them return when their connection closes or their context ends", strings.Join(nodes, ", ")))
	}
	if unknown > 0 || len(fixes) == 0 {
		fixes = append(fixes, "fix: stop them in the node's Stop hook (sim.NodeConfig.Stop) if a node's Start started them, or before the test function returns if it did, "+
			"or make them return when their connection closes or their context ends")
	}
	return strings.Join(fixes, "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// defaultWatchdog is how long a goroutine of a simulation may stay blocked
// on something outside the bubble before the watchdog ends the test.
const defaultWatchdog = 30 * time.Second

type watchdogOption time.Duration

func (o watchdogOption) apply(c *options) {
	c.given = append(c.given, "WithWatchdog")
	d := time.Duration(o)
	c.watchdog = &d
}

// WithWatchdog sets how long Simulate's watchdog lets a goroutine of the
// bubble stay blocked on something outside it (a real socket, a system
// call, a lock) before it ends the test binary with a message naming it
// (default 30s of wall time; 0 turns the watchdog off).
func WithWatchdog(d time.Duration) Option { return watchdogOption(d) }

// watchdog watches a bubble from outside it, on the wall clock.
type watchdog struct {
	done chan struct{}
	wg   sync.WaitGroup
}

func (w *watchdog) stop() {
	close(w.done)
	w.wg.Wait()
}

// startWatchdog samples the goroutines of the bubble every second of wall
// time (or a tenth of limit); one that stays blocked outside the bubble
// (same goroutine, same state, same function) for limit ends the test
// binary with a message that names it.
func startWatchdog(test string, bubble *atomic.Int64, limit time.Duration) *watchdog {
	w := &watchdog{done: make(chan struct{})}
	if limit <= 0 {
		return w
	}
	every := min(time.Second, limit/10)
	w.wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		since := map[string]time.Time{} // goroutine, state and function → first seen so
		for {
			select {
			case <-w.done:
				return
			case <-tick.C:
			}
			b := int(bubble.Load())
			if b == 0 {
				continue
			}
			now := time.Now()
			seen := map[string]time.Time{}
			var stuck []goroutine
			for _, g := range goroutines(dumpAll()) {
				if g.bubble != b || !g.outside() {
					continue
				}
				key := fmt.Sprintf("%d %s %s", g.id, g.state, g.top)
				first, ok := since[key]
				if !ok {
					first = now
				}
				seen[key] = first
				if now.Sub(first) >= limit {
					stuck = append(stuck, g)
				}
			}
			since = seen
			if len(stuck) > 0 {
				msg := stuckMessage(test, limit, stuck)
				fmt.Fprintln(os.Stderr, msg)
				panic(msg)
			}
		}
	})
	return w
}

// stuckMessage says why simulated time stopped, and what to do.
func stuckMessage(test string, limit time.Duration, gs []goroutine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "arena: simulation %s made no progress for %s of wall time: simulated time cannot move while a goroutine of the bubble is blocked on something outside it\n", test, limit)
	for _, g := range gs {
		fmt.Fprintf(&b, "  - %s: %s\n", g.name(), cause(g.state))
	}
	b.WriteString("fix: give the system sim's network (sim.Node.Listen, DialContext, HTTPTransport, ContextDialer) instead of real sockets, " +
		"make the world inside Simulate, and keep system calls and outside locks out of the simulation (or raise WithWatchdog if it is only slow)\n\n")
	for _, g := range gs {
		b.WriteString(g.stack)
		b.WriteString("\n\n")
	}
	return strings.TrimSpace(b.String())
}

func cause(state string) string {
	switch {
	case strings.HasPrefix(state, "IO wait"):
		return "waiting on a real socket or file (the net package, not sim's network)"
	case strings.HasPrefix(state, "syscall"):
		return "in a system call"
	case strings.Contains(state, "Mutex") || strings.HasPrefix(state, "semacquire"):
		return "waiting for a lock held outside the bubble"
	case strings.HasPrefix(state, "chan") || strings.HasPrefix(state, "select"):
		return "waiting on a channel made outside the bubble (make the world and the system inside Simulate)"
	}
	return "blocked outside the bubble's control"
}

// logReplay logs the commands that replay a failed simulation: exactly on
// the deterministic clock, the same schedule elsewhere.
func logReplay(t TB, seed uint64) {
	cmds := replayCommands(t, seed)
	if deterministic() {
		t.Logf("arena: replay exactly: %s\n                     or: %s", cmds[0], cmds[1])
		return
	}
	t.Logf("arena: replay the same schedule: %s\n                              or: %s", cmds[0], cmds[1])
}

// logSimulation logs what a simulation took: simulated time, and wall
// time where the program reads the host's (in deterministic mode its wall
// clock is one the host derives from the seed: arena-wasm times the run).
func logSimulation(t TB, seed uint64, simulated, wall time.Duration) {
	if deterministic() {
		t.Logf("arena: simulation (seed %d, deterministic): %s of simulated time", seed, simulated.Round(time.Millisecond))
		return
	}
	t.Logf("arena: simulation (seed %d): %s of simulated time in %s of wall time", seed, simulated.Round(time.Millisecond), wall.Round(time.Millisecond))
}
