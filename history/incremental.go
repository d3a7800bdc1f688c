package history

import (
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

// A check runs after every recovery. Checked from the start each time, a
// run of n operations and c checks costs c times n: in a simulated hour of
// raft (40,953 operations, 359 checks) that was 80% of the wall time. So a
// check carries, from one run to the next, what it settled, and looks at
// what is new.
//
// # Settled
//
// A part (key) is settled up to a quiescent cut: a point that every
// operation answered (OK) before it was invoked before it and answered
// before it, and that no operation without an outcome (pending) was
// invoked before. Every order that explains the part puts what came
// before the cut first, so the part is linearizable if and only if some
// state that an order of the operations before the cut reaches explains
// what comes after. An operation with an unknown outcome invoked before
// the cut may take effect after it: it is carried past the cut until an
// order takes it before.
//
// # Carried: one witness
//
// What a part carries is one such state (a witness), the unknown
// operations its order did not take, and the operations since the cut:
// not every state the operations before the cut could reach (with
// unknown outcomes, and overlapping operations, they are exponentially
// many). The witness comes from porcupine's own search: a sentinel
// operation placed at the cut records the state its successful order
// passed through. The verdicts are those of a check of the whole history:
//
//   - the part is linearizable from its witness: the witness's order,
//     then the order found from it, explains the whole part;
//   - it is not: the witness may be the wrong guess, so the part is
//     checked again from the start of the history (the recorder keeps
//     every operation), which gives porcupine's verdict on the whole part
//     and, when it is linearizable, a new witness. A part that is not
//     linearizable is explained as before (explain.go), from a snapshot
//     of the whole history.
//
// The sentinel takes no state in which an unknown operation was the last
// taken before it: an unknown operation taken there may as well be taken
// after the cut, where it stays possible, so the witness takes unknown
// operations only where what was answered after them needs them, and a
// later operation that shows one took effect late finds it still carried.
//
// Under a horizon (WithUnknownHorizon, horizon.go) nothing is carried:
// each operation given up on is closed at its horizon when it is read, an
// answered one that may not have happened, and a cut waits for its
// horizon like any answer (cutOf). The witness is then a set of states.
//
// # Cost and memory
//
// A run reads from the recorder what is new (Recorder.next), and searches
// only the parts it touched: their operations since the cut, the unknown
// ones carried, from the witness. It holds, between runs, a copy of the
// operations since each part's cut and of those carried, and one state
// per part; the memory budget (WithMemoryBudget) counts them at the start
// of each run. A part whose cut cannot move (an operation pending for
// ever) costs its operations since the cut at each run, as a whole check
// did.
type incremental[T, S any] struct {
	cur     cursor
	parts   map[string]*ipart[T, S]
	pending map[opRef]pendingOp[T, S]
}

type pendingOp[T, S any] struct {
	op *Op[T]
	p  *ipart[T, S]
}

// ipart is what a check carries of one part.
type ipart[T, S any] struct {
	key     string
	state   S             // the witness: the state after the operations before the cut
	since   time.Duration // the cut: operations invoked before it are settled
	carried []*Op[T]      // unknown outcomes invoked before the cut, not taken by the witness
	ops     []*Op[T]      // invoked at or after the cut, by Call
	settled int           // operations settled (taken by the witness)
	verdict verdict       // of the last run
	dirty   bool          // operations added or answered since the last run
	// For the reports, of the last search.
	err        error
	states     int
	stateBytes int64
}

// runIncremental is one run of the check on what rec recorded.
func (c *linearizability[T, S]) runIncremental(rec *Recorder[T], b *budget, start time.Time) error {
	inc := &c.inc
	if inc.parts == nil {
		inc.parts = map[string]*ipart[T, S]{}
		inc.pending = map[opRef]pendingOp[T, S]{}
	}
	d := rec.next(&inc.cur)
	if err := c.apply(d); err != nil {
		return err
	}
	held, settled := 0, 0
	for _, p := range inc.parts {
		held += len(p.ops) + len(p.carried)
		settled += p.settled
	}
	if n := int64(held) * (int64(unsafe.Sizeof(Op[T]{})) + opBytes); !b.take(n) {
		what := fmt.Sprintf("the history's %d operations alone take %s", held, bytesString(n))
		if settled > 0 {
			what = fmt.Sprintf("the %d operations since the parts' settled points (%d settled before) alone take %s", held, settled, bytesString(n))
		}
		return &outOfMemoryError{memory: b.memory, UndecidedError: fault.UndecidedError{Budget: c.opts.budget, Elapsed: clock.Wall().Sub(start), Progress: what}}
	}
	keys := make([]string, 0, len(inc.parts))
	any := false
	g := &guard{}
	for k, p := range inc.parts {
		keys = append(keys, k)
		any = any || p.settled > 0 || len(p.carried) > 0 || slices.ContainsFunc(p.ops, func(op *Op[T]) bool { return c.live(g, op) })
	}
	if err := g.err(); err != nil {
		return err
	}
	if !any {
		return fmt.Errorf("%w: no operation recorded yet", fault.ErrNotApplicable)
	}
	slices.Sort(keys)
	var todo []*ipart[T, S]
	for _, k := range keys {
		if p := inc.parts[k]; p.dirty || p.verdict != linearizable {
			todo = append(todo, p)
		}
	}
	c.each(todo, func(p *ipart[T, S]) {
		p.verdict = c.advance(p, p.state, p.carried, p.ops, d.now, b)
		p.dirty = p.verdict != linearizable
	})
	var wrong []*ipart[T, S]
	for _, p := range todo {
		switch p.verdict {
		case broken:
			return fmt.Errorf("%s: %w", c.keyName(p.key), p.err)
		case illegal:
			wrong = append(wrong, p)
		}
	}
	if len(wrong) > 0 {
		if err := c.recheck(rec, wrong, d.now, b); err != nil {
			return err
		}
	}
	parts := make([]*ipart[T, S], len(keys))
	for i, k := range keys {
		parts[i] = inc.parts[k]
	}
	if !slices.ContainsFunc(parts, func(p *ipart[T, S]) bool { return p.verdict != linearizable }) {
		return nil
	}
	u := fault.UndecidedError{Budget: c.opts.budget, Elapsed: clock.Wall().Sub(start), Progress: c.incProgress(parts, d)}
	if slices.ContainsFunc(parts, func(p *ipart[T, S]) bool { return p.verdict == outOfMemory }) {
		return &outOfMemoryError{UndecidedError: u, memory: b.memory}
	}
	return &u
}

// apply adds what the recorder read to the parts.
func (c *linearizability[T, S]) apply(d delta[T]) error {
	inc := &c.inc
	g := &guard{}
	added := d.added
	for i := range added {
		// Each operation in its own allocation: one that a part keeps
		// (pending, carried) keeps only itself alive, not the whole read,
		// so what the budget counts (held) is what is held.
		op := new(Op[T])
		*op = added[i]
		c.bound(g, op)
		var key string
		if c.model.Partition != nil {
			key = c.model.partition(g, op.Value)
		}
		if err := g.err(); err != nil {
			return err
		}
		p := inc.parts[key]
		if p == nil {
			ig := &guard{}
			p = &ipart[T, S]{key: key, state: c.model.init(ig), verdict: linearizable}
			if err := ig.err(); err != nil {
				return fmt.Errorf("%s: %w", c.keyName(key), err)
			}
			inc.parts[key] = p
		}
		p.ops = append(p.ops, op)
		p.dirty = true
		if op.Status == Pending {
			inc.pending[d.addRefs[i]] = pendingOp[T, S]{op, p}
		}
		c.live(g, op) // a ReadOnly that panics fails the check here, as it did the whole check
	}
	for i, ref := range d.doneRef {
		if po, ok := inc.pending[ref]; ok {
			*po.op = d.done[i]
			c.bound(g, po.op)
			po.p.dirty = true
			delete(inc.pending, ref)
			c.live(g, po.op)
		}
	}
	return g.err()
}

// live says whether op is one the search takes: not failed, and not an
// unknown (or pending) one that changes nothing.
func (c *linearizability[T, S]) live(g *guard, op *Op[T]) bool {
	switch op.Status {
	case Failed:
		return false
	case Unknown, Pending:
		return c.model.ReadOnly == nil || !c.model.readOnly(g, op.Value)
	}
	return true
}

// each runs f on the parts, on as many goroutines as there are processors.
func (c *linearizability[T, S]) each(parts []*ipart[T, S], f func(*ipart[T, S])) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(parts) {
					return
				}
				f(parts[i])
			}
		})
	}
	wg.Wait()
}

