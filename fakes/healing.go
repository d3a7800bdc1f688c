package fakes

import (
	"time"

	"github.com/ares-arena/arena/fault"
)

type eventKind uint8

const (
	evArrival eventKind = iota
	evAttemptEnd
	evRetry
	evCheckpoint
	evResurrect
	evElection
	evNodeRepair
	evEdgeRepair
	evPartitionHeal
	evMCPReconnect
)

// event is a deadline. ref names what it acts on (a task slot, an agent, a
// role, a node or an edge); gen is that thing's generation when the deadline
// was set, so a deadline overtaken by events is recognised and skipped.
type event struct {
	at   time.Duration
	seq  uint64
	ref  int32
	gen  uint32
	kind eventKind
}

// Less orders deadlines by (at, seq); seq is unique.
func (a *event) Less(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// minCompact is the queue length below which stale deadlines are left to
// be popped and skipped.
const minCompact = 256

// schedule sets a deadline d after now. When the queue has doubled since it
// was last compacted, the deadlines overtaken by events go first: a fault
// lifted before its healing deadline leaves one behind, and under a clock
// that does not move (a long arena serve, a benchmark) nothing pops them.
func (c *Cluster) schedule(d time.Duration, kind eventKind, ref int, gen uint32) {
	if len(c.events) >= max(c.compactAt, minCompact) {
		c.events.DeleteFunc(c.stale)
		c.compactAt = 2 * len(c.events)
	}
	c.seq++
	at := c.now + d
	if at < c.now { // past the end of time: never due
		at = 1<<63 - 1
	}
	c.events.Push(event{at: at, seq: c.seq, ref: int32(ref), gen: gen, kind: kind})
}

// stale reports whether e was overtaken by events: the generation of what it
// acts on has moved on, so handle would skip it, now and for good
// (generations only grow). Dropping it changes nothing: (at, seq) is a total
// order, so the rest pop in the same sequence.
func (c *Cluster) stale(e *event) bool {
	switch e.kind {
	case evAttemptEnd, evRetry:
		return c.work.tasks[e.ref].gen != e.gen
	case evResurrect:
		return c.agents[e.ref].lifeGen != e.gen
	case evElection:
		return c.roles[e.ref].epoch != e.gen
	case evNodeRepair:
		return c.dag.nodes[e.ref].gen != e.gen
	case evEdgeRepair:
		return c.dag.edges[e.ref].gen != e.gen
	case evPartitionHeal:
		return c.agents[e.ref].partGen != e.gen
	case evMCPReconnect:
		return c.agents[e.ref].mcpGen != e.gen
	}
	return false
}

// advance runs every deadline due at or before the clock's reading, in
// (due, sequence) order, and leaves the simulation at that reading.
func (c *Cluster) advance() {
	target := c.clock.Now().Sub(c.start)
	if target < c.now {
		target = c.now // time never rewinds
	}
	for len(c.events) > 0 && c.events[0].at <= target {
		e := c.events.Pop()
		c.now = e.at
		c.handle(e)
		c.settle()
	}
	c.now = target
}

// settle follows up a change of state: it starts or cancels elections and
// dispatches queued tasks.
func (c *Cluster) settle() {
	c.checkRoles()
	c.dispatch()
}

func (c *Cluster) handle(e event) {
	switch e.kind {
	case evArrival:
		c.arrive()
	case evAttemptEnd:
		c.attemptEnd(int(e.ref), e.gen)
	case evRetry:
		c.retry(int(e.ref), e.gen)
	case evCheckpoint:
		c.checkpoint()
	case evResurrect:
		c.resurrect(int(e.ref), e.gen)
	case evElection:
		c.elect(int(e.ref), e.gen)
	case evNodeRepair:
		c.dag.repairNode(int(e.ref), e.gen)
	case evEdgeRepair:
		c.dag.repairEdge(int(e.ref), e.gen)
	case evPartitionHeal:
		if a := &c.agents[e.ref]; a.partGen == e.gen {
			a.partitioned = false
			c.touch(int(e.ref))
		}
	case evMCPReconnect:
		if a := &c.agents[e.ref]; a.mcpGen == e.gen {
			a.mcpDown = false
		}
	}
}

// checkpoint is a checkpoint tick: the memory of every running agent is
// checked against the checkpoint's checksum; a mismatch is restored from the
// checkpoint, a match becomes the new checkpoint. Only the agents on the
// corrupt list can mismatch: every other agent's memory is its checkpoint
// (checksum is a bijection), which checkpointing again leaves as it is. An
// agent leaves the list once its memory matches.
func (c *Cluster) checkpoint() {
	keep := c.corrupt[:0]
	for _, i := range c.corrupt {
		a := &c.agents[i]
		if a.status == fault.StatusRunning && a.corrupted() {
			a.mem = a.ckpt
		}
		if a.listed = a.corrupted(); a.listed {
			keep = append(keep, i)
		}
	}
	c.corrupt = keep
	c.schedule(c.opts.healing.CheckpointInterval, evCheckpoint, 0, 0)
}

func (c *Cluster) resurrect(i int, gen uint32) {
	a := &c.agents[i]
	if a.lifeGen != gen || a.status != fault.StatusStopped {
		return
	}
	a.status = fault.StatusRunning
	a.restarts++
	a.mem = a.ckpt
	c.touch(i)
}

// checkRoles schedules an election for a role whose holder has become
// unavailable, and cancels it when the holder is back in time.
func (c *Cluster) checkRoles() {
	h := &c.opts.healing
	if !h.Failover {
		return
	}
	for r := range c.roles {
		ro := &c.roles[r]
		up := c.available(ro.holder)
		switch {
		case !up && !ro.pending:
			ro.pending = true
			ro.epoch++
			d := h.ElectionTimeout
			if h.ElectionJitter > 0 {
				d += time.Duration(c.rngElection.Int64N(int64(h.ElectionJitter)))
			}
			c.schedule(d, evElection, r, ro.epoch)
		case up && ro.pending:
			ro.pending = false
			ro.epoch++
		}
	}
}

// elect moves a role to the lowest-ID available worker; the former holder
// becomes a worker (and rejoins as one when it comes back). With no worker
// available the election is retried after ElectionTimeout.
func (c *Cluster) elect(r int, gen uint32) {
	ro := &c.roles[r]
	if !ro.pending || ro.epoch != gen {
		return
	}
	for i := range c.agents {
		if c.agents[i].typ == fault.TypeWorker && c.available(i) {
			c.agents[ro.holder].typ = fault.TypeWorker
			c.agents[i].typ = ro.typ
			c.touch(ro.holder)
			c.touch(i)
			ro.holder = i
			ro.pending = false
			ro.epoch++
			return
		}
	}
	c.schedule(c.opts.healing.ElectionTimeout, evElection, r, gen)
}
