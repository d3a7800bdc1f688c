package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/heapq"
)

// EventKind says what a scheduled event does. It decides the order of events
// due at the same instant.
//
// Same-instant rule: events due at one instant run in EventKind order — lifts,
// then injections, then probe samples, then checks, then phase edges — and
// within a kind in the order they were scheduled. The world changes first
// (an ending fault is gone before a new one lands), then it is observed (a
// sample at the instant of an injection sees the fault), then judged, and a
// phase ends last so that it includes everything of its final instant.
type EventKind int

// Event kinds in same-instant order.
const (
	KindLift EventKind = iota
	KindInject
	KindSample
	KindCheck
	KindPhase
)

// executor plays a run's schedule of timed events. Both implementations are
// driven the same way: schedule with At, then Run.
type executor interface {
	clock.Clock
	// At schedules fn to run at t. It may be called from within an event,
	// and from goroutines started by Go.
	At(t time.Time, kind EventKind, fn func(ctx context.Context))
	// sampleAt schedules the observer's probe sample at t, as At(t,
	// KindSample, fn) would, when none is queued by it: see queue.sample.
	sampleAt(t time.Time, fn func(ctx context.Context))
	// Go runs fn concurrently with the schedule in real time, and at once,
	// on the executor's goroutine, in virtual time (where an injection takes
	// no time).
	Go(fn func(ctx context.Context))
	// Run plays events in order until the next event is after end (then the
	// clock reads end), or Stop is called, and returns ctx.Err() if ctx ends
	// first. It waits for everything started with Go before returning.
	Run(ctx context.Context, end time.Time) error
	// Stop ends Run after the event that is running: a schedule whose end
	// depends on what happens (the last step done, then a cooldown) stops
	// the run from an event at that instant.
	Stop()
	// Virtual reports whether the executor runs on a virtual clock.
	Virtual() bool
}

type scheduled struct {
	at   time.Time
	kind EventKind
	seq  uint64 // the order in which events were scheduled: see queue.seq
	fn   func(ctx context.Context)
}

