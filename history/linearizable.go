package history

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/anishathalye/porcupine"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// Linearizable returns a check that the operations rec has recorded so far
// are linearizable against model m: that some order of them, one at a time,
// each between its invocation and its answer, gives every client the result
// it saw. It is porcupine's check (github.com/anishathalye/porcupine), run
// part by part when the model is partitioned, each part's sequential
// prefix (operations each answered before the next was invoked: they have
// one order) replayed rather than searched, under hard budgets of time
// (WithBudget) and memory (WithMemoryBudget):
//
//   - linearizable: the check passes;
//   - not linearizable: it fails with a *fault.Violation naming the part
//     (key), the longest linearizable prefix found, and the smallest
//     failing window: the first operation no order explains and the
//     operations in flight with it, each with its time (the report adds
//     the faults active then); porcupine's visualization of the part (from
//     a few operations before its search) is written to the report
//     directory (WithReportDir, $ARENA_REPORT_DIR)
//     and its path is in the violation (one file per part: a later run of
//     the check that finds the part at fault again rewrites it);
//   - out of either budget: it is undecided (fault.ErrUndecided: neither
//     passed nor failed), saying which budget, which parts it decided and
//     which not;
//   - the model's code panicked (any of its functions, on the check's
//     goroutine or porcupine's): it fails with the panic, naming the
//     function, and the run goes on;
//   - nothing recorded yet: not applicable.
//
// Failed operations did not happen and are left out; operations with an
// unknown outcome (or none yet) may have taken effect at any time after
// their invocation (see Model), or, with WithUnknownHorizon, within the
// horizon after they were given up on.
//
// A check runs after every recovery: each run goes on from what the last
// one settled (each part up to its latest point where nothing was in
// flight), reading only what was recorded since and searching only the
// parts it touched, with the verdicts of a check of the whole history
// (the details are in incremental.go). Runs of one check are serialized.
func Linearizable[T, S any](name string, rec *Recorder[T], m Model[T, S], opts ...CheckOption) fault.Check {
	if rec == nil {
		panic("arena: history.Linearizable: nil recorder")
	}
	if err := m.check(); err != nil {
		panic("arena: history.Linearizable: " + err.Error())
	}
	o := defaultCheckOptions(opts)
	if o.horizon > 0 {
		c := &linearizability[T, states[S]]{name: name, model: maybeModel(m, o.horizon), opts: o}
		return fault.Check{Name: name, Run: func(ctx context.Context) error { return c.check(ctx, rec) }}
	}
	c := &linearizability[T, S]{name: name, model: m, opts: o}
	return fault.Check{Name: name, Run: func(ctx context.Context) error { return c.check(ctx, rec) }}
}

type linearizability[T, S any] struct {
	name  string
	model Model[T, S]
	opts  checkOptions

	mu    sync.Mutex
	files map[string]string // part key → its visualization (explain.go)

	// run serializes the check's runs: each goes on from what the last
	// one settled (incremental.go).
	run sync.Mutex
	inc incremental[T, S]
	// settleIgnoresPending makes settling wrong, for the test that shows
	// a wrong settling is caught (TestIncrementalCatchesWrongSettling).
	settleIgnoresPending bool
}

// part is one independent part of a history (a key), in porcupine's terms.
type part[T any] struct {
	key     string
	src     []*Op[T] // in the check's snapshot, by invocation
	unknown int
	// How its search ended, for the reports.
	err        error // the model panicked checking it
	states     int   // states porcupine kept
	stateBytes int64 // each
}

// operations are the part's operations src[from:to] as porcupine takes
// them: the ids porcupine numbers them with are their indexes in src less
// from.
func (p *part[T]) operations(from, to int, end time.Duration) []porcupine.Operation {
	ops := make([]porcupine.Operation, to-from)
	for i, op := range p.src[from:to] {
		ret := op.Return
		if op.Status == Unknown {
			ret = end
		}
		ops[i] = porcupine.Operation{ClientId: int(op.Client), Input: op, Call: int64(op.Call), Return: int64(ret)}
	}
	return ops
}

// verdict of one part.
type verdict uint8

