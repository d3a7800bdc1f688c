package arenahttp

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ares-arena/arena/engine"
)

// Defaults of the handler's load limits.
const (
	// DefaultBodyReadTimeout bounds the reading of one request body: a
	// client that sends it slower is answered 408 and disconnected.
	DefaultBodyReadTimeout = 10 * time.Second
	// DefaultMaxConcurrent caps the requests of one route class (actions,
	// lifts, reads, scenarios, survival) served at once; one more is a 503.
	DefaultMaxConcurrent = 64
	// DefaultMaxSurvival bounds the duration of a survival run started
	// over HTTP.
	DefaultMaxSurvival = 24 * time.Hour
	// MaxSurvivalTimelineCap bounds a survival run's timeline_cap over
	// HTTP: the report's lists are kept in memory and sent whole.
	MaxSurvivalTimelineCap = 10_000
)

type maxSurvivalOption time.Duration

func (o maxSurvivalOption) apply(s *options) { s.maxSurvival = time.Duration(o) }

// WithMaxSurvival bounds the duration of POST /arena/survival (default
// 24h); a longer one is a 400 naming the limit.
func WithMaxSurvival(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithMaxSurvival: duration must be positive")
	}
	return maxSurvivalOption(d)
}

// checkSurvival applies the server's bounds to a survival config.
func (h *Handler) checkSurvival(cfg engine.SurvivalConfig) error {
	switch {
	case time.Duration(cfg.Duration) > h.opts.maxSurvival:
		return badRequest("duration", "%s is longer than this server's maximum of %s", cfg.Duration, h.opts.maxSurvival)
	case cfg.TimelineCap > MaxSurvivalTimelineCap:
		return badRequest("timeline_cap", "%d is more than this server's maximum of %d", cfg.TimelineCap, MaxSurvivalTimelineCap)
	}
	return nil
}

type bodyReadTimeoutOption time.Duration

func (o bodyReadTimeoutOption) apply(s *options) { s.bodyReadTimeout = time.Duration(o) }

// WithBodyReadTimeout bounds the time to read one request body (default
// 10s). It is a per-request read deadline, set after the API key is checked
// and cleared once the body is read, so that long answers (scenario runs,
// event streams) are not cut off as a server-wide ReadTimeout would.
func WithBodyReadTimeout(d time.Duration) Option {
	if d <= 0 {
		panic("arena: WithBodyReadTimeout: timeout must be positive")
	}
	return bodyReadTimeoutOption(d)
}

type maxConcurrentOption int

func (o maxConcurrentOption) apply(s *options) { s.maxConcurrent = int(o) }

// WithMaxConcurrent caps the requests served at once in each route class
// (default 64): actions, lifts, reads, scenarios and survival each have
// their own cap, so a flood of one kind does not starve the others; the
// lifts (DELETE /arena/faults and /arena/faults/{id}) are a class of their
// own so that an operator can always lift a fault. A request beyond it is
// answered 503 with a Retry-After at once. The event stream has its own
// cap (WithMaxSubscribers), and requests served without the key theirs
// (WithPublicCapacity).
func WithMaxConcurrent(n int) Option {
	if n <= 0 {
		panic("arena: WithMaxConcurrent: cap must be positive")
	}
	return maxConcurrentOption(n)
}

// routeClass names the concurrency class of a route pattern; "" for the
// event stream, which is capped by its subscriber count. (Public routes
// draw from the public pool instead: public.go.)
func routeClass(pattern string) string {
	method, path, _ := strings.Cut(pattern, " ")
	switch {
	case path == "/arena/stream":
		return ""
	case method == http.MethodDelete && (path == "/arena/faults" || strings.HasPrefix(path, "/arena/faults/")):
		return "lift"
	case strings.HasPrefix(path, "/arena/scenario/"):
		return "scenario"
	case strings.HasPrefix(path, "/arena/survival"):
		return "survival"
	case method == http.MethodGet:
		return "read"
	default:
		return "action"
	}
}

// admit takes a slot of the route's class, or answers 503 and reports
// false. The slot is given back by the returned func.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request, class string) (release func(), ok bool) {
	sem := h.slots[class]
	if sem == nil {
		return func() {}, true
	}
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, true
	default:
		closeIfBody(w, r)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "", "too many "+class+" requests at once (at most "+strconv.Itoa(cap(sem))+")")
		return nil, false
	}
}

// newSlots makes one semaphore per route class.
func newSlots(n int) map[string]chan struct{} {
	m := make(map[string]chan struct{})
	for _, c := range []string{"action", "lift", "read", "scenario", "survival"} {
		m[c] = make(chan struct{}, n)
	}
	return m
}

// closeIfBody closes the connection after an answer given without reading
// the request's body (see dropBody).
func closeIfBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		dropBody(w)
	}
}

// dropBody makes net/http close the connection after the answer instead of
// reading the rest of the body, which a slow client could stretch out at
// will. "Connection: close" alone is not enough: the server still reads up
// to 256 KiB of the body when the handler returns; a read deadline in the
// past ends that read at once.
func dropBody(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// limitBody puts the body behind a size limit and the read deadline. The
// deadline is cleared when the body has been read (or failed): net/http
// then starts watching the connection for the client going away, and a
// deadline still set would end the request's context.
func (h *Handler) limitBody(w http.ResponseWriter, r *http.Request, limit int64) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(h.opts.bodyReadTimeout)) != nil {
		return // not a net/http connection (a test recorder): no deadline
	}
	r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
}

type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// jsonFallback answers the mux's own 404 and 405 (plain text in net/http)
// as ErrorResponse JSON, keeping the Allow header of a 405. They come after
// the key, as on any route: without it the answer is the same 401, so that
// a client without the key learns nothing of the routes and methods there
// are. (A redirect to a cleaned path is given to anyone.)
func (h *Handler) jsonFallback(w http.ResponseWriter, r *http.Request) bool {
	next, pattern := h.mux.Handler(r)
	if pattern != "" {
		return false
	}
	w = h.deadlined(w, r)
	rec := &statusOnly{header: http.Header{}}
	next.ServeHTTP(rec, r)
	switch rec.code {
	case http.StatusMethodNotAllowed, http.StatusNotFound, 0:
		if !h.authorized(w, r) {
			return true
		}
	}
	if allow := rec.header.Get("Allow"); allow != "" {
		w.Header().Set("Allow", allow)
	}
	closeIfBody(w, r)
	switch rec.code {
	case http.StatusMethodNotAllowed:
		writeError(w, rec.code, "", "method "+r.Method+" not allowed on "+r.URL.Path+" (allowed: "+rec.header.Get("Allow")+")")
	case http.StatusNotFound, 0:
		writeError(w, http.StatusNotFound, "", "no such route: "+r.URL.Path)
	default: // a redirect (cleaned path) and the like: pass it on as it is
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.code)
	}
	return true
}

// statusOnly keeps the header and status of the mux's fallback answer and
// drops its plain-text body.
type statusOnly struct {
	header http.Header
	code   int
}

func (s *statusOnly) Header() http.Header { return s.header }
func (s *statusOnly) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
}
func (s *statusOnly) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	return len(b), nil
}
