package fakes

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ares-arena/arena/internal/netrules"
)

// TaskStats are the task ledger's counters since the cluster started.
// Created = Completed + Failed + Lost + InFlight + Queued.
type TaskStats struct {
	Created   int `json:"created"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`    // failed terminally
	Lost      int `json:"lost"`      // in flight on a worker killed or paused without checkpoints
	InFlight  int `json:"in_flight"` // assigned to a worker: running or waiting to be retried
	Queued    int `json:"queued"`    // waiting for an orchestrator and a routable worker
	Retries   int `json:"retries"`   // attempts retried on the same worker
	Reroutes  int `json:"reroutes"`  // tasks moved to another worker
}

// queueLimit bounds the queue of tasks waiting for an orchestrator and a
// routable worker; an arrival beyond it fails terminally (load shedding),
// which keeps a cluster that never heals from growing without bound.
const queueLimit = 1000

// maxBackoff caps the doubling backoff, whatever MaxRetries says.
const maxBackoff = time.Hour

type taskState uint8

const (
	taskFree taskState = iota
	taskQueued
	taskRunning
	taskBackoff // failed, waiting to be retried on the same worker
)

// task is a slot of the ledger, reused once the task finishes. Only tasks
// that have not finished are kept.
type task struct {
	id        uint64
	epoch     uint64 // the worker's faultEpoch when the attempt started
	gen       uint32 // bumped on every new deadline or cancellation
	state     taskState
	fails     bool // the attempt fails, as decided when it started
	retryable bool
	worker    int32
	retries   int32 // on the current worker
	reroutes  int32
}

type finish struct {
	at     time.Duration
	failed bool
}

type workload struct {
	tasks   []task
	free    []int32
	queue   ring[int32]
	nextID  uint64
	rr      int // index of the worker that got the last task
	stats   TaskStats
	window  ring[finish] // finishes within the error window, oldest first
	ok, bad int          // completions and terminal failures in window
	scratch []int32
}

func (w *workload) init() { w.rr = -1 }

func (w *workload) alloc(id uint64) int {
	var s int
	if n := len(w.free); n > 0 {
		s = int(w.free[n-1])
		w.free = w.free[:n-1]
	} else {
		s = len(w.tasks)
		w.tasks = append(w.tasks, task{})
	}
	t := &w.tasks[s]
	*t = task{id: id, gen: t.gen + 1, state: taskQueued}
	return s
}

func (w *workload) release(s int) {
	t := &w.tasks[s]
	t.state = taskFree
	t.gen++
	w.free = append(w.free, int32(s))
}

func (w *workload) record(now time.Duration, failed bool) {
	if failed {
		w.stats.Failed++
		w.bad++
	} else {
		w.stats.Completed++
		w.ok++
	}
	w.window.pushBack(finish{now, failed})
}

// errorRate drops finishes older than the window and returns the failed
// share of the rest.
func (w *workload) errorRate(now, window time.Duration) float64 {
	for w.window.len() > 0 && w.window.front().at <= now-window {
		if w.window.popFront().failed {
			w.bad--
		} else {
			w.ok--
		}
	}
	if w.ok+w.bad == 0 {
		return 0
	}
	return float64(w.bad) / float64(w.ok+w.bad)
}

// jitter returns d ± d/div, drawn from r.
func jitter(r *rand.Rand, d, div time.Duration) time.Duration {
	if j := d / div; j > 0 {
		d += time.Duration(r.Int64N(int64(2*j+1))) - j
	}
	return d
}

func (c *Cluster) scheduleArrival() {
	c.schedule(jitter(c.rngArrival, c.opts.taskInterval, 5), evArrival, 0, 0)
}

func (c *Cluster) arrive() {
	w := &c.work
	w.nextID++
	w.stats.Created++
	if w.queue.len() >= queueLimit {
		w.record(c.now, true)
	} else {
		w.queue.pushBack(int32(w.alloc(w.nextID)))
	}
	c.scheduleArrival()
}

// dispatch hands queued tasks to routable workers while an orchestrator is
// available.
func (c *Cluster) dispatch() {
	w := &c.work
	if w.queue.len() == 0 || !c.available(c.roles[roleOrchestrator].holder) {
		return
	}
	for w.queue.len() > 0 {
		a := c.nextRoutable(-1)
		if a < 0 {
			return
		}
		c.startAttempt(int(w.queue.popFront()), a)
	}
}

// nextRoutable returns the next routable worker after the last one assigned,
// round-robin, other than exclude; -1 if there is none.
func (c *Cluster) nextRoutable(exclude int) int {
	n := len(c.agents)
	for k := 1; k <= n; k++ {
		i := (c.work.rr + k) % n // rr starts at -1
		if i != exclude && c.routable(i) {
			c.work.rr = i
			return i
		}
	}
	return -1
}

// failure reports whether an attempt on a is failing right now, and whether
// the failure is worth retrying.
func (a *agent) failure() (fails, retryable bool) {
	switch {
	case a.toolTimeout > 0, a.mcpDown, a.partitioned, a.corrupted():
		return true, true
	case a.llm != "":
		return true, a.llm.Retryable()
	}
	return false, true
}

