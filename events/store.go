package events

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// AnyVersion as the expectedVersion of [MemoryStore.Append] skips the
// optimistic-concurrency check, for writers that own their stream outright.
const AnyVersion = ^uint64(0)

var (
	// ErrConflict means a stream's version was not the one the writer
	// expected: someone appended since the writer last read it. Errors
	// returned by Append wrap it in a [*ConflictError].
	ErrConflict = errors.New("events: version conflict")
	// ErrClosed means the store was closed.
	ErrClosed = errors.New("events: store closed")
)

// ConflictError is the error Append returns when the expected version does
// not match. The writer should re-read the stream, re-decide, and retry with
// Actual as its new expected version.
type ConflictError struct {
	Stream   string
	Expected uint64
	Actual   uint64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("events: stream %q: expected version %d, actual %d", e.Stream, e.Expected, e.Actual)
}

// Unwrap returns ErrConflict, so errors.Is(err, ErrConflict) holds.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// Stats is a snapshot of a store's counters.
type Stats struct {
	// Events is how many events were ever appended; it is also the Sequence
	// of the newest event.
	Events uint64 `json:"events"`
	// Retained is how many events are held in memory.
	Retained int `json:"retained"`
	// Dropped is how many of the oldest events retention discarded.
	Dropped uint64 `json:"dropped"`
	// Subscribers is how many subscriptions are open.
	Subscribers int `json:"subscribers"`
	// LaggedSubscribers is how many subscriptions were ever dropped because
	// their buffer was full.
	LaggedSubscribers uint64 `json:"lagged_subscribers"`
}

// MemoryStore is an in-memory event store. It is safe for concurrent use.
//
// One mutex guards everything. Appends are short (copy in, non-blocking sends
// out), and holding the lock across delivery is what makes every subscriber
// see events in Sequence order.
type MemoryStore struct {
	opts options

	mu       sync.Mutex
	closed   bool
	versions map[string]*uint64 // a pointer, so an append looks its stream up once
	// last is the stream of the last append and its version's pointer: a
	// writer appends to one stream over and over (arena's service to
	// "arena"), and comparing a string costs less than hashing it.
	last   string
	lastVP *uint64
	log    ring
	total  uint64 // events ever appended = Sequence of the newest
	lagged uint64
	subs   []*Subscription
}

// NewMemoryStore returns an empty store.
func NewMemoryStore(opts ...Option) *MemoryStore {
	o := options{retention: DefaultRetention, retentionBytes: DefaultRetentionBytes, subscriberBuffer: DefaultSubscriberBuffer}
	for _, opt := range opts {
		opt.apply(&o)
	}
	return &MemoryStore{opts: o, versions: make(map[string]*uint64), log: ring{limit: o.retention, limitBytes: o.retentionBytes}}
}

// Append appends evs to stream, all or none, provided the stream's current
// version is expectedVersion (0 for a new stream) or expectedVersion is
// [AnyVersion]. It fills in each event's Stream, Version, Sequence and, when
// empty, ID, and returns the stream's new version. Appending no events checks
// expectedVersion and returns the current version.
//
// A version mismatch returns a [*ConflictError]. Subscribers whose buffers
// are full are dropped rather than waited for, so Append never blocks on
// them.
//
// Append takes ownership of each event's Data and Metadata: the store keeps
// them as they are, without copying, and the caller must not modify them
// afterwards (encode a fresh payload per event). It never writes into evs.
func (s *MemoryStore) Append(ctx context.Context, stream string, evs []Event, expectedVersion uint64) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := validate(stream, evs); err != nil {
		return 0, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	vp, version, err := s.expect(stream, expectedVersion, len(evs) > 0)
	if err != nil || len(evs) == 0 {
		return version, err
	}
	for _, e := range evs {
		version = s.push(stream, vp, &e)
	}
	return version, nil
}

// AppendEvent is Append of the one event e, without a slice to hold it: a
// writer that appends one event at a time (arena's service, per action)
// need not keep one.
func (s *MemoryStore) AppendEvent(ctx context.Context, stream string, e Event, expectedVersion uint64) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := validateEvent(stream, 0, &e); err != nil {
		return 0, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	vp, version, err := s.expect(stream, expectedVersion, true)
	if err != nil {
		return version, err
	}
	return s.push(stream, vp, &e), nil
}

