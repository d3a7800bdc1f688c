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

	"github.com/anishathalye/porcupine"

	"github.com/ares-arena/arena"
)

// Linearizable returns a check that the operations rec has recorded so far
// are linearizable against model m: that some order of them, one at a time,
// each between its invocation and its answer, gives every client the result
// it saw. It is porcupine's check (github.com/anishathalye/porcupine), run
// part by part when the model is partitioned, under a hard budget
// (WithBudget):
//
//   - linearizable: the check passes;
//   - not linearizable: it fails with an *arena.Violation naming the part
//     (key), the longest linearizable prefix porcupine found, and the
//     smallest failing window: the first operation no order explains and
//     the operations in flight with it, each with its time (the report adds
//     the faults active then); porcupine's visualization of the part is
//     written to the report directory (WithReportDir, $ARENA_REPORT_DIR)
//     and its path is in the violation (one file per part: a later run of
//     the check that finds the part at fault again rewrites it);
//   - out of budget: it is undecided (arena.ErrUndecided: neither passed
//     nor failed), saying which parts it decided and which not;
//   - the model's code panicked: it fails with the panic, and the run goes
//     on (porcupine calls the model on goroutines of its own);
//   - nothing recorded yet: not applicable.
//
// Failed operations did not happen and are left out; operations with an
// unknown outcome (or none yet) may have taken effect at any time after
// their invocation (see Model).
func Linearizable[T, S any](name string, rec *Recorder[T], m Model[T, S], opts ...CheckOption) arena.Check {
	if rec == nil {
		panic("arena: history.Linearizable: nil recorder")
	}
	if err := m.check(); err != nil {
		panic("arena: history.Linearizable: " + err.Error())
	}
	c := &linearizability[T, S]{name: name, model: m, opts: defaultCheckOptions(opts)}
	return arena.Check{Name: name, Run: func(ctx context.Context) error { return c.check(ctx, rec.History()) }}
}

type linearizability[T, S any] struct {
	name  string
	model Model[T, S]
	opts  checkOptions

	mu    sync.Mutex
	files map[string]string // part key → its visualization (explain.go)
}

// part is one independent part of a history (a key), in porcupine's terms.
type part[T any] struct {
	key     string
	ops     []porcupine.Operation // Metadata: the index in src
	src     []Op[T]
	unknown int
	err     error // the model panicked checking it
}

// verdict of one part.
type verdict uint8

const (
	notStarted verdict = iota
	linearizable
	illegal
	outOfTime
	broken // the model panicked (stepGuard.err)
)

// parts splits h into the model's parts, in key order, leaving out failed
// operations and unknown ones that change nothing. Unknown and pending
// operations stay open to the end of the history.
func (c *linearizability[T, S]) parts(h History[T]) []*part[T] {
	byKey := map[string]*part[T]{}
	end := int64(h.Now) + 1
	for _, op := range h.Ops {
		open := op.Status == Unknown || op.Status == Pending
		if op.Status == Failed || (open && c.model.ReadOnly != nil && c.model.ReadOnly(op.Value)) {
			continue
		}
		var key string
		if c.model.Partition != nil {
			key = c.model.Partition(op.Value)
		}
		p := byKey[key]
		if p == nil {
			p = &part[T]{key: key}
			byKey[key] = p
		}
		ret := int64(op.Return)
		if open {
			op.Status, ret = Unknown, end
			p.unknown++
		}
		p.ops = append(p.ops, porcupine.Operation{ClientId: int(op.Client), Input: op, Call: int64(op.Call), Return: ret, Metadata: len(p.src)})
		p.src = append(p.src, op)
	}
	out := make([]*part[T], 0, len(byKey))
	for _, p := range byKey {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *part[T]) int { return strings.Compare(a.key, b.key) })
	return out
}

func (c *linearizability[T, S]) check(ctx context.Context, h History[T]) error {
	start := wallNow()
	deadline := start + int64(c.opts.budget)
	parts := c.parts(h)
	if len(parts) == 0 {
		return fmt.Errorf("%w: no operation recorded yet", arena.ErrNotApplicable)
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
				verdicts[i] = c.checkPart(ctx, parts[i], deadline)
			}
		})
	}
	wg.Wait()
	if i := slices.Index(verdicts, broken); i >= 0 {
		return fmt.Errorf("%s: %w", c.partName(parts[i]), parts[i].err)
	}
	if i := slices.Index(verdicts, illegal); i >= 0 {
		return c.violation(ctx, h, parts, verdicts, i, deadline)
	}
	if slices.ContainsFunc(verdicts, func(v verdict) bool { return v != linearizable }) {
		return &arena.UndecidedError{Budget: c.opts.budget, Elapsed: time.Duration(wallNow() - start), Progress: c.progress(parts, verdicts, h)}
	}
	return nil
}

// checkPart checks one part within what is left of the budget.
func (c *linearizability[T, S]) checkPart(ctx context.Context, p *part[T], deadline int64) verdict {
	left := time.Duration(deadline - wallNow())
	if left <= 0 || ctx.Err() != nil {
		return notStarted
	}
	guard := &stepGuard{deadline: deadline, ctx: ctx}
	res := porcupine.CheckOperationsTimeout(c.model.porcupine(guard), p.ops, left)
	if p.err = guard.err(); p.err != nil {
		return broken
	}
	switch res {
	case porcupine.Ok:
		return linearizable
	case porcupine.Illegal:
		if !guard.stopped.Load() {
			return illegal
		}
	}
	return outOfTime
}

// progress says how far an undecided check got.
func (c *linearizability[T, S]) progress(parts []*part[T], verdicts []verdict, h History[T]) string {
	var decided, decidedOps, total int
	var open []string
	for i, p := range parts {
		total += len(p.ops)
		if verdicts[i] == linearizable {
			decided++
			decidedOps += len(p.ops)
			continue
		}
		if len(open) < 5 {
			what := "out of time"
			if verdicts[i] == notStarted {
				what = "not started"
			}
			open = append(open, fmt.Sprintf("%s (%d operations, %d with unknown outcomes: %s)", c.partName(p), len(p.ops), p.unknown, what))
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

// stepGuard stops a porcupine search at the deadline, read from the
// system's wall clock every 256 steps: a failed step makes porcupine
// backtrack to the end at once. Porcupine's own timer does the same outside
// testing/synctest bubbles; inside one that timer is on the bubble's clock,
// which stands still while the check computes.
type stepGuard struct {
	deadline int64
	ctx      context.Context
	n        uint32
	stopped  atomic.Bool
	panicked atomic.Pointer[error] // the model's first panic
}

// catch, deferred around porcupine's call of the model's code (fn: Step,
// Equal, Hash), turns a panic into the guard's error and stops the search;
// result sets what the call returns instead.
func (g *stepGuard) catch(fn string, result func()) {
	if p := recover(); p != nil {
		err := fmt.Errorf("the model panicked (in %s): %v", fn, p)
		g.panicked.CompareAndSwap(nil, &err)
		g.stopped.Store(true)
		result()
	}
}

// err is the model's first panic, if any.
func (g *stepGuard) err() error {
	if p := g.panicked.Load(); p != nil {
		return *p
	}
	return nil
}

func (g *stepGuard) stop() bool {
	if g.stopped.Load() {
		return true
	}
	if g.n++; g.n%256 == 0 && (wallNow() > g.deadline || g.ctx.Err() != nil) {
		g.stopped.Store(true)
		return true
	}
	return false
}