// cutOf returns where the latest quiescent cut of ops (by Call) is: the
// number of operations before it. Operations before it all have an
// outcome, and those answered were answered before the next one was
// invoked. A cut after them all (at now+1) waits until every answer is
// in the past: one closed at its horizon is answered later than now.
func (c *linearizability[T, S]) cutOf(ops []*Op[T], now time.Duration) int {
	j := 0
	var answered time.Duration // the latest answer so far
	for i, op := range ops {
		if i > 0 && op.Call > answered {
			j = i
		}
		switch op.Status {
		case Pending:
			if !c.settleIgnoresPending {
				return j
			}
		case OK:
			answered = max(answered, op.Return)
		}
	}
	if answered > now {
		return j
	}
	return len(ops)
}

// searchOp is an operation as porcupine takes it in a search: a recorded
// one, or the sentinel at the cut (op nil).
type searchOp[T any] struct{ op *Op[T] }

// wstate is a state of the search: the model's, with the unknown
// operations its order took (what the cut carries on depends on them), and
// whether the last operation it took had an unknown outcome. Equal and
// Hash leave taken out: porcupine compares states of one set of
// operations taken, so they took the same unknown ones.
type wstate[T, S any] struct {
	s     S
	taken *takenOp[T]
	tail  bool
}

type takenOp[T any] struct {
	op   *Op[T]
	next *takenOp[T]
}

