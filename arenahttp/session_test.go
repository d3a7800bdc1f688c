package arenahttp

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// login exchanges the key for a session and returns its cookie and CSRF
// token.
func login(t *testing.T, s *system, key string) (*http.Cookie, string) {
	t.Helper()
	r := s.do(t, request{method: "POST", path: "/arena/session", body: `{"key":"` + key + `"}`})
	if r.code != 200 {
		t.Fatalf("login = %d %s", r.code, r.body)
	}
	v := decode[SessionView](t, r)
	cookies := (&http.Response{Header: r.header}).Cookies()
	if len(cookies) != 1 || cookies[0].Name != SessionCookie {
		t.Fatalf("login set cookies %v, want one %s", cookies, SessionCookie)
	}
	return cookies[0], v.CSRFToken
}

func withCookie(c *http.Cookie, csrf string) map[string]string {
	h := map[string]string{"Cookie": c.Name + "=" + c.Value}
	if csrf != "" {
		h[HeaderCSRF] = csrf
	}
	return h
}

// TestSessionCookie: the key is exchanged for a cookie that is HttpOnly,
// SameSite=Strict, expiring with the session, and holds a random token, not
// the key; the key appears nowhere in the answer.
func TestSessionCookie(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithSessionTTL(2 * time.Hour)}})
	before := time.Now()
	r := s.do(t, request{method: "POST", path: "/arena/session", body: `{"key":"` + testKey + `"}`})
	if r.code != 200 {
		t.Fatalf("login = %d %s", r.code, r.body)
	}
	raw := r.header.Values("Set-Cookie")
	if len(raw) != 1 {
		t.Fatalf("Set-Cookie %q, want one", raw)
	}
	for _, attr := range []string{"HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=7200", "Expires="} {
		if !strings.Contains(raw[0], attr) {
			t.Errorf("Set-Cookie %q lacks %s", raw[0], attr)
		}
	}
	if strings.Contains(raw[0], "Secure") {
		t.Errorf("Set-Cookie %q: Secure over plain HTTP, the browser would never send it back", raw[0])
	}
	c := (&http.Response{Header: r.header}).Cookies()[0]
	if exp := c.Expires; exp.Before(before.Add(2*time.Hour-time.Minute)) || exp.After(before.Add(2*time.Hour+time.Minute)) {
		t.Errorf("cookie expires %s, want in 2h", exp)
	}
	if len(c.Value) < 20 || strings.Contains(c.Value, testKey) {
		t.Errorf("cookie value %q: want a random token, not the key", c.Value)
	}
	v := decode[SessionView](t, r)
	if v.Auth != "session" || len(v.CSRFToken) < 20 || v.CSRFToken == c.Value || v.Expires == nil {
		t.Errorf("login answered %+v, want a session with its own CSRF token and expiry", v)
	}
	for k, vs := range r.header {
		if strings.Contains(strings.Join(vs, " "), testKey) {
			t.Errorf("header %s holds the key", k)
		}
	}
	if strings.Contains(string(r.body), testKey) {
		t.Errorf("the login's answer holds the key: %s", r.body)
	}

	// The session authenticates; GET /arena/session gives the CSRF token
	// back (after a reload the page has only the cookie).
	if r := s.do(t, request{method: "GET", path: "/arena/stats", header: withCookie(c, "")}); r.code != 200 {
		t.Errorf("GET /arena/stats with the session = %d %s", r.code, r.body)
	}
	if got := decode[SessionView](t, s.do(t, request{method: "GET", path: "/arena/session", header: withCookie(c, "")})); got.Auth != "session" || got.CSRFToken != v.CSRFToken {
		t.Errorf("GET /arena/session = %+v, want the session and its token", got)
	}
	if got := decode[SessionView](t, s.do(t, request{method: "GET", path: "/arena/session", key: testKey})); got.Auth != "key" || got.CSRFToken != "" {
		t.Errorf("GET /arena/session with the key = %+v, want auth key and no token", got)
	}
}

