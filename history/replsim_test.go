package history_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
	"github.com/ares-arena/arena/internal/heapq"
)

// replsim is a small replicated store for the checks' own tests: three
// nodes, a leader elected among those that reach a majority, a log
// replicated on heartbeats and committed on a majority, a key-value map and
// a stream applied from it. Its workload (key-value clients, a publisher, a
// consumer) runs inside it and records into history recorders. Everything
// happens on a virtual clock, lazily: the simulation is brought up to the
// clock whenever arena touches it (faults, probe, checks), so a run is
// deterministic. Each of its bugs is one the checks must catch.
type replsim struct {
	mu    sync.Mutex
	clock *clock.Virtual
	now   atomic.Int64 // the simulation's instant, ns since the epoch: the recorders' clock
	q     heapq.Heap[simEvent, *simEvent]
	seq   uint64
	rng   *rand.Rand
	bugs  simBugs

	nodes  [3]*simNode
	leader int // -1: none
	term   int
	pend   map[int]func(simEntry) // the leader's index → its client's answer

	kv       *history.Recorder[history.KV]
	log      *history.Recorder[history.LogOp]
	clients  [3]simClient
	pub      simClient
	consumed int64 // the consumer's last sequence number
	electing bool
}

type simBugs struct {
	staleReads       bool // reads are answered by the client's own node from what it has applied, leader or not
	ackBeforeDurable bool // the leader acknowledges a write when it appends it, before a majority has it
	dropMessages     bool // a replication message that does not arrive is not sent again, and a follower takes entries past a hole
}

type simEvent struct {
	at  time.Time
	seq uint64
	fn  func()
}

func (a *simEvent) Less(b *simEvent) bool {
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}

type simNode struct {
	id       string
	up       bool
	isolated bool
	log      map[int]simEntry // index (from 1) → entry; a hole only with dropMessages
	last     int              // highest index held
	commit   int
	next     int // leader's view: the next index to send this node
	match    int
}

type simEntry struct {
	term  int
	op    history.KV    // KVGet, KVPut (no-op when Key is "")
	app   history.LogOp // LogAppend when Kind is set
	seq   int64         // the stream sequence number of an append
	value int64         // a get's answer
	found bool
}

type simClient struct {
	id       int // the current history client (a new one after a timeout)
	busy     bool
	gen      int // numbers the client's operations: a stale timeout finds a later gen
	nextBase int
}

const (
	simTick      = 10 * time.Millisecond // the workload
	simHeartbeat = 50 * time.Millisecond // replication
	simDelay     = 5 * time.Millisecond  // one way, between nodes
	simElection  = 300 * time.Millisecond
	simRestart   = time.Second
	simTimeout   = 400 * time.Millisecond // a client gives up: unknown
)

func newReplsim(clk *clock.Virtual, seed uint64, bugs simBugs) *replsim {
	s := &replsim{clock: clk, rng: rand.New(rand.NewPCG(seed, 1)), bugs: bugs, leader: 0, term: 1, pend: map[int]func(simEntry){}}
	s.now.Store(clk.Now().UnixNano())
	for i := range s.nodes {
		s.nodes[i] = &simNode{id: fmt.Sprintf("n%d", i+1), up: true, log: map[int]simEntry{}, next: 1}
	}
	s.kv = history.NewRecorder[history.KV](simClock{s})
	s.log = history.NewRecorder[history.LogOp](simClock{s})
	for i := range s.clients {
		s.clients[i] = simClient{id: 100 * (i + 1), nextBase: 100*(i+1) + 1}
	}
	s.pub = simClient{id: 1000, nextBase: 1001}
	s.every(simTick, s.workload)
	s.every(simHeartbeat, s.heartbeat)
	return s
}

// simClock is the simulation's instant, for the recorders.
type simClock struct{ s *replsim }

func (c simClock) Now() time.Time { return time.Unix(0, c.s.now.Load()).UTC() }

func (s *replsim) at(t time.Time, fn func()) {
	s.seq++
	s.q.Push(simEvent{at: t, seq: s.seq, fn: fn})
}

func (s *replsim) after(d time.Duration, fn func()) { s.at(time.Unix(0, s.now.Load()).Add(d), fn) }

