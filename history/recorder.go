package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ares-arena/arena/clock"
)

// Status is what a client learnt of one operation.
type Status uint8

// Statuses. A timeout is Unknown, never Failed: the operation may have
// taken effect after the client stopped waiting.
const (
	Pending Status = iota // invoked, no outcome yet
	OK                    // done, with the result recorded
	Failed                // definitely did not take effect (the system said so)
	Unknown               // may or may not have taken effect: a timeout, a lost connection, a crash
)

var statusNames = [...]string{"pending", "ok", "failed", "unknown"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", s)
}

// Op is one recorded operation: what a client asked and saw (Value: the
// input set at Invoke, the output at OK), when, and what it learnt of it.
// Times are offsets from the recorder's start on its clock, made strictly
// increasing across the recorder: no two events share a stamp.
type Op[T any] struct {
	Call   time.Duration // invoked
	Return time.Duration // answered (OK, Failed) or given up on (Unknown); 0 while Pending
	Value  T
	Client int32
	Status Status
	// maybe: a check's copy of an unknown outcome closed at its horizon
	// (WithUnknownHorizon): Status OK, Return the horizon, and it may not
	// have happened. Never set in a recorder.
	maybe bool
}

// DefaultCap is the number of operations a recorder keeps unless WithCap
// says otherwise: 1,048,576, about 56 MiB for the key-value and log
// models' operations (56 bytes each).
const DefaultCap = 1 << 20

// RecorderOption configures a Recorder.
type RecorderOption interface{ applyRecorder(*recorderOptions) }

type recorderOptions struct{ cap int }

type capOption int

func (o capOption) applyRecorder(r *recorderOptions) { r.cap = int(o) }

// WithCap bounds the operations a recorder keeps (DefaultCap when not
// given). n must be positive.
func WithCap(n int) RecorderOption {
	if n <= 0 {
		panic(fmt.Sprintf("arena: history.WithCap(%d): the cap must be positive", n))
	}
	return capOption(n)
}

// shards spread the recorder's locks: a client's operations go to shard
// client mod shards, so that clients on their own goroutines rarely meet.
const shards = 64

// chunk is the unit a shard grows by: no slice doubling, so a full shard
// wastes at most one chunk.
const chunk = 1024

// maxGrant is how many operations of the cap a shard takes at once, at
// most: a quarter of the cap spread over the shards, so that a recorder
// fills up (the first refusal) with at least three quarters of its cap
// used.
const maxGrant = 64

// Recorder records the operations of a workload's clients, safe for use from
// many goroutines. A client calls Invoke before each operation and OK, Fail
// or Unknown on the returned Call when it has an outcome (or Done with the
// result and error).
//
// # Time
//
// It reads the run's clock (virtual, simulated or real: clock.Clock), the
// one the run's faults are timed on. Every event gets a stamp strictly after
// the previous one, so events at one instant of a virtual clock keep the
// order in which they were recorded, 1ns apart.
//
// # Memory
//
// It keeps at most its cap of operations (DefaultCap, WithCap), each
// unsafe.Sizeof(Op[T]) bytes (56 for the key-value and log models), in
// chunks of 1024 that a shard (one of 64, by client) allocates as it needs
// them: beyond the operations kept, at most one chunk per shard is unused
// (3.5 MiB at 56 bytes, whatever the cap). Past the cap, new
// invocations are not recorded, only counted (History.Dropped); operations
// already recorded still get their outcomes. The history the checks see
// then ends where the first operation was refused (History.Cut): outcomes
// that came after it are treated as unknown, because operations that were
// not recorded may have caused them. So a full recorder never makes a check
// fail wrongly; it checks less.
type Recorder[T any] struct {
	clock   clock.Clock
	start   time.Time
	cap     int64
	grant   int
	last    atomic.Int64 // the last stamp handed out
	granted atomic.Int64 // operations of the cap given to shards
	full    atomic.Bool
	cut     atomic.Int64 // the stamp of the first refused invocation, once full
	refused atomic.Int64
	shards  [shards]shard[T]
}

type shard[T any] struct {
	mu     sync.Mutex
	chunks []*[chunk]Op[T]
	n      int // operations recorded
	room   int // operations granted and not used yet
	_      [64]byte
}

// NewRecorder returns a recorder on clock, starting now. A nil clock is a
// programmer error and panics.
func NewRecorder[T any](clk clock.Clock, opts ...RecorderOption) *Recorder[T] {
	if clk == nil {
		panic("arena: history.NewRecorder: nil clock")
	}
	o := recorderOptions{cap: DefaultCap}
	for _, opt := range opts {
		opt.applyRecorder(&o)
	}
	return &Recorder[T]{clock: clk, start: clk.Now(), cap: int64(o.cap), grant: max(1, min(maxGrant, o.cap/(4*shards)))}
}

// Start returns when the recorder started, on its clock: the origin of the
// operations' times.
func (r *Recorder[T]) Start() time.Time { return r.start }

