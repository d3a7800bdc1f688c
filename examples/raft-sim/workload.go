package raftsim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/history"
	"github.com/ares-arena/arena/sim"
)

// WorkloadConfig shapes the clients. Zero fields take the defaults.
type WorkloadConfig struct {
	Clients   int           // concurrent clients (default 3)
	Keys      int           // keys they share (default 8)
	Think     time.Duration // between a client's operations, ± 25% (default 250ms: 12 operations a second from 3 clients)
	Timeout   time.Duration // per operation (default 1s)
	ReadRatio float64       // share of reads (default 0.3)
	// History is how many operations the workload keeps whole (Ops), for
	// checkers of a history; past it only what the checks and Outage need
	// is kept (default 100,000; a simulated day has over a million).
	History int
	// Unseeded draws the clients' choices (keys, reads, think times) from
	// math/rand/v2's global source, as a system that takes no seed does,
	// instead of the client node's seeded Rand: for measuring what the
	// seed buys (TestReproducibility).
	Unseeded bool
	// AckUncommitted plants a bug: an append is acknowledged as soon as
	// the node that leads has it in its log, before raft commits it. A
	// leader that dies or is cut off before the commit loses a write its
	// client was told is done, which "no acknowledged write lost"
	// catches, on some schedules and seeds (TestAckUncommitted).
	AckUncommitted bool
}

// Outcome of an operation, as the client saw it.
type Outcome uint8

const (
	OK      Outcome = iota // acknowledged
	Fail                   // failed for sure: it did not happen
	Unknown                // timed out or leadership lost: it may have happened
)

// Op is one operation of a client: an append of Value to Key, or a read
// of Key (Len and Last are what it returned), with when it was invoked and
// when it returned on the run's clock.
type Op struct {
	Client  int
	Read    bool
	Key     string
	Value   uint64 // appends: unique over the run (client << 40 | sequence)
	Invoke  time.Time
	Return  time.Time
	Outcome Outcome
	Err     string // why it failed
	Len     int    // reads: the list's length; appends: the value's place in it (from 1)
	Last    uint64 // reads: its last value
}

// Workload runs clients that append to and read keys of the cluster
// through its leader, each operation a raft log entry, and records every
// operation (the history). It is the example's own view of availability:
// its Probe and Outage, and the checks on what it recorded.
type Workload struct {
	c   *Cluster
	cfg WorkloadConfig

	rec *history.Recorder[history.LogOp] // the history, for package history's checks

	mu       sync.Mutex
	ops      []Op       // the first cfg.History operations, whole
	returns  []returned // every operation's return, in order: Outage
	probed   int        // returns the probe has seen
	keys     map[string]*keyState
	violated string // the first read that saw too little or too much
	// values seen in the leader's state: a value twice is a duplicate
	seenValues map[uint64]struct{}
	wg         sync.WaitGroup
	stop       context.CancelFunc
}

// returned is what Outage and Probe need of an operation.
type returned struct {
	at     int64 // Return, Unix nanoseconds
	ok     bool
	client int32
	err    string
}

// keyState is what the checks need of a key's appends, kept as they
// happen so a check costs what is new since the last one.
type keyState struct {
	invoked int                 // appends invoked so far
	acked   int                 // appends acknowledged so far
	pending map[uint64]struct{} // acknowledged, not yet seen in the leader's state
	seen    int                 // the leader's list is checked up to here
}