func (s *replsim) every(d time.Duration, fn func()) {
	var tick func()
	tick = func() { fn(); s.after(d, tick) }
	s.after(d, tick)
}

// advance plays the simulation up to the clock. Under mu.
func (s *replsim) advance() {
	now := s.clock.Now()
	for len(s.q) > 0 && !s.q[0].at.After(now) {
		e := s.q.Pop()
		s.now.Store(e.at.UnixNano())
		e.fn()
	}
	s.now.Store(now.UnixNano())
}

func (s *replsim) reachable(i int) bool { return s.nodes[i].up && !s.nodes[i].isolated }

// link reports whether a message between two nodes can pass now.
func (s *replsim) link(a, b int) bool { return s.reachable(a) && s.reachable(b) }

// workload: each client with nothing in flight starts an operation.
func (s *replsim) workload() {
	for i := range s.clients {
		c := &s.clients[i]
		if c.busy {
			continue
		}
		key := fmt.Sprintf("k%d", s.rng.IntN(3))
		if s.rng.IntN(2) == 0 {
			s.get(c, i, key)
		} else {
			s.put(c, key, int64(s.rng.Uint32()))
		}
	}
	if !s.pub.busy {
		s.publish(int64(s.rng.Uint32()))
	}
	s.consume()
}

// start marks a client busy with a call and arms its timeout.
func (s *replsim) start(c *simClient, unknown func()) (gen int) {
	c.busy = true
	c.gen++
	gen = c.gen
	s.after(simTimeout, func() {
		if c.busy && c.gen == gen {
			unknown()
			c.busy = false
			c.id, c.nextBase = c.nextBase, c.nextBase+1 // a client that gave up goes on as a new one
		}
	})
	return gen
}

func (s *replsim) finish(c *simClient, gen int) bool {
	if !c.busy || c.gen != gen {
		return false // timed out already
	}
	c.busy = false
	return true
}

func (s *replsim) put(c *simClient, key string, v int64) {
	op := history.Put(key, v)
	call := s.kv.Invoke(c.id, op)
	gen := s.start(c, call.Unknown)
	s.propose(simEntry{op: op}, func(simEntry) {
		if s.finish(c, gen) {
			call.OK(op)
		}
	}, func() {
		if s.finish(c, gen) {
			call.Fail(fmt.Errorf("no leader"))
		}
	})
}

func (s *replsim) get(c *simClient, i int, key string) {
	op := history.Get(key)
	call := s.kv.Invoke(c.id, op)
	if s.bugs.staleReads { // the client's own node answers at once
		n := s.nodes[i]
		if !s.reachable(i) {
			call.Fail(fmt.Errorf("node down"))
			return
		}
		v, found := s.applied(n, key)
		call.OK(op.Read(v, found))
		return
	}
	gen := s.start(c, call.Unknown)
	s.propose(simEntry{op: op}, func(e simEntry) {
		if s.finish(c, gen) {
			call.OK(op.Read(e.value, e.found))
		}
	}, func() {
		if s.finish(c, gen) {
			call.Fail(fmt.Errorf("no leader"))
		}
	})
}

func (s *replsim) publish(v int64) {
	c := &s.pub
	op := history.Append("s", v)
	call := s.log.Invoke(c.id, op)
	gen := s.start(c, call.Unknown)
	s.propose(simEntry{app: op}, func(e simEntry) {
		if s.finish(c, gen) {
			call.OK(op.Acked(e.seq))
		}
	}, func() {
		if s.finish(c, gen) {
			call.Fail(fmt.Errorf("no leader"))
		}
	})
}

// consume delivers the next stream message the consumer's node (n3) has
// committed, recorded as a read at its sequence number.
func (s *replsim) consume() {
	n := s.nodes[2]
	if !s.reachable(2) {
		return
	}
	for idx := 1; idx <= n.commit; idx++ {
		e, ok := n.log[idx]
		if ok && e.app.Kind == history.LogAppend && e.seq > s.consumed {
			s.consumed = e.seq
			op := history.ReadAt("s", e.seq)
			s.log.Invoke(2000, op).OK(op.Read(e.app.Value, true))
			return
		}
	}
}

