package netfault

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/internal/netrules"
)

// ErrClosed is returned by Sleep (and so by the wrappers) once the network
// is closed: simulated goroutines should return when they see it.
var ErrClosed = errors.New("netfault: network closed")

// ErrNotSimulated: Sleep was called in virtual time from a goroutine that
// Go did not start; only simulated goroutines can wait on a virtual clock.
var ErrNotSimulated = errors.New("netfault: sleep in virtual time outside a goroutine started by Network.Go")

// scheduler is how the network waits: on the wall clock (wall) or on the
// run's virtual clock (sim). Its Sleep is the netrules.Clock the wrappers'
// waits run on: it ends early when wake is closed (the link's faults
// changed), with the context, and with ErrClosed at Close.
type scheduler interface {
	netrules.Clock
	spawn(fn func(ctx context.Context))
	withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
	advance()
	close()
}

// wall runs simulated goroutines as goroutines and sleeps on timers.
type wall struct {
	netrules.TimerClock
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newWall(clock arena.Clock) *wall {
	ctx, cancel := context.WithCancel(context.Background())
	return &wall{TimerClock: netrules.TimerClock{Clock: clock.Now, Closed: ctx.Done(), Err: ErrClosed}, ctx: ctx, cancel: cancel}
}

func (r *wall) spawn(fn func(ctx context.Context)) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		fn(r.ctx)
	}()
}

func (r *wall) withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

func (r *wall) advance() {}

func (r *wall) close() {
	r.cancel()
	r.wg.Wait()
}

// sim is a cooperative scheduler on a virtual clock. Simulated goroutines
// run one at a time: advance wakes each one due by the clock's reading, in
// (wake time, sequence) order, and waits until it sleeps again or returns.
// While one runs, now is its wake time, so everything it does happens at a
// definite virtual instant and a run is reproducible. Like the fakes, the
// simulation is brought up to the clock lazily, whenever the system is
// probed, faulted or lifted (Network.Advance).
//
// A sleep that can end early (its context, or the wake channel of a link's
// faults) is woken at the current instant by the next advance after it can:
// advance looks for them before it wakes anything else, so that a lift or a
// cancellation lands at a definite instant too.
type sim struct {
	clock *arena.VirtualClock
	ctx   context.Context
	stop  context.CancelFunc

	advMu sync.Mutex // one advance (or close) at a time

	mu      sync.Mutex
	t       time.Time
	q       wakeQueue
	seq     uint64
	running bool // a simulated goroutine has control
	closed  bool
	yield   chan struct{} // a simulated goroutine gives control back
}

// How a parked goroutine is woken.
type wakeReason uint8

const (
	wokeClosed      wakeReason = iota // the network closed
	wokeDue                           // its time came
	wokeInterrupted                   // its context ended or its wake channel closed
)

type wakeup struct {
	at          time.Time
	seq         uint64
	ch          chan wakeReason
	ctx         context.Context // nil: cannot end early
	wake        <-chan struct{}
	interrupted bool
}

type wakeQueue []wakeup

func (q wakeQueue) Len() int { return len(q) }
func (q wakeQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q wakeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *wakeQueue) Push(x any)   { *q = append(*q, x.(wakeup)) }
func (q *wakeQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

func newSim(clock *arena.VirtualClock) *sim {
	ctx, stop := context.WithCancel(context.Background())
	return &sim{clock: clock, ctx: ctx, stop: stop, t: clock.Now(), yield: make(chan struct{})}
}

func (s *sim) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t
}

// park queues a wake-up at `at` (under s.mu) and returns its channel.
func (s *sim) park(at time.Time, ctx context.Context, wake <-chan struct{}) chan wakeReason {
	ch := make(chan wakeReason)
	s.seq++
	if ctx != nil && ctx.Done() == nil && wake == nil {
		ctx = nil // nothing can end it early: advance need not look at it
	}
	heap.Push(&s.q, wakeup{at: at, seq: s.seq, ch: ch, ctx: ctx, wake: wake})
	return ch
}

// parkNow queues a wake-up at the current instant, unless the network is
// closed (nil).
func (s *sim) parkNow() chan wakeReason {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	return s.park(s.t, nil, nil)
}

func (s *sim) spawn(fn func(ctx context.Context)) {
	ch := s.parkNow()
	if ch == nil {
		return
	}
	go func() {
		if <-ch != wokeClosed {
			fn(s.ctx)
		}
		s.yield <- struct{}{}
	}()
}

