package arenahttp

import (
	"net/http"
	"net/netip"
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
// The address is the connection's (Request.RemoteAddr; for IPv6 its /64),
// never a header a client can write. The trade: behind a reverse proxy or
// a NAT every client shares one allowance, and one of them presenting a
// stale key can hold the others' key requests at 429 (sessions already
// open go on); past maxGuessers addresses with guesses spent, new
// addresses share one allowance too.
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

	mu     sync.Mutex
	m      map[string]allowance
	pruned time.Time // the last sweep of the full allowances (key)
	now    nowFunc   // tests move it (read under mu)
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

// clientAddr is the address a request's guesses count against: the
// connection's IP, an IPv6 one by its /64 (one host commonly holds a whole
// /64, and would otherwise have 2^64 allowances).
func clientAddr(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}

// wait returns how long addr must wait before it may present a key: 0
// when it has a guess left. It spends nothing (guess does).
func (g *guesses) wait(addr string) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	a, ok := g.m[g.key(addr, time.Time{})]
	if !ok {
		return 0
	}
	now := g.now.get()
	if a = g.settle(a, now); a.spent < g.burst {
		return 0
	}
	return a.at.Add(g.refill).Sub(now)
}

// guess judges a key that addr presented, right (valid) or wrong, in one
// step with spending a guess on a wrong one: it returns 0 when the key may
// count (and spent a guess if it is wrong), else how long addr must wait.
// Judging and spending at once leaves no gap for requests in flight
// together to be judged against the same guess.
func (g *guesses) guess(addr string, valid bool) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now.get()
	k := g.key(addr, now)
	a, tracked := g.m[k]
	if !tracked && valid {
		return 0
	}
	if a = g.settle(a, now); a.spent >= g.burst {
		return a.at.Add(g.refill).Sub(now)
	}
	if !valid {
		a.spent++
		if g.m == nil {
			g.m = map[string]allowance{}
		}
		g.m[k] = a
	}
	return 0
}

// key is addr's key in m: addr when tracked or when there is room, else the
// allowance shared by the addresses beyond maxGuessers. With the map full
// it first drops the allowances back in full, at most once a refill (now
// zero: never), so that a flood of new addresses cannot make every request
// sweep the map.
func (g *guesses) key(addr string, now time.Time) string {
	if _, ok := g.m[addr]; ok || len(g.m) < maxGuessers {
		return addr
	}
	if !now.IsZero() && now.Sub(g.pruned) >= g.refill {
		g.pruned = now
		for a, v := range g.m {
			if g.settle(v, now).spent == 0 {
				delete(g.m, a)
			}
		}
		if len(g.m) < maxGuessers {
			return addr
		}
	}
	return ""
}

// throttled answers 429 when the request's address has no guess left, and
// reports whether it did; it spends nothing.
func (h *Handler) throttled(w http.ResponseWriter, r *http.Request) bool {
	return h.tooMany(w, r, h.guesses.wait(clientAddr(r)))
}

// tooMany answers 429 when the address must wait d (> 0) before its next
// guess, and reports whether it did.
func (h *Handler) tooMany(w http.ResponseWriter, r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return false
	}
	closeIfBody(w, r)
	secs := int((d + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, http.StatusTooManyRequests, "", "too many wrong API keys from this address: try again in "+strconv.Itoa(secs)+"s")
	return true
}
