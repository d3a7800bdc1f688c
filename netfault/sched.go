package netfault

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ares-arena/arena"
)

// ErrClosed is returned by Sleep (and so by the wrappers) once the network
// is closed: simulated goroutines should return when they see it.
var ErrClosed = errors.New("netfault: network closed")

// ErrNotSimulated: Sleep was called in virtual time from a goroutine that
// Go did not start; only simulated goroutines can wait on a virtual clock.
var ErrNotSimulated = errors.New("netfault: sleep in virtual time outside a goroutine started by Network.Go")

// scheduler is how the network waits: on the wall clock (wall) or on the
// run's virtual clock (sim).
type scheduler interface {
	now() time.Time
	spawn(fn func(ctx context.Context))
	sleep(ctx context.Context, d time.Duration) error
	withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc)
	advance()
	close()
}

// wall runs simulated goroutines as goroutines and sleeps on timers.
type wall struct {
	clock  arena.Clock
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newWall(clock arena.Clock) *wall {
	ctx, cancel := context.WithCancel(context.Background())
	return &wall{clock: clock, ctx: ctx, cancel: cancel}
}

func (r *wall) now() time.Time { return r.clock.Now() }

func (r *wall) spawn(fn func(ctx context.Context)) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		fn(r.ctx)
	}()
}

func (r *wall) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		if r.ctx.Err() != nil {
			return ErrClosed
		}
		return ctx.Err()
	case <-r.ctx.Done():
		return ErrClosed
	case <-t.C:
		return nil
	}
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

type wakeup struct {
	at  time.Time
	seq uint64
	ch  chan bool // true: run; false: the network closed
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

func (s *sim) now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t
}

// parkNow queues a wake-up at the current instant, unless the network is
// closed (nil).
func (s *sim) parkNow() chan bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	return s.park(s.t)
}

// park queues a wake-up at `at` (under s.mu) and returns its channel.
func (s *sim) park(at time.Time) chan bool {
	ch := make(chan bool)
	s.seq++
	heap.Push(&s.q, wakeup{at: at, seq: s.seq, ch: ch})
	return ch
}

func (s *sim) spawn(fn func(ctx context.Context)) {
	ch := s.parkNow()
	if ch == nil {
		return
	}
	go func() {
		if <-ch {
			fn(s.ctx)
		}
		s.yield <- struct{}{}
	}()
}

type deadlineKey struct{}

// withTimeout carries a virtual deadline: a context's own deadline is on
// the wall clock, which does not move in a virtual run.
func (s *sim) withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	dl := s.now().Add(d)
	if old, ok := ctx.Value(deadlineKey{}).(time.Time); ok && old.Before(dl) {
		dl = old
	}
	return context.WithValue(ctx, deadlineKey{}, dl), func() {}
}

func (s *sim) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		if s.ctx.Err() != nil {
			return ErrClosed
		}
		return err
	}
	dl, hasDeadline := ctx.Value(deadlineKey{}).(time.Time)
	ch, late, err := s.parkFor(d, dl, hasDeadline)
	if ch == nil {
		return err
	}
	s.yield <- struct{}{}
	if !<-ch {
		return ErrClosed
	}
	return late
}

// parkFor queues the wake-up of a sleep of d, cut at the deadline dl when
// there is one (late is then context.DeadlineExceeded). The channel is nil
// when the sleep does not park: err is then what it returns.
func (s *sim) parkFor(d time.Duration, dl time.Time, hasDeadline bool) (ch chan bool, late, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, ErrClosed
	}
	if hasDeadline && s.t.Add(d).After(dl) {
		d, late = max(dl.Sub(s.t), 0), context.DeadlineExceeded
	}
	switch {
	case d <= 0:
		return nil, late, late
	case !s.running:
		return nil, late, ErrNotSimulated
	}
	return s.park(s.t.Add(d)), late, nil
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
		w.ch <- true
		<-s.yield
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}
}

// due pops the next wake-up due by target and gives its goroutine control
// (running); with none due it brings the time to target and reports false.
func (s *sim) due(target time.Time) (wakeup, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
		w.ch <- false
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