const (
	notStarted verdict = iota
	linearizable
	illegal
	outOfTime
	outOfMemory
	broken // the model panicked (part.err)
)

// parts splits h into the model's parts, in key order, leaving out failed
// operations and unknown ones that change nothing. Pending operations
// become Unknown (in h, the check's own snapshot): unknown operations stay
// open to the end of the history (part.operations).
func (c *linearizability[T, S]) parts(h History[T], g *guard) []*part[T] {
	byKey := map[string]*part[T]{}
	for i := range h.Ops {
		op := &h.Ops[i]
		c.bound(g, op)
		open := op.Status == Unknown || op.Status == Pending
		if op.Status == Failed || (open && c.model.ReadOnly != nil && c.model.readOnly(g, op.Value)) {
			continue
		}
		var key string
		if c.model.Partition != nil {
			key = c.model.partition(g, op.Value)
		}
		p := byKey[key]
		if p == nil {
			p = &part[T]{key: key}
			byKey[key] = p
		}
		if open {
			op.Status = Unknown
		}
		if open || op.maybe {
			p.unknown++
		}
		p.src = append(p.src, op)
	}
	out := make([]*part[T], 0, len(byKey))
	for _, p := range byKey {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *part[T]) int { return strings.Compare(a.key, b.key) })
	return out
}

// end is where operations with unknown outcomes end: after everything.
func end[T any](h History[T]) time.Duration { return h.Now + 1 }

// check runs the check on what rec recorded: from what its last run
// settled (incremental.go).
func (c *linearizability[T, S]) check(ctx context.Context, rec *Recorder[T]) error {
	c.run.Lock()
	defer c.run.Unlock()
	start := clock.Wall() // not time.Now: a bubble's clock stands still while a check computes
	b := &budget{deadline: start.Add(c.opts.budget), ctx: ctx, memory: c.opts.memory}
	return c.runIncremental(rec, b, start)
}

// whole checks all of h, from the start: what check did before it was
// incremental, and what explains a violation; the tests hold the two
// equal.
func (c *linearizability[T, S]) whole(ctx context.Context, h History[T]) error {
	start := clock.Wall()
	b := &budget{deadline: start.Add(c.opts.budget), ctx: ctx, memory: c.opts.memory}
	return c.checkWithin(h, b, start)
}

// checkWithin checks h within b.
func (c *linearizability[T, S]) checkWithin(h History[T], b *budget, start time.Time) error {
	// The snapshot, and each operation's place in its part.
	if n := int64(len(h.Ops)) * (int64(unsafe.Sizeof(Op[T]{})) + opBytes); !b.take(n) {
		return &outOfMemoryError{memory: b.memory, UndecidedError: fault.UndecidedError{Budget: c.opts.budget, Elapsed: clock.Wall().Sub(start),
			Progress: fmt.Sprintf("the history's %d operations alone take %s", len(h.Ops), bytesString(n))}}
	}
	g := &guard{}
	parts := c.parts(h, g)
	if err := g.err(); err != nil {
		return err
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: no operation recorded yet", fault.ErrNotApplicable)
	}
	verdicts := make([]verdict, len(parts))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(parts) {
					return
				}
				verdicts[i] = c.checkPart(h, parts[i], b)
			}
		})
	}
	wg.Wait()
	if i := slices.Index(verdicts, broken); i >= 0 {
		return fmt.Errorf("%s: %w", c.partName(parts[i]), parts[i].err)
	}
	if i := slices.Index(verdicts, illegal); i >= 0 {
		return c.violation(h, parts, verdicts, i, b)
	}
	if !slices.ContainsFunc(verdicts, func(v verdict) bool { return v != linearizable }) {
		return nil
	}
	u := fault.UndecidedError{Budget: c.opts.budget, Elapsed: clock.Wall().Sub(start), Progress: c.progress(parts, verdicts, h)}
	if slices.Contains(verdicts, outOfMemory) {
		return &outOfMemoryError{UndecidedError: u, memory: b.memory}
	}
	return &u
}

