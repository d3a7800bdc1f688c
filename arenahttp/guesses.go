package arenahttp

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Guessing the API key. Every request that presents a wrong key (in a
// header, or in the body of POST /arena/session) spends one of its client
// address's guesses (WithKeyGuesses: DefaultKeyGuesses in a burst, one
// back every DefaultKeyGuessRefill). With none left, a request from that
// address that presents a key, right or wrong, is answered 429 with
// Retry-After before its key is looked at: a guesser learns nothing more at
// any speed. Requests with a right key spend nothing.
//
// The address is the connection's (Request.RemoteAddr), never a header a
// client can write: behind a reverse proxy every client shares the proxy's
// allowance, which is the safe way round.
const (
	// DefaultKeyGuesses is how many wrong keys an address may present in a
	// burst.
	DefaultKeyGuesses = 10
	// DefaultKeyGuessRefill is how often an address gets one guess back.
	DefaultKeyGuessRefill = 6 * time.Second
	// maxGuessers bounds the addresses tracked; beyond it (after dropping
	// those back to a full allowance) new ones share one allowance.
	maxGuessers = 4096
)

type keyGuessesOption struct {
	burst  int
	refill time.Duration
}

func (o keyGuessesOption) apply(s *options) { s.keyGuesses, s.keyGuessRefill = o.burst, o.refill }

// WithKeyGuesses sets how many wrong API keys one client address may
// present in a burst (default 10) and how often it gets one back (default
// 6s): past them it is answered 429 until then.
func WithKeyGuesses(burst int, refill time.Duration) Option {
	if burst < 1 || refill <= 0 {
		panic("arena: WithKeyGuesses: want a burst of at least 1 and a positive refill")
	}
	return keyGuessesOption{burst, refill}
}

// guesses is the handler's record of wrong keys per client address.
type guesses struct {
	burst  int
	refill time.Duration

	mu  sync.Mutex
	m   map[string]allowance
	now func() time.Time // time.Now; tests move it (read under mu)
}

// allowance is an address's spent guesses as of at.
type allowance struct {
	spent int
	at    time.Time
}

// settle returns a as of now: the guesses that came back since are
// returned, and at moves on by whole refills only, so none is lost.
func (g *guesses) settle(a allowance, now time.Time) allowance {
	if a.spent == 0 {
		return allowance{at: now}
	}
	back := now.Sub(a.at) / g.refill
	if back >= time.Duration(a.spent) {
		return allowance{at: now}
	}
	return allowance{spent: a.spent - int(back), at: a.at.Add(back * g.refill)}
}

func (g *guesses) clock() time.Time {
	if g.now != nil {
		return g.now()
	}
	return time.Now()
}

// clientAddr is the address a request's guesses count against.
func clientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// wait returns how long addr must wait before its next guess: 0 when it
// has one left.
func (g *guesses) wait(addr string) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	a, ok := g.m[g.key(addr)]
	if !ok {
		return 0
	}
	now := g.clock()
	if a = g.settle(a, now); a.spent < g.burst {
		return 0
	}
	return a.at.Add(g.refill).Sub(now)
}

// miss spends one of addr's guesses.
func (g *guesses) miss(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock()
	if g.m == nil {
		g.m = map[string]allowance{}
	}
	if _, ok := g.m[addr]; !ok && len(g.m) >= maxGuessers {
		for a, v := range g.m {
			if g.settle(v, now).spent == 0 {
				delete(g.m, a)
			}
		}
	}
	k := g.key(addr)
	a := g.settle(g.m[k], now)
	a.spent = min(a.spent+1, g.burst)
	g.m[k] = a
}

// key is addr's key in m: addr when tracked or when there is room, else the
// shared allowance's.
func (g *guesses) key(addr string) string {
	if _, ok := g.m[addr]; ok || len(g.m) < maxGuessers {
		return addr
	}
	return ""
}

// throttled answers 429 when the request's address has no guess left, and
// reports whether it did.
func (h *Handler) throttled(w http.ResponseWriter, r *http.Request) bool {
	d := h.guesses.wait(clientAddr(r))
	if d <= 0 {
		return false
	}
	closeIfBody(w, r)
	secs := int((d + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, http.StatusTooManyRequests, "", "too many wrong API keys from this address: try again in "+strconv.Itoa(secs)+"s")
	return true
}