// applied is key's value in what node n has committed.
func (s *replsim) applied(n *simNode, key string) (int64, bool) {
	var v int64
	var found bool
	for idx := 1; idx <= n.commit; idx++ {
		if e, ok := n.log[idx]; ok && e.op.Kind == history.KVPut && e.op.Key() == key {
			v, found = e.op.Value, true
		}
	}
	return v, found
}

// propose hands an entry to the leader: it answers with done once the entry
// is committed (or, with ackBeforeDurable, a write at once), or refuses
// when there is no leader to take it.
func (s *replsim) propose(e simEntry, done func(simEntry), refused func()) {
	if s.leader < 0 || !s.nodes[s.leader].up {
		refused()
		return
	}
	l := s.nodes[s.leader]
	e.term = s.term
	if e.app.Kind == history.LogAppend {
		e.seq = s.lastSeq(l) + 1
	}
	l.last++
	l.log[l.last] = e
	if s.bugs.ackBeforeDurable && e.op.Kind != history.KVGet {
		done(e)
		return
	}
	s.pend[l.last] = done
}

func (s *replsim) lastSeq(n *simNode) int64 {
	for idx := n.last; idx >= 1; idx-- {
		if e, ok := n.log[idx]; ok && e.app.Kind == history.LogAppend {
			return e.seq
		}
	}
	return 0
}

// heartbeat: the leader sends each follower what it lacks; an answer comes
// back after a round trip, and the commit index moves to what a majority
// holds (an entry of the leader's term). Without a leader reaching a
// majority, an election follows.
func (s *replsim) heartbeat() {
	li := s.leader
	if li < 0 || !s.reachable(li) || s.majority(li) < 2 {
		s.elect()
		return
	}
	l := s.nodes[li]
	for fi, f := range s.nodes {
		if fi == li || f.next > l.last {
			continue
		}
		from, term := f.next, s.term
		if !s.link(li, fi) {
			if s.bugs.dropMessages {
				f.next = l.last + 1 // sent and forgotten: never sent again
			}
			continue
		}
		entries := map[int]simEntry{}
		for idx := from; idx <= l.last; idx++ {
			entries[idx] = l.log[idx]
		}
		upTo := l.last
		s.after(simDelay, func() {
			if !s.link(li, fi) || s.term != term {
				return
			}
			if from > f.last+1 && !s.bugs.dropMessages {
				f.next = f.last + 1 // a hole: ask again from what it has
				return
			}
			for idx, e := range entries {
				f.log[idx] = e
			}
			f.last = max(f.last, upTo)
			f.commit = min(l.commit, f.last)
			s.after(simDelay, func() {
				if s.term == term && s.leader == li && s.link(li, fi) {
					f.match, f.next = max(f.match, upTo), max(f.next, upTo+1)
					s.advanceCommit()
				}
			})
		})
		if s.bugs.dropMessages {
			f.next = upTo + 1
		}
	}
}

func (s *replsim) majority(li int) int {
	n := 0
	for i := range s.nodes {
		if s.link(li, i) || i == li && s.reachable(i) {
			n++
		}
	}
	return n
}

// advanceCommit commits up to the last entry of the leader's term that a
// majority holds (with what comes before it), and answers its clients.
func (s *replsim) advanceCommit() {
	l := s.nodes[s.leader]
	upTo := l.commit
	for idx := l.last; idx > l.commit; idx-- {
		n := 1
		for i, f := range s.nodes {
			if i != s.leader && f.match >= idx {
				n++
			}
		}
		if n >= 2 && l.log[idx].term == s.term {
			upTo = idx
			break
		}
	}
	for idx := l.commit + 1; idx <= upTo; idx++ {
		e := l.log[idx]
		if e.op.Kind == history.KVGet {
			e.value, e.found = s.applied(l, e.op.Key())
		}
		l.commit = idx
		if done := s.pend[idx]; done != nil {
			delete(s.pend, idx)
			done(e)
		}
	}
}

