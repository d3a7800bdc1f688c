package arenahttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestKeyGuesses: an address that presented DefaultKeyGuesses wrong keys,
// in headers or at login, is answered 429 with Retry-After, even with the
// right key, until a guess comes back; another address is not held up, and
// right keys spend nothing.
func TestKeyGuesses(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithKeyGuesses(DefaultKeyGuesses, DefaultKeyGuessRefill)}})
	now := time.Now()
	var mu sync.Mutex
	s.h.guesses.mu.Lock()
	s.h.guesses.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s.h.guesses.mu.Unlock()
	move := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	do := func(addr, key string, login bool) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/arena/stats", nil)
		if login {
			req = httptest.NewRequest("POST", "/arena/session", strings.NewReader(`{"key":"`+key+`"}`))
		} else {
			req.Header.Set("X-API-Key", key)
		}
		req.RemoteAddr = addr + ":40000"
		w := httptest.NewRecorder()
		s.h.ServeHTTP(w, req)
		return w
	}

	for i := range 20 { // right keys spend nothing
		if w := do("192.0.2.1", testKey, i%2 == 0); w.Code != 200 {
			t.Fatalf("right key #%d = %d %s", i, w.Code, w.Body)
		}
	}
	for i := range DefaultKeyGuesses {
		if w := do("192.0.2.1", "wrong", i%2 == 0); w.Code != http.StatusUnauthorized {
			t.Fatalf("wrong key #%d = %d %s, want 401", i+1, w.Code, w.Body)
		}
	}
	const want = "too many wrong API keys from this address: try again in 6s"
	for _, login := range []bool{false, true} {
		w := do("192.0.2.1", testKey, login)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "6" || !strings.Contains(w.Body.String(), want) {
			t.Errorf("right key (login %v) after %d wrong ones = %d, Retry-After %q, %s; want 429: %s",
				login, DefaultKeyGuesses, w.Code, w.Header().Get("Retry-After"), w.Body, want)
		}
	}
	if w := do("192.0.2.2", testKey, false); w.Code != 200 {
		t.Errorf("another address = %d %s, want 200", w.Code, w.Body)
	}
	if w := do("192.0.2.1", "", false); w.Code != http.StatusUnauthorized {
		t.Errorf("no key at all = %d, want 401: it guesses nothing", w.Code)
	}

	move(4 * time.Second)
	if w := do("192.0.2.1", testKey, false); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "2" {
		t.Errorf("4s later = %d, Retry-After %q; want 429, 2", w.Code, w.Header().Get("Retry-After"))
	}
	move(2 * time.Second) // one guess back
	if w := do("192.0.2.1", "wrong", false); w.Code != http.StatusUnauthorized {
		t.Errorf("a guess after the refill = %d, want 401", w.Code)
	}
	if w := do("192.0.2.1", testKey, false); w.Code != http.StatusTooManyRequests {
		t.Errorf("after spending it = %d, want 429", w.Code)
	}
	move(DefaultKeyGuesses * DefaultKeyGuessRefill) // all back
	for i := range DefaultKeyGuesses - 1 {
		if w := do("192.0.2.1", "wrong", false); w.Code != http.StatusUnauthorized {
			t.Fatalf("wrong key #%d after a full refill = %d, want 401", i+1, w.Code)
		}
	}
	if w := do("192.0.2.1", testKey, true); w.Code != 200 {
		t.Errorf("login with one guess left = %d %s, want 200", w.Code, w.Body)
	}
}

// The addresses tracked are bounded: past the bound, new addresses share
// one allowance, and those back to a full one are forgotten first.
func TestKeyGuessesBounded(t *testing.T) {
	now := time.Unix(0, 0)
	g := &guesses{burst: 2, refill: time.Second, now: func() time.Time { return now }}
	for i := range maxGuessers {
		g.guess(string(rune(i)), false)
	}
	g.guess("late-1", false)
	if len(g.m) != maxGuessers+1 || g.wait("late-2") != 0 {
		t.Fatalf("tracked %d, the shared allowance waits %s after one miss; want %d, none", len(g.m), g.wait("late-2"), maxGuessers+1)
	}
	g.guess("late-2", false)
	if g.wait("late-1") <= 0 || g.wait("late-3") <= 0 {
		t.Error("addresses beyond the bound do not share one allowance")
	}
	now = now.Add(time.Minute) // every allowance back in full
	g.guess("late-4", false)
	if len(g.m) != 1 || g.wait("late-4") != 0 {
		t.Errorf("after the refill %d tracked, want only the new one", len(g.m))
	}
}