// Less orders events by (at, kind, seq). seq is unique, so the order is
// total and any correct heap pops the same sequence.
func (a *scheduled) Less(b *scheduled) bool {
	if c := a.at.Compare(b.at); c != 0 {
		return c < 0
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

// queue is the schedule both executors share.
type queue struct {
	mu sync.Mutex
	q  heapq.Heap[scheduled, *scheduled]
	// sample is the observer's probe sample, when one is queued
	// (hasSample), outside the heap: the observer keeps one queued and
	// queues the next from the last, so samples are most of a run's events
	// and each would be a lock, a heap push and a pop. Only the goroutine
	// that plays the schedule touches it (sampleAt before Run or from an
	// event, next, pop and peek in Run), so it takes no lock. It is ordered
	// against q's top by the same Less, so the order of events is that of
	// one heap of them all.
	sample    scheduled
	hasSample bool
	// seq counts the events At scheduled; written under mu, read by
	// sampleAt without it. An At event's seq is 2·count, a sample's
	// 2·count+1: after the events scheduled before it, before the later.
	seq atomic.Uint64
	// gen counts the changes to q and stopped (At, Stop, startOvertime):
	// bumped under mu, read without it by pop, which takes the sample out
	// of turn only while q's top is the one it saw last.
	gen     atomic.Uint64
	stopped bool
	// overtime: the schedule is over and the run only watches its faults
	// settle (Run.overtime): injections are dropped, new ones refused.
	overtime bool
	wake     chan struct{} // signalled when an event is added or Stop is called (real time)
}

// Stop makes Run return after the current event.
func (s *queue) Stop() {
	s.mu.Lock()
	s.stopped = true
	s.gen.Add(1)
	s.mu.Unlock()
	s.signal()
}

func (s *queue) signal() {
	if s.wake != nil {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

func (s *queue) at(t time.Time, kind EventKind, fn func(ctx context.Context)) {
	s.mu.Lock()
	if s.overtime && kind == KindInject {
		s.mu.Unlock()
		return
	}
	n := s.seq.Load() + 1
	s.seq.Store(n)
	s.gen.Add(1)
	s.q.Push(scheduled{at: t, kind: kind, seq: n << 1, fn: fn})
	s.mu.Unlock()
	s.signal()
}

// sampleAt queues the observer's sample; see queue.sample for who may call
// it. None may be queued: the observer queues the next once the last ran.
func (s *queue) sampleAt(t time.Time, fn func(ctx context.Context)) {
	if s.hasSample {
		panic("arena: a probe sample is queued already")
	}
	s.sample = scheduled{at: t, kind: KindSample, seq: s.seq.Load()<<1 | 1, fn: fn}
	s.hasSample = true
}

// startOvertime readies the queue for a second Run after the schedule's
// end: Stop is undone, and the injections and phase edges still queued are
// dropped (the schedule is over: only lifts, samples and checks go on).
func (s *queue) startOvertime() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped, s.overtime = false, true
	s.gen.Add(1)
	s.q.DeleteFunc(func(e *scheduled) bool { return e.kind == KindInject || e.kind == KindPhase })
}

// overtimer is what Run.overtime needs of an executor: both of arena's have
// it through queue.
type overtimer interface{ startOvertime() }

func (s *queue) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// front returns the earliest event, in the sample slot or on the heap, or
// nil. Called with s.mu held.
func (s *queue) front() *scheduled {
	switch {
	case s.hasSample && (len(s.q) == 0 || s.sample.Less(&s.q[0])):
		return &s.sample
	case len(s.q) > 0:
		return &s.q[0]
	}
	return nil
}

// next pops the earliest event if it is due by end. seen, when not nil,
// is updated to what the heap holds at its top after the pop, for pop.
func (s *queue) next(end time.Time, seen *queueTop) (ev scheduled, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seen != nil {
		defer seen.look(s)
	}
	if s.stopped {
		return scheduled{}, false
	}
	front := s.front()
	switch {
	case front == nil || front.at.After(end):
		return scheduled{}, false
	case front == &s.sample:
		ev = s.sample
		s.sample, s.hasSample = scheduled{}, false
		return ev, true
	}
	return s.q.Pop(), true
}

// pop is next for the goroutine playing the queue, which keeps seen: it
// takes the sample without the lock while nothing was scheduled, stopped or
// dropped since seen was recorded, and the sample comes before the heap's
// top and is due by end; otherwise next decides. A virtual day is 864,000
// samples in a row between the other events: each would take the lock. It
// returns the event's time and function, not the event: a struct passed
// up by value is stored and read back, which costs more than the check.
func (s *queue) pop(end time.Time, seen *queueTop) (time.Time, func(ctx context.Context), bool) {
	if s.hasSample && seen.ok && s.gen.Load() == seen.gen && !s.sample.at.After(end) &&
		(!seen.has || s.sample.Less(&seen.top)) {
		s.hasSample = false
		return s.sample.at, s.sample.fn, true
	}
	ev, ok := s.next(end, seen)
	return ev.at, ev.fn, ok
}

// queueTop is what the heap of a queue held at its top when the goroutine
// playing it last looked, under the lock: next records it, and pop
// trusts it while the queue's gen has not moved.
type queueTop struct {
	gen     uint64
	top     scheduled // fn left out: only the order is read
	has, ok bool      // has: the heap was not empty; ok: looked, and not stopped
}

// look records s's top. Called with s.mu held.
func (t *queueTop) look(s *queue) {
	t.gen, t.ok, t.has = s.gen.Load(), !s.stopped, len(s.q) > 0
	if t.has {
		t.top = s.q[0]
		t.top.fn = nil
	}
}

func (s *queue) peek() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev := s.front(); ev != nil {
		return ev.at, true
	}
	return time.Time{}, false
}

// virtualExecutor jumps a clock.Virtual to each event and runs it at once, on
// one goroutine, in (time, kind, sequence) order. A day of chaos runs at CPU
// speed and the same schedule always gives the same run.
type virtualExecutor struct {
	clock *clock.Virtual
	queue
	ctx context.Context // Run's, for Go; guarded by queue.mu
}

// newVirtualExecutor returns an executor driving clock.
func newVirtualExecutor(clk *clock.Virtual) *virtualExecutor {
	return &virtualExecutor{clock: clk}
}

// Now returns the virtual time.
func (e *virtualExecutor) Now() time.Time { return e.clock.Now() }

// At schedules fn at t. A time in the past runs next, before the other
// events of the current instant.
func (e *virtualExecutor) At(t time.Time, kind EventKind, fn func(ctx context.Context)) {
	e.at(t, kind, fn)
}

// Go runs fn at once, with the context Run was given: in virtual time an
// injection takes no time.
func (e *virtualExecutor) Go(fn func(ctx context.Context)) {
	e.mu.Lock()
	ctx := e.ctx
	e.mu.Unlock()
	if ctx == nil {
		ctx = context.Background()
	}
	fn(ctx)
}

// Virtual reports true.
func (e *virtualExecutor) Virtual() bool { return true }

// Run plays the schedule up to end.
func (e *virtualExecutor) Run(ctx context.Context, end time.Time) error {
	e.mu.Lock()
	e.ctx = ctx
	e.mu.Unlock()
	var seen queueTop
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		at, fn, ok := e.pop(end, &seen)
		if !ok {
			if !e.isStopped() {
				e.clock.Set(end)
			}
			return nil
		}
		e.clock.Set(at)
		fn(ctx)
	}
}

// realExecutor sleeps until each event is due. Work started with Go runs on
// its own goroutine, so slow injections overlap as they would in production.
// It reads time from its Clock, so it also runs inside testing/synctest.
type realExecutor struct {
	clock clock.Clock
	queue
	emu     sync.Mutex
	wg      sync.WaitGroup
	ctx     context.Context // for work started with Go; cancelled grace after the end
	cancel  context.CancelFunc
	pending []func(ctx context.Context)
	// grace is how long Run waits, once the schedule is over, for work
	// started with Go before cancelling its context (default 5s): a hung
	// provider call must not hold a run past its end.
	grace time.Duration
}

// defaultGrace is realExecutor.grace's default.
const defaultGrace = 5 * time.Second

// newRealExecutor returns a wall-clock executor (clock nil means clock.Real).
func newRealExecutor(clk clock.Clock) *realExecutor {
	if clk == nil {
		clk = clock.Real{}
	}
	e := &realExecutor{clock: clk, grace: defaultGrace}
	e.wake = make(chan struct{}, 1)
	return e
}

// Now reads the executor's clock.
func (e *realExecutor) Now() time.Time { return e.clock.Now() }

// At schedules fn at t.
func (e *realExecutor) At(t time.Time, kind EventKind, fn func(ctx context.Context)) {
	e.at(t, kind, fn)
}

// Virtual reports false.
func (e *realExecutor) Virtual() bool { return false }

// Go runs fn on a new goroutine with the run's context. Called before Run,
// fn starts when Run starts.
func (e *realExecutor) Go(fn func(ctx context.Context)) {
	e.emu.Lock()
	defer e.emu.Unlock()
	if e.ctx == nil {
		e.pending = append(e.pending, fn)
		return
	}
	e.start(e.ctx, fn)
}

func (e *realExecutor) start(ctx context.Context, fn func(ctx context.Context)) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		fn(ctx)
	}()
}

// Run plays the schedule up to end in real time.
func (e *realExecutor) Run(ctx context.Context, end time.Time) error {
	e.emu.Lock()
	e.ctx, e.cancel = context.WithCancel(ctx)
	for _, fn := range e.pending {
		e.start(e.ctx, fn)
	}
	e.pending = nil
	e.emu.Unlock()
	defer e.drain()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.isStopped() {
			return nil
		}
		at, ok := e.peek()
		if !ok || at.After(end) {
			at = end
		}
		if wait := at.Sub(e.clock.Now()); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-e.wake:
				continue // an earlier event may have arrived, or Stop
			case <-timer.C:
			}
		}
		ev, ok := e.next(end, nil)
		if !ok {
			if !e.clock.Now().Before(end) {
				return nil
			}
			continue
		}
		ev.fn(ctx)
	}
}

// drain waits for the work started with Go, at most grace, then cancels
// its context and waits for it to return.
func (e *realExecutor) drain() {
	done := make(chan struct{})
	go func() {
		e.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(e.grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	e.cancel()
	<-done
}