// advance checks part p from state init, with the unknown operations
// carried, on ops (by Call): the operations since its cut. Linearizable,
// it moves p's cut to the latest one of ops, with the witness there.
func (c *linearizability[T, S]) advance(p *ipart[T, S], init S, carried, ops []*Op[T], now time.Duration, b *budget) verdict {
	if b.deadline.Sub(clock.Wall()) <= 0 || b.ctx.Err() != nil {
		return notStarted
	}
	g := &guard{b: b}
	defer g.release()
	j := c.cutOf(ops, now)
	live := make([]*Op[T], 0, len(ops))
	liveBefore := 0
	for i, op := range ops {
		if c.live(g, op) {
			live = append(live, op)
			if i < j {
				liveBefore++
			}
		}
	}
	if g.err() != nil {
		p.err = g.err()
		return broken
	}
	// The sequential prefix (see replay), when nothing is carried: up to
	// the cut, one order.
	state, k := init, 0
	if len(carried) == 0 {
		for ; k < liveBefore && g.stopped() == running; k++ {
			op := live[k]
			if op.Status != OK || k+1 < len(live) && live[k+1].Call <= op.Return {
				break
			}
			ok, next := c.model.step(g, state, *op)
			if !ok {
				if g.err() != nil {
					p.err = g.err()
					return broken
				}
				return illegal
			}
			state = next
			if k%1024 == 1023 && g.b.timeUp() {
				g.halt(stoppedTime)
			}
		}
	}
	switch {
	case g.err() != nil:
		p.err = g.err()
		return broken
	case g.stopped() == stoppedTime:
		return outOfTime
	}
	commit := func(w S, taken map[*Op[T]]bool) {
		next := slices.DeleteFunc(slices.Clone(carried), func(op *Op[T]) bool { return taken[op] })
		for _, op := range live[:liveBefore] {
			if op.Status == Unknown && !taken[op] && !slices.Contains(next, op) {
				next = append(next, op)
			}
		}
		p.state, p.carried = w, next
		p.settled += liveBefore
		if j < len(ops) {
			p.since = ops[j].Call
		} else {
			p.since = now + 1
		}
		p.ops = slices.Clone(ops[j:])
	}
	rest := live[k:]
	if len(rest) == 0 && len(carried) == 0 {
		commit(state, nil)
		return linearizable
	}
	// Porcupine on the rest, with the carried, and the sentinel at the cut
	// when operations before it are searched. Times are scaled by 4 to
	// make room for the sentinel between two stamps.
	sentinel := liveBefore > k
	n := len(rest) + len(carried)
	if sentinel {
		n++
	}
	g.stateBytes = stateBytes[wstate[T, S]](n)
	p.stateBytes = g.stateBytes
	if !g.take(searchBytesPerOp * int64(n)) {
		return outOfMemory
	}
	end := 4*int64(now) + 8
	sops := make([]porcupine.Operation, 0, n)
	unknown := make([]Op[T], 0, len(rest)) // pending operations, as unknown ones
	add := func(op *Op[T]) {
		ret := 4 * int64(op.Return)
		if op.Status != OK {
			if op.Status == Pending {
				unknown = append(unknown, *op)
				u := &unknown[len(unknown)-1]
				u.Status = Unknown
				op = u
			}
			ret = end
		}
		sops = append(sops, porcupine.Operation{ClientId: int(op.Client), Input: searchOp[T]{op}, Call: 4 * int64(op.Call), Return: ret})
	}
	for _, op := range carried {
		add(op)
	}
	for _, op := range rest {
		add(op)
	}
	var witness *wstate[T, S]
	if sentinel {
		at := 4*int64(now) + 1
		if j < len(ops) {
			at = 4*int64(ops[j].Call) - 2
		}
		sops = append(sops, porcupine.Operation{ClientId: -1, Input: searchOp[T]{}, Call: at, Return: at + 1})
	}
	left := b.deadline.Sub(clock.Wall())
	if left <= 0 {
		return outOfTime
	}
	res := porcupine.CheckOperationsTimeout(c.searchModel(g, state, &witness), sops, left)
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
		if sentinel {
			taken := map[*Op[T]]bool{}
			for t := witness.taken; t != nil; t = t.next {
				taken[t.op] = true
			}
			commit(witness.s, taken)
		} else {
			commit(state, nil)
		}
		return linearizable
	case porcupine.Illegal:
		return illegal
	}
	return outOfTime
}