// TestSessionCSRF: with the session cookie, a state-changing request needs
// the session's CSRF token; refused ones never reach the service.
func TestSessionCSRF(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	c, csrf := login(t, s, testKey)
	for _, h := range []map[string]string{withCookie(c, ""), withCookie(c, "wrong"), withCookie(c, csrf+"x")} {
		r := s.do(t, request{method: "POST", path: "/arena/agent/worker-1/pause", header: h})
		if r.code != http.StatusForbidden {
			t.Errorf("pause with %v = %d %s, want 403", h, r.code, r.body)
		} else if e := errorOf(t, r); e.Field != HeaderCSRF {
			t.Errorf("403 %+v, want it to name %s", e, HeaderCSRF)
		}
	}
	if n := s.svc.Stats().Total; n != 0 {
		t.Fatalf("%d actions reached the service without the CSRF token", n)
	}
	if r := s.do(t, request{method: "POST", path: "/arena/agent/worker-1/pause", header: withCookie(c, csrf)}); r.code != 200 {
		t.Errorf("pause with the token = %d %s", r.code, r.body)
	}
	// Programs keep using the key, with no token.
	if r := s.do(t, request{method: "DELETE", path: "/arena/faults", key: testKey}); r.code != 200 {
		t.Errorf("lift all with the key = %d %s", r.code, r.body)
	}
	// A key header is judged on its own, whatever cookie comes with it.
	if r := s.do(t, request{method: "GET", path: "/arena/stats", key: "wrong", header: withCookie(c, csrf)}); r.code != 401 {
		t.Errorf("a wrong key with a good cookie = %d, want 401", r.code)
	}
}

// TestSessionEnds: logout revokes the session on the server (the cookie's
// token no longer works, whoever kept it); so do expiry and a new key.
func TestSessionEnds(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithSessionTTL(time.Hour)}})
	stats := func(c *http.Cookie) response {
		return s.do(t, request{method: "GET", path: "/arena/stats", header: withCookie(c, "")})
	}

	c, csrf := login(t, s, testKey)
	r := s.do(t, request{method: "DELETE", path: "/arena/session", header: withCookie(c, csrf)})
	if out := decode[LoggedOut](t, r); r.code != 200 || !out.Revoked {
		t.Errorf("logout = %d %s, want the session revoked", r.code, r.body)
	}
	if cs := (&http.Response{Header: r.header}).Cookies(); len(cs) != 1 || cs[0].MaxAge >= 0 || cs[0].Value != "" {
		t.Errorf("logout set %v, want the cookie deleted", cs)
	}
	if r := stats(c); r.code != http.StatusUnauthorized || !strings.Contains(errorOf(t, r).Error, "session expired or revoked") {
		t.Errorf("the old cookie after logout = %d %s, want 401", r.code, r.body)
	}

	now := time.Now()
	var mu sync.Mutex
	s.h.sessions.mu.Lock()
	s.h.sessions.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s.h.sessions.mu.Unlock()
	c, _ = login(t, s, testKey)
	mu.Lock()
	now = now.Add(59 * time.Minute)
	mu.Unlock()
	if r := stats(c); r.code != 200 {
		t.Errorf("a session 59 minutes old = %d, want 200", r.code)
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if r := stats(c); r.code != http.StatusUnauthorized {
		t.Errorf("a session an hour old = %d, want 401", r.code)
	}

	c, _ = login(t, s, testKey)
	s.h.SetAPIKey("another-key")
	if r := stats(c); r.code != http.StatusUnauthorized {
		t.Errorf("a session of the old key = %d, want 401", r.code)
	}
}

func TestLoginRefusals(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	for body, want := range map[string]int{`{"key":"wrong"}`: 401, `{"key":""}`: 400, `{}`: 400, `{"key":"` + testKey + `","x":1}`: 400} {
		r := s.do(t, request{method: "POST", path: "/arena/session", body: body})
		if r.code != want || len(r.header.Values("Set-Cookie")) != 0 {
			t.Errorf("login %s = %d (Set-Cookie %q), want %d and no cookie", body, r.code, r.header.Values("Set-Cookie"), want)
		}
	}
	open := newSystem(t, systemConfig{})
	if r := open.do(t, request{method: "POST", path: "/arena/session", body: `{"key":"x"}`}); r.code != http.StatusConflict {
		t.Errorf("login on a server without a key = %d, want 409", r.code)
	}
	if v := decode[SessionView](t, open.do(t, request{method: "GET", path: "/arena/session"})); v.Auth != "none" {
		t.Errorf("GET /arena/session without a key set = %+v, want auth none", v)
	}
}