// expect returns stream's version, and the pointer that holds it (made for
// a new stream when create is set), or a *ConflictError when it is not
// expectedVersion. s.mu must be held.
func (s *MemoryStore) expect(stream string, expectedVersion uint64, create bool) (*uint64, uint64, error) {
	if s.closed {
		return nil, 0, ErrClosed
	}
	vp := s.lastVP
	if vp == nil || stream != s.last {
		if vp = s.versions[stream]; vp != nil {
			s.last, s.lastVP = stream, vp
		}
	}
	var version uint64
	if vp != nil {
		version = *vp
	}
	if expectedVersion != AnyVersion && expectedVersion != version {
		return nil, 0, &ConflictError{Stream: stream, Expected: expectedVersion, Actual: version}
	}
	if vp == nil && create {
		vp = new(uint64)
		s.versions[stream] = vp
		s.last, s.lastVP = stream, vp
	}
	return vp, version, nil
}

// push appends e (the caller's copy, which it fills in) to stream, whose
// version vp holds, and returns the stream's new version. A pointer, as an
// Event is copied once, into the ring. s.mu must be held.
func (s *MemoryStore) push(stream string, vp *uint64, e *Event) uint64 {
	*vp++
	s.total++
	e.Stream, e.Version, e.Sequence = stream, *vp, s.total
	// An empty ID stays empty in the ring and is made on the way out
	// (withID): most events are never read, and the string was one
	// allocation per event.
	s.log.push(e)
	// Deliver from e, not from the ring: with a batch larger than the
	// retention the ring may already have dropped it.
	s.deliver(e)
	return *vp
}

// withID returns e with the store's ID, "<stream>-<version>", if it has
// none of its own.
func withID(e Event) Event {
	if e.ID == "" {
		var buf [64]byte
		b := append(buf[:0], e.Stream...)
		b = append(b, '-')
		e.ID = string(strconv.AppendUint(b, e.Version, 10))
	}
	return e
}

// validate checks everything that can fail before the lock is taken, so an
// append that passes it cannot fail half-way.
func validate(stream string, evs []Event) error {
	if stream == "" {
		return errors.New("events: empty stream name")
	}
	for i := range evs {
		if err := validateEvent(stream, i, &evs[i]); err != nil {
			return err
		}
	}
	return nil
}

// validateEvent checks e, event i of an append to stream.
func validateEvent(stream string, i int, e *Event) error {
	if stream == "" {
		return errors.New("events: empty stream name")
	}
	if e.Type == "" {
		return fmt.Errorf("events: event[%d]: empty type", i)
	}
	if e.Stream != "" && e.Stream != stream {
		return fmt.Errorf("events: event[%d]: stream %q differs from append stream %q", i, e.Stream, stream)
	}
	return nil
}

// deliver offers e to every subscriber and forgets those that lagged.
// s.mu must be held.
func (s *MemoryStore) deliver(e *Event) {
	if len(s.subs) == 0 {
		return
	}
	ev := withID(*e)
	kept := s.subs[:0]
	for _, sub := range s.subs {
		if sub.offer(ev) {
			kept = append(kept, sub)
		} else {
			s.lagged++
		}
	}
	clear(s.subs[len(kept):])
	s.subs = kept
}

// StreamVersion returns the stream's current version, 0 for a stream never
// appended to. It keeps working after Close.
func (s *MemoryStore) StreamVersion(ctx context.Context, stream string) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if vp := s.versions[stream]; vp != nil {
		return *vp, nil
	}
	return 0, nil
}

// Read returns the retained events f selects, in Sequence order, at most
// limit of them (all when limit <= 0). It keeps working after Close, so a
// report can be built from a finished run.
func (s *MemoryStore) Read(ctx context.Context, f Filter, limit int) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Event
	for i := s.indexAfter(f.FromSequence); i < s.log.n; i++ {
		if limit > 0 && len(out) == limit {
			break
		}
		if e := s.log.at(i); f.Match(*e) {
			out = append(out, withID(*e))
		}
	}
	return out, nil
}

// indexAfter returns the ring index of the first retained event with
// Sequence > seq. Retained sequences are contiguous, so it is arithmetic.
// s.mu must be held.
func (s *MemoryStore) indexAfter(seq uint64) int {
	first := s.total - uint64(s.log.n) + 1
	if seq < first {
		return 0
	}
	return int(min(seq-first+1, uint64(s.log.n)))
}

// Stats returns a snapshot of the store's counters.
func (s *MemoryStore) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{
		Events:            s.total,
		Retained:          s.log.n,
		Dropped:           s.total - uint64(s.log.n),
		Subscribers:       len(s.subs),
		LaggedSubscribers: s.lagged,
	}
}

// Close closes every subscription (their Err becomes [ErrClosed]) and makes
// later Append and Subscribe calls fail with ErrClosed. Read and
// StreamVersion keep working. Close waits for the subscriptions' context
// watchers to exit and is safe to call more than once.
func (s *MemoryStore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	subs := s.subs
	s.subs = nil
	for _, sub := range subs {
		sub.end(ErrClosed)
	}
	s.mu.Unlock()

	for _, sub := range subs {
		sub.wait()
	}
	return nil
}
