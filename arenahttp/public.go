package arenahttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The public pool. What is served without the key (the dashboard's files,
// the login) draws from a pool of its own, bounded in total and per client
// address (clientAddr: the connection's, an IPv6 one by its /64), so that
// no client without the key takes the capacity of work with it (the route
// classes of WithMaxConcurrent), nor one address the whole pool.
//
// A slot is held only while the server works on a request. Waiting for the
// client holds its connection, never a slot: a public request's body (at
// most PublicBodyLimit bytes) is read before the slot is taken, within
// WithBodyReadTimeout; the answer is made under the slot and written after
// it is given back, under the write deadline (deadline.go). So a login
// that trickles its body, or a reader that never reads its answers, costs
// the pool nothing.
//
// Refusals given before the key is known (401, 403, 429; 404 and 405 come
// only after it) take no slot: they cost no more than the 503 that a full
// pool would answer instead.
const (
	// DefaultPublicCapacity is how many requests without the key are
	// worked on at once.
	DefaultPublicCapacity = 16
	// DefaultPublicPerAddress is how many of them may come from one
	// client address.
	DefaultPublicPerAddress = 4
	// PublicBodyLimit bounds, in bytes, the body of a public request (the
	// login's {"key": …}), which is read before a slot is taken; a larger
	// one is a 413.
	PublicBodyLimit = 16 << 10
)

type publicCapacityOption struct{ total, perAddress int }

func (o publicCapacityOption) apply(s *options) {
	s.publicTotal, s.publicPerAddress = o.total, o.perAddress
}

// WithPublicCapacity bounds the requests served without the key that are
// worked on at once (the dashboard's files, the login): total in all
// (default 16), perAddress from one client address (default 4). One more
// waits for a slot, up to a second, then is answered 503 with a
// Retry-After, and its connection is closed.
func WithPublicCapacity(total, perAddress int) Option {
	if perAddress < 1 || total < perAddress {
		panic("arena: WithPublicCapacity: want 1 <= perAddress <= total")
	}
	return publicCapacityOption{total, perAddress}
}

// publicWait is how long a public request waits for a slot before it is
// answered 503. A slot is held for the server's own work, microseconds, so
// a pool that is full now is free again at once: without the wait a flood
// of answers made together would refuse the page between them.
const publicWait = time.Second

// publicPool is the public requests' slots: one semaphore in all, one per
// client address (kept while some request of that address holds or waits
// for a slot).
type publicPool struct {
	total, perAddress int
	all               chan struct{}

	mu     sync.Mutex
	byAddr map[string]*addrSlots
}

type addrSlots struct {
	sem   chan struct{}
	users int // requests holding or waiting for one of sem; guarded by publicPool.mu
}

func newPublicPool(total, perAddress int) publicPool {
	return publicPool{total: total, perAddress: perAddress, all: make(chan struct{}, total), byAddr: map[string]*addrSlots{}}
}

// take waits, up to publicWait or the end of ctx, for a slot of addr's and
// one of the pool's. The slot is given back by release.
func (p *publicPool) take(ctx context.Context, addr string) (release func(), ok bool) {
	p.mu.Lock()
	a := p.byAddr[addr]
	if a == nil {
		a = &addrSlots{sem: make(chan struct{}, p.perAddress)}
		p.byAddr[addr] = a
	}
	a.users++
	p.mu.Unlock()
	leave := func() {
		p.mu.Lock()
		if a.users--; a.users == 0 {
			delete(p.byAddr, addr)
		}
		p.mu.Unlock()
	}

	release = func() { <-p.all; <-a.sem; leave() }
	// Free slots, the common case, are taken without a timer.
	held := false
	select {
	case a.sem <- struct{}{}:
		held = true
		select {
		case p.all <- struct{}{}:
			return release, true
		default:
		}
	default:
	}
	timer := time.NewTimer(publicWait)
	defer timer.Stop()
	if !held {
		select {
		case a.sem <- struct{}{}:
		case <-timer.C:
			leave()
			return nil, false
		case <-ctx.Done():
			leave()
			return nil, false
		}
	}
	select {
	case p.all <- struct{}{}:
		return release, true
	case <-timer.C:
	case <-ctx.Done():
	}
	<-a.sem
	leave()
	return nil, false
}

// servePublic serves a public route: its gate, its body, then a slot of the
// public pool while the answer is made, and the answer once the slot is
// given back.
func (h *Handler) servePublic(w http.ResponseWriter, r *http.Request, rt route) {
	if rt.gate != nil && rt.gate(w, r) {
		return
	}
	if !h.readPublicBody(w, r) {
		return
	}
	release, ok := h.public.take(r.Context(), clientAddr(r))
	if !ok {
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "", fmt.Sprintf("too many requests without the API key at once (at most %d, %d per address)", h.public.total, h.public.perAddress))
		return
	}
	a := &answer{w: w}
	func() {
		defer release()
		if !badQuery(a, r, rt) {
			rt.serve(a, r)
		}
	}()
	a.send()
}

// readPublicBody reads a public request's whole body, at most
// PublicBodyLimit bytes (or the handler's limit, if lower) within the body
// read timeout; r.Body is then that. It answers and reports false when the
// body is too large, too slow or broken.
func (h *Handler) readPublicBody(w http.ResponseWriter, r *http.Request) bool {
	limit := min(h.opts.bodyLimit, PublicBodyLimit)
	if r.ContentLength > limit {
		closeIfBody(w, r)
		writeError(w, http.StatusRequestEntityTooLarge, "body", "larger than the limit of "+strconv.FormatInt(limit, 10)+" bytes")
		return false
	}
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	h.limitBody(w, r, limit)
	b, err := readBody(r)
	if err != nil {
		writeErr(w, err)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return true
}

// answer keeps a public route's answer while its slot is held; send writes
// it after. Its header is the response's own (nothing is sent before
// send). Unwrap reaches the connection for deadlines (dropBody); Flush does
// nothing, since the answer goes out whole.
type answer struct {
	w      http.ResponseWriter
	code   int
	body   []byte
	shared bool // body is not the answer's own: never append to it
}

func (a *answer) Header() http.Header { return a.w.Header() }

func (a *answer) WriteHeader(code int) {
	if a.code == 0 && code >= 200 {
		a.code = code
	}
}

func (a *answer) Write(b []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	if a.shared {
		a.body, a.shared = slices.Clone(a.body), false
	}
	a.body = append(a.body, b...)
	return len(b), nil
}

// share makes b, which never changes (an embedded file), the body, without
// the copy Write makes.
func (a *answer) share(b []byte) {
	a.WriteHeader(http.StatusOK)
	a.body, a.shared = b, true
}

func (a *answer) Flush() {}

func (a *answer) Unwrap() http.ResponseWriter { return a.w }

func (a *answer) send() {
	if a.w.Header().Get("Content-Length") == "" {
		a.w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
	}
	a.w.WriteHeader(max(a.code, http.StatusOK))
	if len(a.body) > 0 {
		_, _ = a.w.Write(a.body)
	}
}