// stamp returns the clock's reading as an offset from the start, or the
// last stamp plus 1ns if that is later.
func (r *Recorder[T]) stamp() time.Duration {
	now := int64(r.clock.Now().Sub(r.start))
	for {
		last := r.last.Load()
		s := max(now, last+1)
		if r.last.CompareAndSwap(last, s) {
			return time.Duration(s)
		}
	}
}

// take grants up to n operations of the cap.
func (r *Recorder[T]) take(n int) int {
	for {
		g := r.granted.Load()
		k := min(int64(n), r.cap-g)
		if k <= 0 {
			return 0
		}
		if r.granted.CompareAndSwap(g, g+k) {
			return int(k)
		}
	}
}

// Call is a handle on one invoked operation, to record its outcome. Its
// zero value (an invocation past the cap) records nothing. The first
// outcome recorded for a call is kept; later ones are ignored.
type Call[T any] struct {
	sh *shard[T]
	r  *Recorder[T]
	i  int
}

// Invoke records that client starts an operation with input v, now.
// Clients are numbered by the workload (porcupine's visualization draws one
// row per client); a client has at most one operation in flight, so a client
// that gave up on an operation (Unknown) should go on under a new number,
// as Jepsen's processes do.
func (r *Recorder[T]) Invoke(client int, v T) Call[T] {
	if r.full.Load() {
		r.refused.Add(1)
		return Call[T]{}
	}
	sh := &r.shards[uint(client)%shards]
	sh.mu.Lock()
	if sh.room == 0 {
		if sh.room = r.take(r.grant); sh.room == 0 {
			sh.mu.Unlock()
			r.refuse()
			return Call[T]{}
		}
	}
	i := sh.n
	if i/chunk == len(sh.chunks) {
		sh.chunks = append(sh.chunks, new([chunk]Op[T]))
	}
	op := &sh.chunks[i/chunk][i%chunk]
	op.Call, op.Value, op.Client = r.stamp(), v, int32(client)
	sh.n++
	sh.room--
	sh.mu.Unlock()
	return Call[T]{sh: sh, r: r, i: i}
}

// refuse counts an invocation past the cap; the first one marks where the
// checked history ends.
func (r *Recorder[T]) refuse() {
	r.refused.Add(1)
	if !r.full.Load() {
		s := r.stamp()
		if r.cut.CompareAndSwap(0, int64(s)) {
			r.full.Store(true)
		}
	}
}

func (c Call[T]) finish(v *T, s Status) {
	if c.r == nil {
		return
	}
	ret := c.r.stamp()
	c.sh.mu.Lock()
	defer c.sh.mu.Unlock()
	op := &c.sh.chunks[c.i/chunk][c.i%chunk]
	if op.Status != Pending {
		return
	}
	op.Return, op.Status = ret, s
	if v != nil {
		op.Value = *v
	}
}

// OK records that the operation took effect, with its result v (the input
// with the output filled in: a read's value, a compare-and-set's verdict).
func (c Call[T]) OK(v T) { c.finish(&v, OK) }

// Unknown records that the client does not know whether the operation took
// effect (it timed out, lost its connection, or the server crashed).
func (c Call[T]) Unknown() { c.finish(nil, Unknown) }

// Fail records that the operation definitely did not take effect: the
// system refused it. A timeout is not a refusal: when err is one
// (context.DeadlineExceeded, os.ErrDeadlineExceeded, a net.Error that
// timed out) the outcome is recorded as Unknown.
func (c Call[T]) Fail(err error) {
	if isTimeout(err) {
		c.Unknown()
		return
	}
	c.finish(nil, Failed)
}

// Done records the outcome of a call that returned v and err: OK when err
// is nil, Unknown otherwise (an error does not say that nothing happened;
// call Fail when the system's answer does).
func (c Call[T]) Done(v T, err error) {
	if err != nil {
		c.Unknown()
		return
	}
	c.OK(v)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// History is a snapshot of a recorder: what the checks look at.
type History[T any] struct {
	Start time.Time     // the recorder's start on its clock; op times are offsets from it
	Now   time.Duration // when the snapshot was taken: operations still pending are open up to it
	Ops   []Op[T]       // by Call
	// Dropped counts the invocations not in Ops: refused past the cap, or
	// recorded after the cut.
	Dropped int
	// Cut is where the history ends when the recorder filled up (0: it
	// did not): operations invoked after it are left out, and outcomes
	// that came after it are Unknown.
	Cut time.Duration
}

// Time returns the instant of an operation time d on the recorder's clock.
func (h History[T]) Time(d time.Duration) time.Time { return h.Start.Add(d) }

// History returns a snapshot of the operations recorded so far, sorted by
// invocation. Operations without an outcome yet are Pending.
//
// The snapshot is the history as of one instant, stamped before any shard
// is copied: operations invoked after it are left out and outcomes that
// came after it are Pending. The shards are copied one after another, so
// without that cut an operation invoked between two copies would be
// missing while a later one that saw its effect is there, and a check of
// the snapshot would report a violation the system never had.
func (r *Recorder[T]) History() History[T] {
	h := History[T]{Start: r.start, Now: r.stamp()}
	n := 0
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		n += sh.n
		sh.mu.Unlock()
	}
	h.Ops = make([]Op[T], 0, n)
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		for k, c := range sh.chunks {
			h.Ops = append(h.Ops, c[:min(chunk, sh.n-k*chunk)]...)
		}
		sh.mu.Unlock()
	}
	// Every invocation stamped by Now was recorded before its shard was
	// copied (it is stamped under the shard's lock); an outcome stamped by
	// Now but written after the copy leaves its operation Pending, which
	// claims less.
	keep := h.Ops[:0]
	for _, op := range h.Ops {
		if op.Call > h.Now {
			continue
		}
		if op.Status != Pending && op.Return > h.Now {
			op.Status, op.Return = Pending, 0
		}
		keep = append(keep, op)
	}
	h.Ops = keep
	slices.SortFunc(h.Ops, func(a, b Op[T]) int { return cmp.Compare(a.Call, b.Call) })
	h.Dropped = int(r.refused.Load())
	if r.full.Load() {
		h.cutAt(time.Duration(r.cut.Load()))
	}
	return h
}

