package history

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/anishathalye/porcupine"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// budget is what one run of a linearizability check may spend, shared by
// the parts it searches at once: a deadline on the system's wall clock and
// an account of the memory it holds.
//
// Porcupine has a timeout only. For every state it keeps it keeps a bitset
// of one bit per operation of the part, so a long part takes memory
// quadratic in its length (100,000 operations one after another: 1.4 GiB).
// The check counts what it and porcupine hold, by the sizes below, and
// stops a search (a failed step ends it at once) before the count would
// pass the budget. The count is an estimate from porcupine's source
// (v1.3.1), each allocation rounded up to Go's size classes (at most 1/8
// more); garbage the search leaves behind (states it found it already had)
// is not counted, and the Go heap may exceed the count by the collector's
// headroom (GOGC) until it runs: a search that follows another may
// allocate its budget while the other's is still garbage.
type budget struct {
	deadline time.Time
	ctx      context.Context
	memory   int64        // bytes
	held     atomic.Int64 // bytes taken and not yet given back
	peak     atomic.Int64 // the most held at once
}

// Bytes, for the budget's count:
const (
	// opBytes: per operation of the history, past its copy in the check's
	// snapshot (unsafe.Sizeof(Op[T])), its place in its part (a pointer,
	// in a slice grown by appending).
	opBytes = 2 * 8
	// searchBytesPerOp: per operation of a part being searched, the
	// porcupine.Operation the check hands porcupine, porcupine's two
	// entries (64 each, in a slice grown by appending: up to twice that
	// while it grows), its two list nodes (48 each) and a slot of its
	// table of longest prefixes (8).
	searchBytesPerOp = int64(unsafe.Sizeof(porcupine.Operation{})) + 2*2*64 + 2*48 + 8
	// stateOverhead: per state porcupine keeps, past the bitset and the
	// state: its cache entry (40, 48 allocated), its slot in the cache's
	// map (32, up to twice that with the map's slack) and its frame on the
	// search's stack (24, up to twice with the slice's slack).
	stateOverhead = 48 + 2*32 + 2*24
)

// stateBytes is what porcupine keeps per state of a part of ops operations
// whose states are of type S: a bitset of ops bits, the state (boxed),
// stateOverhead.
func stateBytes[S any](ops int) int64 {
	words := int64(ops+63) / 64
	return allocated(8*words) + allocated(int64(unsafe.Sizeof(*new(S)))) + stateOverhead
}

// allocated rounds n up as Go's allocator may: to 16 bytes, then by up to
// 1/8 (its size classes are at most that far apart).
func allocated(n int64) int64 {
	n = (n + 15) &^ 15
	return n + n/8
}

// take charges n bytes, or takes nothing and says false if they would pass
// the budget.
func (b *budget) take(n int64) bool {
	for {
		held := b.held.Load()
		if held+n > b.memory {
			return false
		}
		if b.held.CompareAndSwap(held, held+n) {
			for peak := b.peak.Load(); held+n > peak && !b.peak.CompareAndSwap(peak, held+n); peak = b.peak.Load() {
			}
			return true
		}
	}
}

// give returns n bytes taken.
func (b *budget) give(n int64) { b.held.Add(-n) }

// timeUp says whether the deadline has passed or the run was cancelled.
func (b *budget) timeUp() bool { return clock.Wall().After(b.deadline) || b.ctx.Err() != nil }

// outOfMemoryError is a check's error when it spent its memory budget:
// undecided, as out of time (errors.Is gives fault.ErrUndecided and
// errors.As the *fault.UndecidedError), its message naming the budget.
type outOfMemoryError struct {
	fault.UndecidedError
	memory int64
}

func (e *outOfMemoryError) Error() string {
	return fmt.Sprintf("undecided within its %s memory budget: %s", bytesString(e.memory), e.Progress)
}

func (e *outOfMemoryError) Unwrap() error { return &e.UndecidedError }