// TestCrossOrigin: a state-changing request from a page of another origin
// is refused whatever it authenticates with (key, cookie, or none on a
// loopback server without a key); reads and same-origin requests pass.
func TestCrossOrigin(t *testing.T) {
	keyed := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	open := newSystem(t, systemConfig{})
	c, csrf := login(t, keyed, testKey)
	host := strings.TrimPrefix(keyed.srv.URL, "http://")
	for _, tc := range []struct {
		s      *system
		header map[string]string
		key    string
		method string
		want   int
	}{
		{keyed, map[string]string{"Sec-Fetch-Site": "cross-site"}, testKey, "POST", 403},
		{keyed, map[string]string{"Sec-Fetch-Site": "same-site"}, testKey, "POST", 403},
		{keyed, map[string]string{"Origin": "http://evil.example"}, testKey, "POST", 403},
		{keyed, merge(withCookie(c, csrf), map[string]string{"Sec-Fetch-Site": "cross-site"}), "", "POST", 403},
		{open, map[string]string{"Sec-Fetch-Site": "cross-site"}, "", "POST", 403},
		{open, map[string]string{"Origin": "http://evil.example"}, "", "DELETE", 403},
		{keyed, map[string]string{"Sec-Fetch-Site": "cross-site"}, testKey, "GET", 200},
		{keyed, merge(withCookie(c, csrf), map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://" + host}), "", "POST", 200},
		{open, nil, "", "POST", 200}, // a program: neither header
	} {
		path := "/arena/agent/worker-1/pause"
		if tc.method == "GET" {
			path = "/arena/stats"
		} else if tc.method == "DELETE" {
			path = "/arena/faults"
		}
		before := tc.s.svc.Stats().Total
		r := tc.s.do(t, request{method: tc.method, path: path, header: tc.header, key: tc.key})
		if r.code != tc.want {
			t.Errorf("%s %s with %v = %d %s, want %d", tc.method, path, tc.header, r.code, r.body, tc.want)
		}
		if tc.want == 403 && tc.s.svc.Stats().Total != before {
			t.Errorf("%s %s with %v reached the service", tc.method, path, tc.header)
		}
		s := tc.s
		s.svc.Rollback(t.Context())
	}
	trusting := newSystem(t, systemConfig{handlerOpts: []Option{WithTrustedOrigins("https://ops.example.com")}})
	if r := trusting.do(t, request{method: "POST", path: "/arena/leader/kill", header: map[string]string{"Origin": "https://ops.example.com", "Sec-Fetch-Site": "cross-site"}}); r.code != 200 {
		t.Errorf("POST from a trusted origin = %d %s, want 200", r.code, r.body)
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// TestSessionCap: the store keeps at most MaxSessions; a login beyond it
// ends the session closest to expiring, and expired ones go first.
func TestSessionCap(t *testing.T) {
	now := time.Unix(1e9, 0)
	ss := &sessions{now: func() time.Time { return now }}
	first, _ := ss.create(time.Hour, nil)
	now = now.Add(time.Second)
	var last string
	for range MaxSessions {
		last, _ = ss.create(time.Hour, nil)
	}
	if _, ok := ss.lookup(first); ok {
		t.Error("the oldest session survived a login past the cap")
	}
	if _, ok := ss.lookup(last); !ok || len(ss.m) != MaxSessions {
		t.Errorf("%d sessions, the newest kept %v; want %d and true", len(ss.m), ok, MaxSessions)
	}
	now = now.Add(2 * time.Hour)
	ss.create(time.Hour, nil)
	if len(ss.m) != 1 {
		t.Errorf("%d sessions after every other expired, want 1", len(ss.m))
	}
}

func TestWithSessionOptionsPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"ttl":    func() { WithSessionTTL(time.Millisecond) },
		"origin": func() { WithTrustedOrigins("not a url") },
	} {
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.HasPrefix(v.(string), "arena: ") {
					t.Errorf("%s: recovered %v, want an arena: panic", name, v)
				}
			}()
			f()
		}()
	}
}