// searchModel is the model in porcupine's terms for advance: states are
// *wstate, the sentinel records the state it is taken from (witness).
// Porcupine takes the sentinel last, on the order it succeeds with, after
// any it backtracked from: the last one recorded is on that order.
func (c *linearizability[T, S]) searchModel(g *guard, init S, witness **wstate[T, S]) porcupine.Model {
	m := c.model
	pm := porcupine.Model{
		Init: func() any { return &wstate[T, S]{s: init} },
		Step: func(state, input, _ any) (bool, any) {
			if g.stop(state) {
				return false, state
			}
			st, in := state.(*wstate[T, S]), input.(searchOp[T])
			if in.op == nil {
				if st.tail {
					return false, state
				}
				*witness = st
				next := *st
				g.kept = &next
				return true, g.kept
			}
			ok, s := m.step(g, st.s, *in.op)
			if !ok {
				return false, state
			}
			next := &wstate[T, S]{s: s, taken: st.taken, tail: in.op.Status != OK}
			if next.tail {
				next.taken = &takenOp[T]{in.op, st.taken}
			}
			g.kept = next
			return true, next
		},
		Equal: func(a, b any) bool {
			x, y := a.(*wstate[T, S]), b.(*wstate[T, S])
			return x.tail == y.tail && m.equal(g, x.s, y.s)
		},
	}
	if m.Hash != nil {
		pm.Hash = func(s any) uint64 {
			x := s.(*wstate[T, S])
			h := m.hash(g, x.s)
			if x.tail {
				h = ^h
			}
			return h
		}
	}
	return pm
}

