package arenahttp

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Browser sessions. A browser cannot send X-API-Key on an EventSource, and
// a page must not keep the key where scripts can read it, so the dashboard
// exchanges the key once (POST /arena/session) for a session: a random
// token in an HttpOnly, SameSite=Strict cookie that expires (WithSessionTTL)
// and is revoked at logout, or for every session when the key changes
// (SetAPIKey). Only the token's SHA-256 is kept. An event stream opened with
// a session ends at its next heartbeat after the session does (stream.go).
//
// A request authenticated by the cookie that may change state (any method
// but GET, HEAD and OPTIONS) must also carry the session's CSRF token in
// X-Arena-CSRF, which only a page of this origin can have read (GET
// /arena/session). Cross-origin requests that change state are refused
// before that, by their Sec-Fetch-Site or Origin header, whatever their
// credentials (http.CrossOriginProtection).
const (
	// SessionCookie names the session cookie.
	SessionCookie = "arena_session"
	// HeaderCSRF carries a session's CSRF token.
	HeaderCSRF = "X-Arena-CSRF"
	// DefaultSessionTTL is how long a session lasts from login.
	DefaultSessionTTL = 12 * time.Hour
	// MaxSessions bounds the sessions kept; a login beyond it ends the one
	// closest to expiring.
	MaxSessions = 1024
)

// LoginRequest is the body of POST /arena/session.
type LoginRequest struct {
	Key string `json:"key"`
}

// SessionView is the answer of POST and GET /arena/session: how the
// request was authenticated, and for a session its CSRF token and expiry.
type SessionView struct {
	// Auth is "none" (the server has no key: loopback only), "key" (the
	// request carried the API key) or "session".
	Auth      string     `json:"auth"`
	CSRFToken string     `json:"csrf_token,omitempty"`
	Expires   *time.Time `json:"expires,omitempty"`
}

// LoggedOut is the answer of DELETE /arena/session.
type LoggedOut struct {
	Revoked bool `json:"revoked"` // a session of the request's cookie was ended
}

type sessionTTLOption time.Duration

func (o sessionTTLOption) apply(s *options) { s.sessionTTL = time.Duration(o) }

// WithSessionTTL sets how long a browser session lasts from login (default
// 12h); the cookie expires with it.
func WithSessionTTL(d time.Duration) Option {
	if d < time.Second {
		panic("arena: WithSessionTTL: want at least a second")
	}
	return sessionTTLOption(d)
}

type trustedOriginsOption []string

func (o trustedOriginsOption) apply(s *options) { s.trustedOrigins = append(s.trustedOrigins, o...) }

// WithTrustedOrigins lets pages of these origins ("https://ops.example.com")
// send state-changing requests, which are otherwise refused when they come
// from another origin than the server's own (as a proxy that rewrites Host
// would make them look).
func WithTrustedOrigins(origins ...string) Option {
	for _, o := range origins {
		if err := http.NewCrossOriginProtection().AddTrustedOrigin(o); err != nil {
			panic("arena: WithTrustedOrigins: " + err.Error())
		}
	}
	return trustedOriginsOption(origins)
}

// sessions is the handler's session store.
type sessions struct {
	mu  sync.Mutex
	m   map[[sha256.Size]byte]session
	now nowFunc // tests move it (read under mu)
}

type session struct {
	csrf    string
	expires time.Time
	// key is the API key's hash the session was opened with: a session
	// lives only while the handler has that very key (Handler.session), so
	// a login that raced SetAPIKey cannot outlive the old key.
	key *[sha256.Size]byte
}

// nowFunc reads the time: time.Now when nil (tests set their own).
type nowFunc func() time.Time

func (f nowFunc) get() time.Time {
	if f != nil {
		return f()
	}
	return time.Now()
}