func (c *Cluster) startAttempt(s, worker int) {
	t := &c.work.tasks[s]
	a := &c.agents[worker]
	d := jitter(c.rngDuration, c.opts.taskDuration, 4)
	fails, retryable := a.failure()
	if a.toolTimeout > 0 {
		d = a.toolTimeout // the tool call hangs until it times out
	}
	plan := c.link(worker)
	d = netrules.Add(netrules.Add(d, a.slow), plan.Exchange(taskPayload))
	if plan.Cut {
		fails, retryable = true, true
	}
	if wait, reset := plan.Step(0, d); reset {
		d, fails, retryable = wait, true, true // a fresh connection may get through
	}
	if d > c.opts.taskTimeout {
		d, fails = c.opts.taskTimeout, true
	}
	*t = task{
		id: t.id, epoch: a.faultEpoch, gen: t.gen + 1, state: taskRunning,
		fails: fails, retryable: retryable,
		worker: int32(worker), retries: t.retries, reroutes: t.reroutes,
	}
	c.schedule(d, evAttemptEnd, s, t.gen)
}

func (c *Cluster) attemptEnd(s int, gen uint32) {
	t := &c.work.tasks[s]
	if t.gen != gen || t.state != taskRunning {
		return
	}
	fails, retryable := t.fails, t.retryable
	if !fails {
		// A fault active now, or one that landed and was lifted meanwhile.
		a := &c.agents[t.worker]
		fails, retryable = a.failure()
		if !fails && a.faultEpoch != t.epoch {
			fails, retryable = true, true
		}
	}
	if !fails {
		c.work.record(c.now, false)
		c.work.release(s)
		return
	}
	h := &c.opts.healing
	if !h.Retries {
		c.work.record(c.now, true)
		c.work.release(s)
		return
	}
	if retryable && int(t.retries) < h.MaxRetries {
		t.retries++
		t.state = taskBackoff
		t.gen++
		c.work.stats.Retries++
		c.schedule(backoff(h.Backoff, int(t.retries)), evRetry, s, t.gen)
		return
	}
	c.reroute(s)
}

// backoff returns the wait before the k-th retry: b, 2b, 4b…, at most
// maxBackoff.
func backoff(b time.Duration, k int) time.Duration {
	for ; k > 1 && b < maxBackoff; k-- {
		b *= 2
	}
	return min(b, maxBackoff)
}

func (c *Cluster) retry(s int, gen uint32) {
	t := &c.work.tasks[s]
	if t.gen != gen || t.state != taskBackoff {
		return
	}
	if c.routable(int(t.worker)) {
		c.startAttempt(s, int(t.worker))
		return
	}
	c.reroute(s)
}

// reroute moves a task to another routable worker, or back to the queue when
// no orchestrator is available to route it; it fails the task when reroutes
// are exhausted or no other worker is routable.
func (c *Cluster) reroute(s int) {
	t := &c.work.tasks[s]
	fail := int(t.reroutes) >= c.opts.healing.MaxReroutes
	worker := -1
	orch := c.available(c.roles[roleOrchestrator].holder)
	if !fail && orch {
		worker = c.nextRoutable(int(t.worker))
		fail = worker < 0
	}
	if fail {
		c.work.record(c.now, true)
		c.work.release(s)
		return
	}
	t.reroutes++
	t.retries = 0
	c.work.stats.Reroutes++
	if !orch {
		t.state = taskQueued
		t.gen++
		c.work.queue.pushFront(int32(s))
		return
	}
	c.startAttempt(s, worker)
}

// evacuate handles the tasks assigned to agent i when it is killed or
// paused: with checkpoints the ledger requeues them (oldest first, ahead of
// newer arrivals); without, they are lost.
func (c *Cluster) evacuate(i int) {
	w := &c.work
	w.scratch = w.scratch[:0]
	for s := range w.tasks {
		if t := &w.tasks[s]; (t.state == taskRunning || t.state == taskBackoff) && int(t.worker) == i {
			w.scratch = append(w.scratch, int32(s))
		}
	}
	if !c.opts.healing.Checkpoints {
		for _, s := range w.scratch {
			w.stats.Lost++
			w.release(int(s))
		}
		return
	}
	slices.SortFunc(w.scratch, func(a, b int32) int { return cmp.Compare(w.tasks[b].id, w.tasks[a].id) })
	for _, s := range w.scratch {
		t := &w.tasks[s]
		t.state = taskQueued
		t.gen++
		t.retries = 0
		w.queue.pushFront(s)
	}
}

// ring is a growable FIFO ring buffer that also pushes at the front.
type ring[T any] struct {
	buf     []T
	head, n int
}

func (r *ring[T]) len() int { return r.n }

func (r *ring[T]) grow() {
	if r.n < len(r.buf) {
		return
	}
	buf := make([]T, max(16, 2*len(r.buf)))
	for i := 0; i < r.n; i++ {
		buf[i] = r.buf[(r.head+i)%len(r.buf)]
	}
	r.buf, r.head = buf, 0
}

func (r *ring[T]) pushBack(x T) {
	r.grow()
	r.buf[(r.head+r.n)%len(r.buf)] = x
	r.n++
}

func (r *ring[T]) pushFront(x T) {
	r.grow()
	r.head = (r.head - 1 + len(r.buf)) % len(r.buf)
	r.buf[r.head] = x
	r.n++
}

func (r *ring[T]) front() T { return r.buf[r.head] }

func (r *ring[T]) popFront() T {
	x := r.buf[r.head]
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	return x
}