// A login that passed the check before its body arrived is judged again
// with its key: guesses spent meanwhile count, so slow bodies on many
// connections cannot each try a key against the same allowance.
func TestKeyGuessesLoginBodyArrivesLate(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithKeyGuesses(DefaultKeyGuesses, DefaultKeyGuessRefill)}})
	asked := make(chan struct{}, 100)
	s.h.guesses.mu.Lock()
	s.h.guesses.now = func() time.Time { asked <- struct{}{}; return time.Unix(1e9, 0) }
	s.h.guesses.mu.Unlock()
	wrong := func() {
		if r := s.do(t, request{method: "GET", path: "/arena/stats", key: "wrong"}); r.code != http.StatusUnauthorized {
			t.Fatalf("a wrong key = %d, want 401", r.code)
		}
		<-asked
	}
	wrong() // the address has an allowance now, which the login's first check reads

	body, send := io.Pipe()
	done := make(chan response, 1)
	go func() {
		done <- s.do(t, request{method: "POST", path: "/arena/session", reader: body})
	}()
	<-asked // the login was let in: its body is still to come
	for range DefaultKeyGuesses - 1 {
		wrong()
	}
	go func() { io.WriteString(send, `{"key":"still-wrong"}`); send.Close() }()
	if r := <-done; r.code != http.StatusTooManyRequests {
		t.Errorf("a login whose body came after the last guess was spent = %d %s, want 429", r.code, r.body)
	}
}

// The session cookie is Secure when the browser came over HTTPS, through a
// proxy that ended TLS too.
func TestSessionCookieSecureBehindAProxy(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithTrustedOrigins("https://ops.example.com")}})
	for _, tc := range []struct {
		header map[string]string
		secure bool
	}{
		{nil, false},
		{map[string]string{"X-Forwarded-Proto": "https"}, true},
		{map[string]string{"X-Forwarded-Proto": "http"}, false},
		{map[string]string{"Forwarded": `for=192.0.2.60;proto=https;by=203.0.113.43`}, true},
		{map[string]string{"Origin": "https://ops.example.com"}, true},
	} {
		r := s.do(t, request{method: "POST", path: "/arena/session", body: `{"key":"` + testKey + `"}`, header: tc.header})
		raw := r.header.Get("Set-Cookie")
		if r.code != 200 || strings.Contains(raw, "; Secure") != tc.secure {
			t.Errorf("login with %v = %d, Set-Cookie %q; want Secure %v", tc.header, r.code, raw, tc.secure)
		}
	}
}

func TestWithKeyGuessesPanics(t *testing.T) {
	for _, f := range []func(){func() { WithKeyGuesses(0, time.Second) }, func() { WithKeyGuesses(1, 0) }} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

func TestClientAddr(t *testing.T) {
	for remote, want := range map[string]string{
		"192.0.2.7:4000":              "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:4000": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:4000": "2001:db8:1:2::/64", // the same /64: one allowance
		"[::ffff:192.0.2.7]:4000":     "192.0.2.7",         // IPv4 mapped
		"not-an-address":              "not-an-address",
		"[fe80::1%eth0]:4000":         "fe80::/64",
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		if got := clientAddr(r); got != want {
			t.Errorf("clientAddr(%q) = %q, want %q", remote, got, want)
		}
	}
}

func TestOverHTTPS(t *testing.T) {
	for _, tc := range []struct {
		header map[string]string
		want   bool
	}{
		{nil, false},
		{map[string]string{"X-Forwarded-Proto": "https"}, true},
		{map[string]string{"X-Forwarded-Proto": "HTTPS, http"}, true}, // the first proxy's, nearest the browser
		{map[string]string{"X-Forwarded-Proto": "http, https"}, false},
		{map[string]string{"Forwarded": `for=192.0.2.60;proto="https";by=203.0.113.43`}, true},
		{map[string]string{"Forwarded": `for=192.0.2.60;proto=http, for=198.51.100.1;proto=https`}, false},
		{map[string]string{"Forwarded": `for=192.0.2.60`}, false},
		{map[string]string{"Origin": "https://ops.example.com"}, true},
		{map[string]string{"Origin": "http://ops.example.com"}, false},
	} {
		r := httptest.NewRequest("POST", "/arena/session", nil)
		for k, v := range tc.header {
			r.Header.Set(k, v)
		}
		if got := overHTTPS(r); got != tc.want {
			t.Errorf("overHTTPS(%v) = %v, want %v", tc.header, got, tc.want)
		}
	}
	r := httptest.NewRequest("POST", "https://arena.example.com/arena/session", nil) // with TLS
	if !overHTTPS(r) {
		t.Error("overHTTPS of a TLS request = false")
	}
}