// cutAt ends h at cut: later invocations are dropped, later outcomes made
// Unknown.
func (h *History[T]) cutAt(cut time.Duration) {
	h.Cut = cut
	keep := h.Ops[:0]
	for _, op := range h.Ops {
		if op.Call > cut {
			h.Dropped++
			continue
		}
		if op.Status != Pending && op.Return > cut {
			op.Status, op.Return = Unknown, 0
		}
		keep = append(keep, op)
	}
	h.Ops = keep
}

// cursor reads a recorder the way a check that runs again and again
// needs it: what was invoked since its last read, and the outcomes of the
// operations it read without one, so that a read costs what is new, not
// the whole history. Each read is a snapshot as History's is: as of one
// stamp (delta.now), cut as History cuts when the recorder is full.
type cursor struct {
	read    [shards]int // each shard's operations read
	pending []opRef     // read without an outcome (as of the read)
	dropped int         // operations left out past the recorder's cut
}

// opRef names a recorded operation: its shard and its place there.
type opRef struct {
	shard uint16
	i     int32
}

// delta is one read of a cursor.
type delta[T any] struct {
	now time.Duration
	// added: the operations invoked since the last read, by Call; done:
	// operations read pending before that have an outcome now. Both with
	// their refs.
	added   []Op[T]
	addRefs []opRef
	done    []Op[T]
	doneRef []opRef
	dropped int           // as History.Dropped
	cut     time.Duration // as History.Cut
}

// next reads what is new since the last read of cur.
func (r *Recorder[T]) next(cur *cursor) delta[T] {
	d := delta[T]{now: r.stamp()}
	cut := time.Duration(-1)
	if r.full.Load() {
		cut = time.Duration(r.cut.Load())
		d.cut = cut
	}
	// outcome is op as of the read: an outcome stamped after now is not
	// there yet (see History), and one after the cut is Unknown.
	outcome := func(op Op[T]) Op[T] {
		switch {
		case op.Status != Pending && op.Return > d.now:
			op.Status, op.Return = Pending, 0
		case cut >= 0 && op.Status != Pending && op.Return > cut:
			op.Status, op.Return = Unknown, 0
		}
		return op
	}
	stillPending := cur.pending[:0]
	pending := slices.Clone(cur.pending)
	slices.SortFunc(pending, func(a, b opRef) int { return cmp.Compare(a.shard, b.shard) })
	p := 0
	for s := range r.shards {
		sh := &r.shards[s]
		sh.mu.Lock()
		for ; p < len(pending) && int(pending[p].shard) == s; p++ {
			ref := pending[p]
			op := outcome(sh.chunks[ref.i/chunk][ref.i%chunk])
			if op.Status == Pending {
				stillPending = append(stillPending, ref)
				continue
			}
			d.done, d.doneRef = append(d.done, op), append(d.doneRef, ref)
		}
		// A shard's invocations are stamped under its lock, in order: the
		// first one after now ends what this read takes of it.
		i := cur.read[s]
		for ; i < sh.n; i++ {
			op := sh.chunks[i/chunk][i%chunk]
			if op.Call > d.now {
				break
			}
			if cut >= 0 && op.Call > cut {
				cur.dropped++
				continue
			}
			ref := opRef{shard: uint16(s), i: int32(i)}
			op = outcome(op)
			if op.Status == Pending {
				stillPending = append(stillPending, ref)
			}
			d.added, d.addRefs = append(d.added, op), append(d.addRefs, ref)
		}
		cur.read[s] = i
		sh.mu.Unlock()
	}
	cur.pending = stillPending
	// By Call, the refs beside them.
	idx := make([]int, len(d.added))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(d.added[a].Call, d.added[b].Call) })
	added, refs := make([]Op[T], len(idx)), make([]opRef, len(idx))
	for k, i := range idx {
		added[k], refs[k] = d.added[i], d.addRefs[i]
	}
	d.added, d.addRefs = added, refs
	d.dropped = int(r.refused.Load()) + cur.dropped
	return d
}