// recheck checks the parts found not linearizable from their witnesses
// again from the start of the history: the operations the recorder has
// before each part's cut, then those since. A part still not linearizable
// is a violation, explained on a snapshot of the whole history as of the
// run (explain.go).
func (c *linearizability[T, S]) recheck(rec *Recorder[T], wrong []*ipart[T, S], now time.Duration, b *budget) error {
	h := rec.History()
	h.asOf(now)
	g := &guard{}
	before := map[string][]*Op[T]{}
	byKey := map[string]*ipart[T, S]{}
	for _, p := range wrong {
		byKey[p.key] = p
	}
	settled := slices.Clone(h.Ops)
	for i := range settled {
		op := &settled[i]
		var key string
		if c.model.Partition != nil {
			key = c.model.partition(g, op.Value)
		}
		if p := byKey[key]; p != nil && op.Call < p.since {
			c.bound(g, op)
			before[key] = append(before[key], op)
		}
	}
	if err := g.err(); err != nil {
		return err
	}
	c.each(wrong, func(p *ipart[T, S]) {
		ig := &guard{}
		scratch := &ipart[T, S]{key: p.key}
		p.verdict = c.advance(scratch, c.model.init(ig), nil, append(before[p.key], p.ops...), now, b)
		switch {
		case ig.err() != nil:
			p.verdict, p.err = broken, ig.err()
		case p.verdict == linearizable: // the witness from the start
			p.state, p.carried, p.since, p.ops, p.settled = scratch.state, scratch.carried, scratch.since, scratch.ops, scratch.settled
		case p.verdict == broken:
			p.err = scratch.err
		default:
			p.states, p.stateBytes = scratch.states, scratch.stateBytes
		}
		p.dirty = p.verdict != linearizable // explained from the start: the next run starts from its witness
	})
	for _, p := range wrong {
		if p.verdict == broken {
			return fmt.Errorf("%s: %w", c.keyName(p.key), p.err)
		}
	}
	// A violation: explained as a check of the whole history explains it.
	parts := c.parts(h, g)
	if err := g.err(); err != nil {
		return err
	}
	verdicts := make([]verdict, len(parts))
	first := -1
	for i, hp := range parts {
		verdicts[i] = linearizable
		if p := byKey[hp.key]; p != nil && p.verdict != linearizable {
			verdicts[i] = p.verdict
			if p.verdict == illegal && first < 0 {
				first = i
			}
		}
	}
	if first < 0 {
		return nil
	}
	return c.violation(h, parts, verdicts, first, b)
}

// asOf makes h the history as of now: what was invoked after it left
// out, outcomes after it pending.
func (h *History[T]) asOf(now time.Duration) {
	h.Now = min(h.Now, now)
	keep := h.Ops[:0]
	for _, op := range h.Ops {
		if op.Call > now {
			continue
		}
		if op.Status != Pending && op.Return > now {
			op.Status, op.Return = Pending, 0
		}
		keep = append(keep, op)
	}
	h.Ops = keep
}

// incProgress says how far an undecided run got, as progress does: the
// operations of a part are those it settled and those since.
func (c *linearizability[T, S]) incProgress(parts []*ipart[T, S], d delta[T]) string {
	var decided, decidedOps, total int
	var open []string
	g := &guard{}
	for _, p := range parts {
		ops, unknown := p.settled+len(p.carried), len(p.carried)
		for _, op := range p.ops {
			if c.live(g, op) {
				ops++
				if op.Status != OK || op.maybe {
					unknown++
				}
			}
		}
		total += ops
		if p.verdict == linearizable {
			decided++
			decidedOps += ops
			continue
		}
		if len(open) < 5 {
			what := "out of time"
			switch {
			case p.verdict == notStarted:
				what = "not started"
			case p.verdict == outOfMemory && p.states == 0:
				what = "out of memory before its search"
			case p.verdict == outOfMemory:
				what = fmt.Sprintf("out of memory after %d states of %s", p.states, bytesString(p.stateBytes))
			}
			if p.settled > 0 {
				what = fmt.Sprintf("%d settled before; %s", p.settled, what)
			}
			open = append(open, fmt.Sprintf("%s (%d operations, %d with unknown outcomes: %s)", c.keyName(p.key), ops, unknown, what))
		}
	}
	s := fmt.Sprintf("decided %d of %d operations (%d of %d parts) linearizable; undecided: %s",
		decidedOps, total, decided, len(parts), strings.Join(open, ", "))
	if n := len(parts) - decided - len(open); n > 0 {
		s += fmt.Sprintf(" and %d more parts", n)
	}
	if d.cut > 0 {
		s += fmt.Sprintf("; the recorder was full: history cut at %s, %d operations left out", d.cut, d.dropped)
	}
	return s
}

// keyName names a part by its key in reports (see partName).
func (c *linearizability[T, S]) keyName(key string) string {
	if c.model.Partition == nil {
		return "the history"
	}
	return fmt.Sprintf("key %q", key)
}
