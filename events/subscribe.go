package events

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
)

// ErrLagged means a subscriber fell a whole buffer behind and was dropped,
// because Append never waits. The error a [Subscription] reports wraps it and
// says the last sequence delivered, from which the subscriber can resume.
var ErrLagged = errors.New("events: subscriber lagged")

// Subscription is a live feed of the events a [Filter] selects. Read it from
// [Subscription.C] until the channel closes, then ask [Subscription.Err] why.
type Subscription struct {
	store  *MemoryStore
	filter Filter
	ch     chan Event
	done   chan struct{} // closed with ch; stops the context watcher
	exited chan struct{} // closed by the watcher on exit; nil without one

	// last is written only under store.mu, but read without it so that a
	// consumer polling LastSequence never contends with Append.
	last atomic.Uint64

	// Guarded by store.mu.
	ended bool
	err   error
}

// Subscribe returns a subscription to the events f selects. It first replays
// the retained events with Sequence > f.FromSequence into the subscription's
// buffer, then delivers new events as they are appended. Replay and
// registration happen under one lock, so no event is missed or repeated
// between them. To follow only new events, set f.FromSequence to
// Stats().Events.
//
// If the replay alone fills the buffer, the subscription is returned already
// lagged: C holds a full buffer of replayed events and is closed, and Err
// wraps [ErrLagged]. Read C, then subscribe again from LastSequence.
//
// The subscription ends when ctx is done, when it is closed, when the store
// closes, or when it lags.
func (s *MemoryStore) Subscribe(ctx context.Context, f Filter) (*Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sub := &Subscription{
		store:  s,
		filter: f.clone(),
		ch:     make(chan Event, s.opts.subscriberBuffer),
		done:   make(chan struct{}),
	}
	sub.last.Store(f.FromSequence)
	// Without a Done channel ctx can never end the subscription, so it
	// needs no watcher goroutine.
	if ctx.Done() != nil {
		sub.exited = make(chan struct{})
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	lagged := false
	for i := s.indexAfter(f.FromSequence); i < s.log.n; i++ {
		if !sub.offer(withID(*s.log.at(i))) {
			lagged = true
			s.lagged++
			break
		}
	}
	if !lagged {
		s.subs = append(s.subs, sub)
	}
	s.mu.Unlock()

	if sub.exited != nil {
		// Started even when already lagged, so exited always gets closed
		// and wait never blocks forever; it returns at once then.
		go sub.watch(ctx)
	}
	return sub, nil
}

// offer makes a non-blocking send of e if the filter selects it, and ends the
// subscription if the buffer is full. It reports whether the subscription is
// still open. s.store.mu must be held.
func (sub *Subscription) offer(e Event) bool {
	if !sub.filter.Match(e) {
		return true
	}
	select {
	case sub.ch <- e:
		sub.last.Store(e.Sequence)
		return true
	default:
		sub.end(fmt.Errorf("%w after sequence %d: buffer of %d full", ErrLagged, sub.last.Load(), cap(sub.ch)))
		return false
	}
}

// end closes the subscription with err as its reason. sub.store.mu must be
// held, and the caller must also remove sub from the store's list.
func (sub *Subscription) end(err error) {
	if sub.ended {
		return
	}
	sub.ended = true
	sub.err = err
	close(sub.ch)
	close(sub.done)
}

// watch ends the subscription when ctx is done, and exits as soon as the
// subscription ends for any other reason.
func (sub *Subscription) watch(ctx context.Context) {
	defer close(sub.exited)
	select {
	case <-ctx.Done():
		sub.store.unsubscribe(sub, ctx.Err())
	case <-sub.done:
	}
}

// wait blocks until the context watcher, if any, has exited.
func (sub *Subscription) wait() {
	if sub.exited != nil {
		<-sub.exited
	}
}

// unsubscribe ends sub with err unless it already ended, and forgets it.
func (s *MemoryStore) unsubscribe(sub *Subscription, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub.ended {
		return
	}
	sub.end(err)
	if i := slices.Index(s.subs, sub); i >= 0 {
		s.subs = slices.Delete(s.subs, i, i+1) // zeroes the freed slot
	}
}

// C returns the channel events are delivered on, in Sequence order. It is
// closed when the subscription ends; events already buffered stay readable.
func (sub *Subscription) C() <-chan Event { return sub.ch }

// Err returns nil while the subscription is open. Once it has ended it
// returns why: ctx.Err() if its context ended it, nil if Close did,
// [ErrClosed] if the store closed, or an error wrapping [ErrLagged] that
// names the last sequence delivered.
func (sub *Subscription) Err() error {
	sub.store.mu.Lock()
	defer sub.store.mu.Unlock()
	return sub.err
}

// Close ends the subscription and waits for its context watcher to exit. It
// is safe to call more than once and after the subscription has ended for
// another reason, whose Err it keeps.
func (sub *Subscription) Close() {
	sub.store.unsubscribe(sub, nil)
	sub.wait()
}

// LastSequence returns the Sequence of the last event delivered into C, or
// the filter's FromSequence if none was. Subscribing or reading again with
// FromSequence set to it resumes without gaps or duplicates, once the
// events still in C have been consumed.
func (sub *Subscription) LastSequence() uint64 { return sub.last.Load() }