// elect makes the node with the longest log among those reaching a majority
// the leader, after an election timeout; the others drop what it lacks.
func (s *replsim) elect() {
	if s.electing {
		return
	}
	s.leader = -1
	s.electing = true
	s.after(simElection, func() {
		s.electing = false
		best := -1
		for i, n := range s.nodes {
			if s.reachable(i) && s.majority(i) >= 2 && (best < 0 || s.lastTerm(n) > s.lastTerm(s.nodes[best]) ||
				s.lastTerm(n) == s.lastTerm(s.nodes[best]) && n.last > s.nodes[best].last) {
				best = i
			}
		}
		if best < 0 {
			return // the next heartbeat tries again
		}
		s.term++
		s.leader = best
		s.pend = map[int]func(simEntry){}
		l := s.nodes[best]
		for i, n := range s.nodes {
			if i != best {
				s.reconcile(n)
			}
			n.next, n.match = n.last+1, n.last
		}
		l.last++
		l.log[l.last] = simEntry{term: s.term} // a no-op of the new term commits what came before
	})
}

func (s *replsim) lastTerm(n *simNode) int { return n.log[n.last].term }

// reconcile drops from n what the leader does not hold.
func (s *replsim) reconcile(n *simNode) {
	if s.leader < 0 {
		return
	}
	l := s.nodes[s.leader]
	for idx := 1; idx <= n.last; idx++ {
		if e, ok := n.log[idx]; ok && (idx > l.last || l.log[idx].term != e.term) {
			for j := idx; j <= n.last; j++ {
				delete(n.log, j)
			}
			n.last = idx - 1
			n.commit = min(n.commit, n.last)
			return
		}
	}
}

// ListAgents, StopAgent, PartitionNetwork and LiftFault make it an arena
// runtime: kills (a node restarts a second later with its log), partitions
// (a node cut off from the others), and the leader's role read live.
func (s *replsim) ListAgents(context.Context) ([]fault.AgentInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	out := make([]fault.AgentInfo, len(s.nodes))
	for i, n := range s.nodes {
		out[i] = fault.AgentInfo{ID: n.id, Type: fault.TypeWorker, Status: fault.StatusRunning}
		if i == s.leader {
			out[i].Type = fault.TypeLeader
		}
		if !n.up {
			out[i].Status = fault.StatusStopped
		}
	}
	return out, nil
}

func (s *replsim) node(id string) (int, error) {
	i := slices.IndexFunc(s.nodes[:], func(n *simNode) bool { return n.id == id })
	if i < 0 {
		return 0, fmt.Errorf("no node %q", id)
	}
	return i, nil
}

func (s *replsim) StopAgent(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	i, err := s.node(id)
	if err != nil {
		return err
	}
	s.nodes[i].up = false
	s.after(simRestart, func() {
		s.nodes[i].up = true
		s.reconcile(s.nodes[i])
	})
	return nil
}

func (s *replsim) PartitionNetwork(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	i, err := s.node(id)
	if err == nil {
		s.nodes[i].isolated = true
	}
	return err
}

func (s *replsim) LiftFault(_ context.Context, kind fault.Type, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	i, err := s.node(id)
	if err == nil && kind == fault.NetworkPartition {
		s.nodes[i].isolated = false
		s.reconcile(s.nodes[i])
	}
	return err
}

// Probe: healthy when a leader reaches a majority.
func (s *replsim) Probe(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	if s.leader < 0 || !s.reachable(s.leader) || s.majority(s.leader) < 2 {
		return fmt.Errorf("no leader")
	}
	return nil
}

// brought wraps a check so that the simulation is brought up to the clock
// before it reads the history.
func (s *replsim) brought(c fault.Check) fault.Check {
	run := c.Run
	c.Run = func(ctx context.Context) error {
		s.mu.Lock()
		s.advance()
		s.mu.Unlock()
		return run(ctx)
	}
	return c
}

// Stream reads the stream from the leader (or, without one, the node that
// has most): every committed message.
func (s *replsim) Stream(context.Context) ([]history.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance()
	n := s.nodes[0]
	if s.leader >= 0 {
		n = s.nodes[s.leader]
	}
	var out []history.Message
	for idx := 1; idx <= n.commit; idx++ {
		if e, ok := n.log[idx]; ok && e.app.Kind == history.LogAppend {
			out = append(out, history.Message{Key: "s", Seq: e.seq, Value: e.app.Value})
		}
	}
	return out, nil
}