// create starts a session opened with key and returns its token.
func (ss *sessions) create(ttl time.Duration, key *[sha256.Size]byte) (string, session) {
	token := rand.Text()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := session{csrf: rand.Text(), expires: ss.now.get().Add(ttl).Truncate(time.Second), key: key}
	if ss.m == nil {
		ss.m = map[[sha256.Size]byte]session{}
	}
	if len(ss.m) >= MaxSessions {
		ss.evict()
	}
	ss.m[sha256.Sum256([]byte(token))] = s
	return token, s
}

// evict drops the expired sessions, or else the one closest to expiring.
func (ss *sessions) evict() {
	now := ss.now.get()
	var first [sha256.Size]byte
	var firstAt time.Time
	for k, s := range ss.m {
		switch {
		case !now.Before(s.expires):
			delete(ss.m, k)
		case firstAt.IsZero() || s.expires.Before(firstAt):
			first, firstAt = k, s.expires
		}
	}
	if len(ss.m) >= MaxSessions {
		delete(ss.m, first)
	}
}

// lookup returns the live session of token; an expired one is dropped.
func (ss *sessions) lookup(token string) (session, bool) {
	k := sha256.Sum256([]byte(token))
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.m[k]
	if ok && !ss.now.get().Before(s.expires) {
		delete(ss.m, k)
		return session{}, false
	}
	return s, ok
}

func (ss *sessions) revoke(token string) bool {
	k := sha256.Sum256([]byte(token))
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.m[k]
	delete(ss.m, k)
	return ok
}

// reset ends every session.
func (ss *sessions) reset() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	clear(ss.m)
}

// session returns the live session of token: not expired, not revoked, and
// opened with the key the handler has now.
func (h *Handler) session(token string) (session, bool) {
	s, ok := h.sessions.lookup(token)
	if !ok || s.key != h.key.Load() {
		return session{}, false
	}
	return s, true
}

// stillAuthorized reports whether r's credentials would be let in now. A
// long-lived request (an event stream) asks at each heartbeat and ends when
// they no longer would: its session was logged out, expired or ended by a
// new key, or the key it carries was replaced.
func (h *Handler) stillAuthorized(r *http.Request) bool {
	want := h.key.Load()
	if want == nil {
		return true
	}
	if given, ok := apiKey(r); ok {
		return validKey(given, want)
	}
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return false
	}
	_, ok := h.session(c.Value)
	return ok
}

// sessionAuth authenticates r by its session cookie, when it has one.
// handled is false when there is no cookie: the caller answers as for a
// missing key. Otherwise ok says whether r may go on; when not, the answer
// is written: 401 for a session that expired or was revoked, 403 for a
// state-changing request without the session's CSRF token.
func (h *Handler) sessionAuth(w http.ResponseWriter, r *http.Request) (handled, ok bool) {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return false, false
	}
	s, live := h.session(c.Value)
	if !live {
		closeIfBody(w, r)
		h.clearSessionCookie(w, r)
		writeError(w, http.StatusUnauthorized, "", "session expired or revoked: log in again")
		return true, false
	}
	if !safeMethod(r.Method) {
		got := r.Header.Get(HeaderCSRF)
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) != 1 {
			closeIfBody(w, r)
			writeError(w, http.StatusForbidden, HeaderCSRF, "missing or wrong CSRF token: send the session's csrf_token (GET /arena/session)")
			return true, false
		}
	}
	return true, true
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// newOriginCheck is the cross-origin protection of a handler, trusting
// these origins besides its own (checked by WithTrustedOrigins).
func newOriginCheck(trusted []string) *http.CrossOriginProtection {
	c := http.NewCrossOriginProtection()
	for _, o := range trusted {
		_ = c.AddTrustedOrigin(o)
	}
	return c
}

// crossOrigin refuses a state-changing request from a page of another
// origin, whatever it authenticates with, and reports whether it did.
func (h *Handler) crossOrigin(w http.ResponseWriter, r *http.Request) bool {
	if err := h.origins.Check(r); err != nil {
		closeIfBody(w, r)
		writeError(w, http.StatusForbidden, "", "cross-origin request refused: a page of another origin may not change state here")
		return true
	}
	return false
}

