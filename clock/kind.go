package clock

import (
	"time"

	"github.com/ares-arena/arena/internal/wasmguest"
)

// Kind names the clock a run played on. Every report carries it,
// because what a report can promise depends on it: only a virtual run is
// a function of its seed.
type Kind string

// The four clocks (see DESIGN §14 and §15).
const (
	// KindVirtual: arena's Virtual, for systems whose every
	// goroutine and timer arena controls (the fakes). A run takes no wall
	// time and the same seed gives the same report.
	KindVirtual Kind = "virtual"
	// KindSimulated: a testing/synctest bubble. The system's own code
	// runs unmodified on its own goroutines and timers, and time jumps
	// whenever every goroutine of the bubble is blocked: a simulated day
	// takes minutes. The schedule is a function of the seed; the outcome
	// may vary with the order the Go scheduler runs goroutines in.
	KindSimulated Kind = "simulated (synctest)"
	// KindDeterministic: a synctest bubble in a test binary built for
	// GOOS=wasip1 GOARCH=wasm and run by arena-wasm, which gives the
	// program every random bit and clock reading from the seed, on one
	// thread. The whole execution, goroutine order included, is then a
	// function of the command line and the seed, for one build.
	KindDeterministic Kind = "deterministic (wasip1)"
	// KindReal: the wall clock. The run takes as long as it says.
	KindReal Kind = "real"
)

// Deterministic reports whether a run on the clock is a function of its
// seed: the same seed, system and options give the same report (on a
// deterministic clock, under the same build and command line).
func (k Kind) Deterministic() bool { return k == KindVirtual || k == KindDeterministic }

// Bubbled reports whether a run on the clock plays in a synctest bubble:
// simulated or deterministic.
func (k Kind) Bubbled() bool { return k == KindSimulated || k == KindDeterministic }

// Time names the clock as reports print it: "virtual time", "simulated
// time (synctest)", "real time".
func (k Kind) Time() string {
	switch k {
	case KindSimulated:
		return "simulated time (synctest)"
	case KindDeterministic:
		return "deterministic simulated time (wasip1)"
	case "":
		return "real time"
	}
	return string(k) + " time"
}

// InBubble reports whether the calling goroutine runs inside a
// testing/synctest bubble. Package arena does not import testing: it
// compares time.Now, which a bubble fakes (its clock starts at midnight
// UTC, 2000-01-01, and moves only when the bubble is blocked), with the
// kernel's clock read by a system call, which no bubble fakes. The two are
// decades apart in a bubble and within a leap second outside one.
func InBubble() bool {
	d := time.Now().Sub(Wall())
	return d < -fakeClockGap || d > fakeClockGap
}

// fakeClockGap is the difference between time.Now and the kernel's clock
// past which time.Now is a bubble's fake clock: a simulated run would
// have to last years to come closer.
const fakeClockGap = 24 * time.Hour

// KindOf is the kind of a run's clock: virtual for a Virtual,
// simulated inside a bubble (deterministic when arena-wasm runs the
// program), real otherwise.
func KindOf(c Clock) Kind {
	if _, ok := c.(*Virtual); ok {
		return KindVirtual
	}
	if InBubble() {
		if wasmguest.Active() {
			return KindDeterministic
		}
		return KindSimulated
	}
	return KindReal
}

// VirtualSystem is implemented by a runtime whose whole system arena can
// run in virtual time: every goroutine and timer of it follows the
// *Virtual that Virtual returns, and moves only when that clock
// does (fakes.Cluster, which evaluates its scheduled transitions lazily
// against it). arenatest runs such a runtime on its clock.
//
// A system with goroutines and timers of its own (a Raft library, an HTTP
// server, a client with retries) must not implement it: its code reads
// the wall clock and sleeps on real timers, so on a Virtual arena
// would score a system that does not follow the clock (an A+ for a
// latency that broke it, an F for a kill it survived). Run such a system
// in simulated time (arenatest.Simulate with package sim), or in real
// time. A runtime that has a Clock method returning a *Virtual but
// is no VirtualSystem is refused by arenatest with that advice.
type VirtualSystem interface {
	VirtualClock() *Virtual
}