// StartWorkload starts the clients on node "client" of the cluster's
// world; Stop ends them.
func StartWorkload(c *Cluster, cfg WorkloadConfig) (*Workload, error) {
	if cfg.Clients == 0 {
		cfg.Clients = 3
	}
	if cfg.Keys == 0 {
		cfg.Keys = 8
	}
	if cfg.Think == 0 {
		cfg.Think = 250 * time.Millisecond
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	if cfg.ReadRatio == 0 {
		cfg.ReadRatio = 0.3
	}
	if cfg.History == 0 {
		cfg.History = 100_000
	}
	node := c.World.Node("client")
	if node == nil {
		var err error
		if node, err = c.World.AddNode("client", sim.NodeConfig{Type: "client"}); err != nil {
			return nil, err
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	w := &Workload{c: c, cfg: cfg, stop: stop, keys: map[string]*keyState{}, seenValues: map[uint64]struct{}{},
		rec: history.NewRecorder[history.LogOp](clock.Real{}, history.WithCap(cfg.History))}
	for i := range cfg.Clients {
		rng := rand.New(rand.NewPCG(node.Rand().Uint64(), uint64(i)))
		if cfg.Unseeded {
			rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		}
		w.wg.Go(func() { w.client(ctx, i, rng) })
	}
	return w, nil
}

// Stop ends the clients and waits for them.
func (w *Workload) Stop() {
	w.stop()
	w.wg.Wait()
}

func (w *Workload) client(ctx context.Context, id int, rng *rand.Rand) {
	leader := ""
	seq := uint64(0)
	for {
		think := w.cfg.Think*3/4 + time.Duration(rng.Int64N(int64(w.cfg.Think)/2+1))
		select {
		case <-ctx.Done():
			return
		case <-time.After(think):
		}
		op := Op{Client: id, Key: fmt.Sprintf("k%d", rng.IntN(w.cfg.Keys)), Read: rng.Float64() < w.cfg.ReadRatio, Invoke: time.Now()}
		if !op.Read {
			seq++
			op.Value = uint64(id)<<40 | seq
		}
		least := w.invoke(&op)
		what := history.Append(op.Key, int64(op.Value))
		if op.Read {
			what = history.ReadAt(op.Key, 0) // the place read is known when it returns
		}
		call := w.rec.Invoke(id, what)
		leader = w.do(ctx, &op, leader)
		if ctx.Err() != nil && op.Outcome != OK {
			call.Unknown()
			return // stopped mid-operation: not the system's doing
		}
		op.Return = time.Now()
		switch {
		case op.Outcome == OK && op.Read:
			// A read of a list of Len values saw nothing at Len+1: what
			// tells a stale read from a fresh one.
			call.OK(history.ReadAt(op.Key, int64(op.Len+1)).Read(0, false))
		case op.Outcome == OK:
			call.OK(history.Append(op.Key, int64(op.Value)).Acked(int64(op.Len)))
		case op.Outcome == Fail:
			call.Fail(errors.New(op.Err))
		default:
			call.Unknown()
		}
		w.record(op, least)
	}
}

// invoke notes an operation's start; for a read it returns how many
// appends to its key were acknowledged before: the least it may see.
func (w *Workload) invoke(op *Op) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := w.key(op.Key)
	if !op.Read {
		k.invoked++
	}
	return k.acked
}

func (w *Workload) key(name string) *keyState {
	k := w.keys[name]
	if k == nil {
		k = &keyState{pending: map[uint64]struct{}{}}
		w.keys[name] = k
	}
	return k
}

// record keeps a returned operation, and checks a read against the
// appends around it: at least least (acknowledged before it was invoked),
// at most those invoked before it returned.
func (w *Workload) record(op Op, least int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := w.key(op.Key)
	switch {
	case !op.Read && op.Outcome == OK:
		k.acked++
		k.pending[op.Value] = struct{}{}
	case op.Read && op.Outcome == OK && w.violated == "":
		if op.Len < least {
			w.violated = fmt.Sprintf("client %d read %s at %s: %d values, but %d appends were acknowledged before it: stale read",
				op.Client, op.Key, op.Invoke.Format(time.TimeOnly), op.Len, least)
		} else if op.Len > k.invoked {
			w.violated = fmt.Sprintf("client %d read %s at %s: %d values, but only %d appends were invoked before it returned",
				op.Client, op.Key, op.Invoke.Format(time.TimeOnly), op.Len, k.invoked)
		}
	}
	if len(w.ops) < w.cfg.History {
		w.ops = append(w.ops, op)
	}
	w.returns = append(w.returns, returned{at: op.Return.UnixNano(), ok: op.Outcome == OK, client: int32(op.Client), err: op.Err})
}

// errTimeout: the operation did not return within its timeout.
var errTimeout = errors.New("timed out")

// do runs op through the node the client believes leads (asking the
// others who leads when it does not know, or was told it is not), and
// returns the leader it believes in now.
func (w *Workload) do(ctx context.Context, op *Op, leader string) string {
	if r, _ := w.c.Raft(leader); r == nil || r.State() != raft.Leader {
		leader = w.findLeader()
	}
	r, _ := w.c.Raft(leader)
	if r == nil {
		op.Outcome, op.Err = Fail, "no leader known"
		return ""
	}
	cmd := encode(opAppend, op.Key, op.Value)
	if op.Read {
		cmd = encode(opRead, op.Key, 0)
	}
	f := r.Apply(cmd, w.cfg.Timeout)
	if w.cfg.AckUncommitted && !op.Read {
		// The bug: the leader has the entry; its commit is not awaited.
		op.Outcome = OK
		return leader
	}
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(w.cfg.Timeout):
		err = errTimeout
	case <-ctx.Done():
		err = ctx.Err()
	}
	switch {
	case err == nil:
		op.Outcome = OK
		switch res := f.Response().(type) {
		case ReadResult:
			op.Len, op.Last = res.Len, res.Last
		case int: // an append: the list's length after it, its sequence number
			op.Len = res
		}
		return leader
	case errors.Is(err, raft.ErrNotLeader), errors.Is(err, raft.ErrRaftShutdown), errors.Is(err, raft.ErrEnqueueTimeout):
		op.Outcome = Fail // not in the log
	default:
		op.Outcome = Unknown // leadership lost, timed out: it may still commit
	}
	op.Err = fmt.Sprintf("%s: %v", leader, err)
	return ""
}

// findLeader asks the nodes that are up who leads.
func (w *Workload) findLeader() string {
	for _, name := range w.c.Names {
		if r, _ := w.c.Raft(name); r != nil {
			if l := nameOf(r.Leader()); l != "" {
				return l
			}
		}
	}
	return ""
}

// Probe is arena's probe: the workload's own view. A sample is unhealthy
// when an operation failed (or its outcome is unknown) since the previous
// sample, or the latest one did: a lone failure between two samples is
// seen, as a client sees it.
func (w *Workload) Probe(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.returns)
	from := w.probed
	w.probed = n
	if n > 0 && from == n {
		from = n - 1 // nothing new: the latest one still stands
	}
	for i := n - 1; i >= from && i >= 0; i-- {
		if r := w.returns[i]; !r.ok {
			return fmt.Errorf("client %d: %s", r.client, r.err)
		}
	}
	return nil
}

// Ops returns a copy of the history kept whole (WorkloadConfig.History).
func (w *Workload) Ops() []Op {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Op(nil), w.ops...)
}

// Counts returns how many operations returned, and how many of them
// succeeded.
func (w *Workload) Counts() (ops, ok int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.returns {
		if r.ok {
			ok++
		}
	}
	return len(w.returns), ok
}

// Outage returns how long after from the clients took to work again for
// good, looking at the operations that returned in [from, to): from from
// to the return of the first operation that succeeded after the last one
// that did not. Zero when none in the window failed. It is the
// workload's own time to recover, measured as arena measures its own.
func (w *Workload) Outage(from, to time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, t := from.UnixNano(), to.UnixNano()
	i := sort.Search(len(w.returns), func(i int) bool { return w.returns[i].at >= f })
	lastFail := -1
	for ; i < len(w.returns) && w.returns[i].at < t; i++ {
		if !w.returns[i].ok {
			lastFail = i
		}
	}
	if lastFail < 0 {
		return 0
	}
	for _, r := range w.returns[lastFail+1:] {
		if r.ok {
			return time.Duration(r.at - f)
		}
	}
	return to.Sub(from)
}