// TestSessionEndsItsStream: an event stream lives no longer than what let
// it in. Opened with a session, it outlives heartbeats while the session
// lasts and is closed at the first heartbeat after logout, expiry or a new
// key; opened with a key, after the key is replaced.
func TestSessionEndsItsStream(t *testing.T) {
	for _, tc := range []struct {
		name  string
		keyed bool // the stream carries the key, not the cookie
		end   func(t *testing.T, s *system, c *http.Cookie, csrf string, advance func(time.Duration))
	}{
		{"logout", false, func(t *testing.T, s *system, c *http.Cookie, csrf string, _ func(time.Duration)) {
			if r := s.do(t, request{method: "DELETE", path: "/arena/session", header: withCookie(c, csrf)}); r.code != 200 {
				t.Fatalf("logout = %d %s", r.code, r.body)
			}
		}},
		{"expiry", false, func(_ *testing.T, _ *system, _ *http.Cookie, _ string, advance func(time.Duration)) {
			advance(time.Hour)
		}},
		{"new key", false, func(_ *testing.T, s *system, _ *http.Cookie, _ string, _ func(time.Duration)) {
			s.h.SetAPIKey("another-key")
		}},
		{"new key, stream of the old key", true, func(_ *testing.T, s *system, _ *http.Cookie, _ string, _ func(time.Duration)) {
			s.h.SetAPIKey("another-key")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithSessionTTL(time.Hour), WithHeartbeat(10 * time.Millisecond)}})
			var mu sync.Mutex
			now := time.Now()
			s.h.sessions.mu.Lock()
			s.h.sessions.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			s.h.sessions.mu.Unlock()
			advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

			c, csrf := login(t, s, testKey)
			header := withCookie(c, "")
			if tc.keyed {
				header = map[string]string{"X-API-Key": testKey}
			}
			st := dialStream(t, s, header)
			defer st.close()
			br := bufio.NewReader(st.resp.Body)
			line := func() (string, error) { return br.ReadString('\n') }
			for beats := 0; beats < 2; { // alive through heartbeats while its credentials hold
				l, err := line()
				if err != nil {
					t.Fatalf("the stream ended before its credentials did: %v", err)
				}
				if l == ": heartbeat\n" {
					beats++
				}
			}
			tc.end(t, s, c, csrf, advance)
			for {
				_, err := line()
				if err == nil {
					continue
				}
				if errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("the stream was still open 30s after its credentials ended")
				}
				break // closed by the server
			}
		})
	}
}

// TestSessionOfAReplacedKey: a session opened with a key that has been
// replaced since does not let in, even one created after SetAPIKey ended
// the others (a login that checked the old key just before the change).
func TestSessionOfAReplacedKey(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	old := s.h.key.Load()
	s.h.SetAPIKey("another-key")
	token, sess := s.h.sessions.create(time.Hour, old) // the racing login's session
	c := &http.Cookie{Name: SessionCookie, Value: token}
	if r := s.do(t, request{method: "GET", path: "/arena/stats", header: withCookie(c, "")}); r.code != http.StatusUnauthorized {
		t.Errorf("a session of the replaced key = %d %s, want 401", r.code, r.body)
	}
	if r := s.do(t, request{method: "POST", path: "/arena/agent/worker-1/pause", header: withCookie(c, sess.csrf)}); r.code != http.StatusUnauthorized {
		t.Errorf("a state change with a session of the replaced key = %d %s, want 401", r.code, r.body)
	}
	if n := s.svc.Stats().Total; n != 0 {
		t.Errorf("%d actions reached the service", n)
	}
}