type deadlineKey struct{}

// withTimeout carries a virtual deadline: a context's own deadline is on
// the wall clock, which does not move in a virtual run.
func (s *sim) withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	dl := s.Now().Add(d)
	if old, ok := ctx.Value(deadlineKey{}).(time.Time); ok && old.Before(dl) {
		dl = old
	}
	return context.WithValue(ctx, deadlineKey{}, dl), func() {}
}

// Sleep parks the simulated goroutine for d of virtual time, at most until
// its context's virtual deadline (then context.DeadlineExceeded). It ends
// early, at the instant of the advance that sees it, when ctx ends or wake
// closes.
func (s *sim) Sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	if err := ctx.Err(); err != nil {
		if s.ctx.Err() != nil {
			return ErrClosed
		}
		return err
	}
	dl, hasDeadline := ctx.Value(deadlineKey{}).(time.Time)
	ch, late, err := s.parkFor(ctx, d, dl, hasDeadline, wake)
	if ch == nil {
		return err
	}
	s.yield <- struct{}{}
	switch <-ch {
	case wokeClosed:
		return ErrClosed
	case wokeInterrupted:
		return ctx.Err() // nil when woken by wake: the caller looks again
	}
	return late
}

// parkFor queues the wake-up of a sleep of d, cut at the deadline dl when
// there is one (late is then context.DeadlineExceeded). The channel is nil
// when the sleep does not park: err is then what it returns.
func (s *sim) parkFor(ctx context.Context, d time.Duration, dl time.Time, hasDeadline bool, wake <-chan struct{}) (ch chan wakeReason, late, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, ErrClosed
	}
	at := s.t.Add(d)
	if d > 0 && at.Before(s.t) { // past the end of time
		at = time.Unix(1<<62, 0)
	}
	if hasDeadline && at.After(dl) {
		d, at, late = max(dl.Sub(s.t), 0), dl, context.DeadlineExceeded
	}
	switch {
	case d <= 0:
		return nil, late, late
	case !s.running:
		return nil, late, ErrNotSimulated
	}
	return s.park(at, ctx, wake), late, nil
}

// advance runs every simulated goroutine due by the clock's reading. A call
// made while one runs (from the goroutine itself, say a probe it calls)
// returns at once: the world is already being advanced.
func (s *sim) advance() {
	if !s.advMu.TryLock() {
		return
	}
	defer s.advMu.Unlock()
	target := s.clock.Now()
	for {
		w, ok := s.due(target)
		if !ok {
			return
		}
		reason := wokeDue
		if w.interrupted {
			reason = wokeInterrupted
		}
		w.ch <- reason
		<-s.yield
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}
}

// due pops the next wake-up due by target and gives its goroutine control
// (running); with none due it brings the time to target and reports false.
// A sleep whose context ended or whose wake channel closed is due now.
func (s *sim) due(target time.Time) (wakeup, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interrupt()
	if s.closed || len(s.q) == 0 || s.q[0].at.After(target) {
		if !s.closed && target.After(s.t) {
			s.t = target
		}
		return wakeup{}, false
	}
	w := heap.Pop(&s.q).(wakeup)
	if w.at.After(s.t) {
		s.t = w.at
	}
	s.running = true
	return w, true
}

// interrupt brings forward to the current instant the sleeps that can end
// now (under s.mu).
func (s *sim) interrupt() {
	moved := false
	for i := range s.q {
		w := &s.q[i]
		if w.ctx == nil || w.interrupted || !(w.ctx.Err() != nil || closed(w.wake)) {
			continue
		}
		w.interrupted = true
		if w.at.After(s.t) {
			w.at = s.t
		}
		moved = true
	}
	if moved {
		heap.Init(&s.q)
	}
}

func closed(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// close wakes every parked goroutine with ErrClosed and waits until each
// has returned.
func (s *sim) close() {
	s.advMu.Lock()
	defer s.advMu.Unlock()
	if !s.markClosed() {
		return
	}
	for {
		w, ok := s.pop()
		if !ok {
			return
		}
		w.ch <- wokeClosed
		<-s.yield
	}
}

// markClosed closes the simulation; false when it was closed already.
func (s *sim) markClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.closed = true
	s.running = true // what the woken goroutines do until they return is not simulated
	s.stop()
	return true
}

// pop takes the next wake-up off the queue.
func (s *sim) pop() (wakeup, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.q) == 0 {
		return wakeup{}, false
	}
	return heap.Pop(&s.q).(wakeup), true
}
