package arenatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/sim"
)

var simulateOptions = []string{"WithSeed", "WithWatchdog"}

// simulation is what Run and Survive find when they are called inside
// Simulate: the world, which is their default system, and its seed.
type simulation struct {
	world *sim.World
	seed  uint64
}

// simulations maps the bubble's *testing.T to its simulation.
var simulations sync.Map

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
// The seed is the override (-arena.seed, ARENA_SEED), else WithSeed, else
// drawn; it seeds the world (each node's Rand, the faults' draws) and every
// run inside, and a failure prints it with the command that replays the
// same schedule.
//
// When f returns (or fails the test), Simulate lifts what faults are left
// (the runs' own cleanup), closes the world (every node's Stop hook, every
// connection and listener), and gives the system's goroutines a simulated
// minute to return. Those that do not are named in the failure, with what
// they wait on and who started them, instead of synctest's bare deadlock
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
// Simulate needs a *testing.T: synctest does not run under Ginkgo.
func Simulate(t *testing.T, f func(t *testing.T, w *sim.World), opts ...Option) {
	t.Helper()
	o, err := collect("Simulate", simulateOptions, opts)
	if err != nil {
		stop[struct{}](t, "Simulate", err)
		return
	}
	seed, err := seedFor(o, 0)
	if err != nil {
		stop[struct{}](t, "Simulate", err)
		return
	}
	limit := defaultWatchdog
	if o.watchdog != nil {
		limit = *o.watchdog
	}
	var bubble atomic.Int64
	var reported atomic.Bool // leftovers named inside: synctest's panic that follows says no more
	wd := startWatchdog(t.Name(), &bubble, limit)
	defer wd.stop()
	wallStart := time.Now()
	var simulated time.Duration
	defer func() {
		p := recover()
		if p != nil {
			msg := fmt.Sprint(p)
			if !strings.HasPrefix(msg, "deadlock: ") {
				panic(p)
			}
			if !reported.Load() { // f itself is blocked for good
				t.Errorf("arena: simulation: every goroutine of the bubble is blocked for good (%s):\n%s\nseed: %d",
					msg, namesOf(int(bubble.Load()), 0), seed)
			}
		}
		t.Logf("arena: simulation (seed %d): %s of simulated time in %s of wall time", seed, simulated.Round(time.Millisecond), time.Since(wallStart).Round(time.Millisecond))
		if t.Failed() {
			cmds := rerun(t, seed)
			t.Logf("arena: replay the same schedule: %s\n                              or: %s", cmds[0], cmds[1])
		}
	}()
	synctest.Test(t, func(t *testing.T) {
		id, b := self()
		bubble.Store(int64(b))
		w := sim.New(sim.WithSeed(seed))
		start := time.Now()
		simulations.Store(t, &simulation{world: w, seed: seed})
		// At t's cleanup, after the runs' own (rollbackAtCleanup, made
		// later, runs first): close the world, wait for its goroutines.
		t.Cleanup(func() {
			defer simulations.Delete(t)
			if err := w.Close(context.Background()); err != nil {
				t.Errorf("arena: simulation: closing the world: %v", err)
			}
			if left := settle(b, id); left != "" {
				reported.Store(true)
				t.Errorf("arena: simulation: goroutines still running a simulated minute after the world closed:\n%s\n"+
					"fix: stop them in the node's Stop hook (sim.NodeConfig.Stop), or make them return when their connection closes or their context ends\nseed: %d", left, seed)
			}
			simulated = time.Since(start)
		})
		f(t, w)
	})
}

// settle waits, in simulated time, up to a minute for the goroutines of
// the bubble other than self (and the testing package's) to return, and
// names those that remain ("" when none does).
func settle(bubble, self int) string {
	for range 60 {
		synctest.Wait()
		if len(leftovers(bubble, self)) == 0 {
			return ""
		}
		time.Sleep(time.Second)
	}
	synctest.Wait()
	return namesOf(bubble, self)
}

// leftovers returns the goroutines of the bubble but self and the
// testing package's own.
func leftovers(bubble, self int) []goroutine {
	var out []goroutine
	for _, g := range goroutines(dumpAll()) {
		if g.bubble != bubble || g.id == self || g.createdBy == "testing/synctest.Test" || strings.HasPrefix(g.state, "synctest.Run") {
			// the bubble's root and the goroutine that waits on it
			continue
		}
		out = append(out, g)
	}
	return out
}

// namesOf lists the bubble's goroutines but self, one a line, at most 20.
func namesOf(bubble, self int) string {
	var b strings.Builder
	gs := leftovers(bubble, self)
	for i, g := range gs {
		if i == 20 {
			fmt.Fprintf(&b, "  … and %d more\n", len(gs)-20)
			break
		}
		fmt.Fprintf(&b, "  - %s\n", g.name())
	}
	return strings.TrimSuffix(b.String(), "\n")
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