// loginGate answers, before the body of POST /arena/session is read, a
// login that cannot succeed: on a server without a key (409), or from an
// address with no guess left (429), which would send its body for nothing.
func (h *Handler) loginGate(w http.ResponseWriter, r *http.Request) bool {
	if h.key.Load() == nil {
		closeIfBody(w, r)
		writeNoKey(w)
		return true
	}
	return h.throttled(w, r)
}

func writeNoKey(w http.ResponseWriter) {
	writeError(w, http.StatusConflict, "", "this server has no API key: requests need no session (it listens on loopback only)")
}

// login serves POST /arena/session: the API key for a session cookie. Its
// body has been read (the public pool's rule: public.go), and loginGate
// has let it through.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	want := h.key.Load()
	if want == nil { // SetAPIKey("") since the gate
		writeNoKey(w)
		return
	}
	var req LoginRequest
	if err := decodeJSON(r, &req); err != nil {
		writeErr(w, err)
		return
	}
	if req.Key == "" {
		writeError(w, http.StatusBadRequest, "key", "missing: send the API key")
		return
	}
	valid := validKey(req.Key, want)
	if h.tooMany(w, r, h.guesses.guess(clientAddr(r), valid)) {
		return
	}
	if !valid {
		writeError(w, http.StatusUnauthorized, "key", "invalid API key")
		return
	}
	token, s := h.sessions.create(h.opts.sessionTTL, want)
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: token, Path: "/", Expires: s.expires, MaxAge: int(h.opts.sessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: overHTTPS(r),
	})
	writeJSON(w, http.StatusOK, SessionView{Auth: "session", CSRFToken: s.csrf, Expires: &s.expires})
}

// sessionInfo serves GET /arena/session: how this request got in.
func (h *Handler) sessionInfo(w http.ResponseWriter, r *http.Request) {
	switch _, hasKey := apiKey(r); {
	case h.key.Load() == nil:
		writeJSON(w, http.StatusOK, SessionView{Auth: "none"})
	case hasKey:
		writeJSON(w, http.StatusOK, SessionView{Auth: "key"})
	default: // the middleware let it in by its session cookie (or had no key to check then)
		c, err := r.Cookie(SessionCookie)
		if err != nil {
			writeError(w, http.StatusUnauthorized, "", "missing API key (send X-API-Key or Authorization: Bearer)")
			return
		}
		s, ok := h.session(c.Value)
		if !ok { // it expired since
			writeError(w, http.StatusUnauthorized, "", "session expired or revoked: log in again")
			return
		}
		writeJSON(w, http.StatusOK, SessionView{Auth: "session", CSRFToken: s.csrf, Expires: &s.expires})
	}
}

// logout serves DELETE /arena/session: the cookie's session ends here and
// now, and the browser is told to drop the cookie.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	var out LoggedOut
	if c, err := r.Cookie(SessionCookie); err == nil {
		out.Revoked = h.sessions.revoke(c.Value)
	}
	h.clearSessionCookie(w, r)
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: overHTTPS(r)})
}

// overHTTPS reports whether the browser reached the server over HTTPS: the
// connection is TLS, or a reverse proxy that ended TLS says so
// (X-Forwarded-Proto, Forwarded proto=: the first value, set by the proxy
// nearest the browser), or the page's own Origin is an https one. The
// cookie is then Secure. A client that claims HTTPS falsely only gets a
// cookie its browser will not send back over plain HTTP.
func overHTTPS(r *http.Request) bool {
	if r.TLS != nil || strings.HasPrefix(r.Header.Get("Origin"), "https://") {
		return true
	}
	if p, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ","); strings.EqualFold(strings.TrimSpace(p), "https") {
		return true
	}
	first, _, _ := strings.Cut(r.Header.Get("Forwarded"), ",") // the element of the proxy nearest the browser
	for _, pair := range strings.Split(first, ";") {
		if k, v, ok := strings.Cut(strings.TrimSpace(pair), "="); ok && strings.EqualFold(k, "proto") {
			return strings.EqualFold(strings.Trim(v, `"`), "https")
		}
	}
	return false
}