// bytesString says n bytes as "256 MiB", "12.4 KiB", "80 B".
func bytesString(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n)/unit, 0
	for ; f >= unit && i < 3; i++ {
		f /= unit
	}
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s + " " + [...]string{"KiB", "MiB", "GiB", "TiB"}[i]
}

// Why a guard stopped.
const (
	running int32 = iota
	stoppedTime
	stoppedMemory
	stoppedPanic
)

// guard runs the model's code for the check: every call the check or
// porcupine makes of it goes through one (Model.init, step, ...). A panic
// of the model's code is caught and kept (err), whatever the goroutine
// (porcupine calls the model on goroutines of its own, where a panic would
// end the process), and the function gives its zero result.
//
// A guard with a budget (b) also stops porcupine's search of one part: at
// the deadline, read from the system's wall clock every 256 steps
// (porcupine's own timer does the same outside testing/synctest bubbles;
// inside one it is on the bubble's clock, which stands still while the
// check computes), and before the states porcupine keeps would pass the
// memory budget. A stopped guard fails every step, which makes porcupine
// backtrack to the end at once.
type guard struct {
	b          *budget // nil: nothing to stop, panics to catch only
	stateBytes int64   // per state porcupine keeps (stateBytes)
	// kept is the state the last successful step returned. Porcupine
	// keeps it unless it already had it, and when it keeps it its next
	// step starts from it (the first operation left is a call): that is
	// how the guard counts states kept. States are pointers (Model.
	// porcupine), so that two are the same only if they are one.
	kept     any
	n        uint32
	why      atomic.Int32 // running, or why it stopped
	panicked atomic.Pointer[error]

	// Porcupine's goroutine outlives its call when porcupine's timer
	// ends the search (it stops at its next step): what it shares with
	// the check's goroutine is under mu.
	mu     sync.Mutex
	held   int64 // bytes this guard took from b
	states int   // states porcupine kept
	done   bool  // released: nothing more is taken
}

// catch, deferred around a call of the model's function fn, turns a panic
// into the guard's error and stops it; the function returns its zero
// values (named results).
func (g *guard) catch(fn string) {
	if p := recover(); p != nil {
		err := fmt.Errorf("the model panicked (in %s): %v", fn, p)
		g.panicked.CompareAndSwap(nil, &err)
		g.halt(stoppedPanic)
	}
}

// halt stops the guard, keeping the first reason.
func (g *guard) halt(why int32) { g.why.CompareAndSwap(running, why) }

// stopped says why the guard stopped (running: it did not).
func (g *guard) stopped() int32 { return g.why.Load() }

// err is the model's first panic, if any.
func (g *guard) err() error {
	if p := g.panicked.Load(); p != nil {
		return *p
	}
	return nil
}

// take charges n bytes to the budget for this guard.
func (g *guard) take(n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done || !g.b.take(n) {
		return false
	}
	g.held += n
	return true
}

// keep charges a state porcupine kept.
func (g *guard) keep() bool {
	if !g.take(g.stateBytes) {
		return false
	}
	g.mu.Lock()
	g.states++
	g.mu.Unlock()
	return true
}

// statesKept is how many states porcupine kept.
func (g *guard) statesKept() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.states
}

// release gives back everything the guard took: the search is over and
// what porcupine kept is garbage.
func (g *guard) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done = true
	g.b.give(g.held)
	g.held = 0
}

// stop, called by porcupine's goroutine before each step from state, says
// whether the search must stop.
func (g *guard) stop(state any) bool {
	if g.stopped() != running {
		return true
	}
	if g.b == nil {
		return false
	}
	if g.kept != nil && state == g.kept && !g.keep() {
		g.halt(stoppedMemory)
		return true
	}
	g.kept = nil
	if g.n++; g.n%256 == 0 && g.b.timeUp() {
		g.halt(stoppedTime)
		return true
	}
	return false
}