// checkPart checks one part within what is left of the budget: its
// sequential prefix by replaying it (replay), the rest with porcupine.
func (c *linearizability[T, S]) checkPart(h History[T], p *part[T], b *budget) verdict {
	if b.deadline.Sub(clock.Wall()) <= 0 || b.ctx.Err() != nil {
		return notStarted
	}
	g := &guard{b: b}
	defer g.release()
	k, state, failed := c.replay(p, g, len(p.src))
	switch {
	case g.err() != nil:
		p.err = g.err()
		return broken
	case g.stopped() == stoppedTime:
		return outOfTime
	case failed:
		return illegal
	case k == len(p.src):
		return linearizable
	}
	n := len(p.src) - k
	g.stateBytes = stateBytes[S](n)
	p.stateBytes = g.stateBytes
	if !g.take(searchBytesPerOp * int64(n)) {
		return outOfMemory
	}
	left := b.deadline.Sub(clock.Wall())
	if left <= 0 {
		return outOfTime
	}
	res := porcupine.CheckOperationsTimeout(c.model.porcupine(g, func() S { return state }), p.operations(k, len(p.src), end(h)), left)
	p.states = g.statesKept()
	if p.err = g.err(); p.err != nil {
		return broken
	}
	switch g.stopped() {
	case stoppedMemory:
		return outOfMemory
	case stoppedTime:
		return outOfTime
	}
	switch res {
	case porcupine.Ok:
		return linearizable
	case porcupine.Illegal:
		return illegal
	}
	return outOfTime
}

// replay steps the model through the part's sequential prefix, up to limit
// operations, and returns its length k, the state after it, and whether
// the operation after it failed its step.
//
// An operation answered (OK) before the next of the part was invoked
// comes, in any order that explains the part, after those before it and
// before those after it: the prefix of such operations has one order, so
// it takes no search, and the memory of porcupine's search (quadratic in
// the operations it searches) is spent on the rest only, from the state
// the prefix leaves. A part that is sequential to the end is decided
// here. An operation whose step fails in the prefix is one no order
// explains (failed). The guard stops a long replay at the deadline.
func (c *linearizability[T, S]) replay(p *part[T], g *guard, limit int) (k int, s S, failed bool) {
	s = c.model.init(g)
	for ; k < limit && g.stopped() == running; k++ {
		op := p.src[k]
		if op.Status != OK || k+1 < len(p.src) && p.src[k+1].Call <= op.Return {
			break
		}
		ok, next := c.model.step(g, s, *op)
		if !ok {
			return k, s, g.stopped() == running
		}
		s = next
		if k%1024 == 1023 && g.b.timeUp() {
			g.halt(stoppedTime)
		}
	}
	return k, s, false
}

// progress says how far an undecided check got.
func (c *linearizability[T, S]) progress(parts []*part[T], verdicts []verdict, h History[T]) string {
	var decided, decidedOps, total int
	var open []string
	for i, p := range parts {
		total += len(p.src)
		if verdicts[i] == linearizable {
			decided++
			decidedOps += len(p.src)
			continue
		}
		if len(open) < 5 {
			what := "out of time"
			switch {
			case verdicts[i] == notStarted:
				what = "not started"
			case verdicts[i] == outOfMemory && p.states == 0:
				what = "out of memory before its search"
			case verdicts[i] == outOfMemory:
				what = fmt.Sprintf("out of memory after %d states of %s", p.states, bytesString(p.stateBytes))
			}
			open = append(open, fmt.Sprintf("%s (%d operations, %d with unknown outcomes: %s)", c.partName(p), len(p.src), p.unknown, what))
		}
	}
	s := fmt.Sprintf("decided %d of %d operations (%d of %d parts) linearizable; undecided: %s",
		decidedOps, total, decided, len(parts), strings.Join(open, ", "))
	if n := len(parts) - decided - len(open); n > 0 {
		s += fmt.Sprintf(" and %d more parts", n)
	}
	if h.Cut > 0 {
		s += fmt.Sprintf("; the recorder was full: history cut at %s, %d operations left out", h.Cut, h.Dropped)
	}
	return s
}

// partName names a part in reports: "key k7", or "the history" when the
// model has no parts.
func (c *linearizability[T, S]) partName(p *part[T]) string {
	if c.model.Partition == nil {
		return "the history"
	}
	return fmt.Sprintf("key %q", p.key)
}
