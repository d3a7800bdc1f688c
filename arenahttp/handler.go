package arenahttp

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ares-arena/arena/engine"
)

// Handler serves arena's HTTP API (see the package doc for the routes) over
// one service. Create it with NewHandler; mount it as an http.Handler, or add
// its routes to your own mux with RegisterRoutes. Close it before the server
// shuts down: that ends the event streams (which never go idle on their own)
// and a survival run it started.
type Handler struct {
	svc  *engine.Service
	opts options
	mux  *http.ServeMux

	key      atomic.Pointer[[sha256.Size]byte] // SHA-256 of the API key; nil: no auth
	sessions sessions                          // browsers' sessions (session.go)
	guesses  guesses                           // wrong keys per client address (guesses.go)
	origins  *http.CrossOriginProtection       // refuses cross-origin state changes

	streams  atomic.Int64             // open event streams
	hub      hub                      // the event streams' shared subscription
	slots    map[string]chan struct{} // per route class: requests being served
	public   publicPool               // requests served without the key (public.go)
	scenario sync.Mutex               // held by the scenario run in progress
	runs     runs                     // that run, and the last report (runs.go)

	ctx       context.Context // background work (survival runs, scenario starts); ended by Close
	cancel    context.CancelFunc
	closing   chan struct{} // closed by Close: streams return
	closeOnce sync.Once
	wg        sync.WaitGroup // runs started in the background (survival, scenario start)
	startMu   sync.Mutex     // held while such a run is started (lockStart)

	survMu   sync.Mutex    // guards the fields below
	survOwn  chan struct{} // a survival run started here is going; closed once its outcome is recorded
	survSeen bool          // the engine has shown survOwn's run running
	survLast *engine.SurvivalReport
	survErr  error
}

// NewHandler returns the API over svc. A nil svc is a programmer error and
// panics.
func NewHandler(svc *engine.Service, opts ...Option) *Handler {
	if svc == nil {
		panic("arena: arenahttp.NewHandler: nil service")
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Handler{svc: svc, opts: o, ctx: ctx, cancel: cancel, closing: make(chan struct{}), slots: newSlots(o.maxConcurrent),
		origins: newOriginCheck(o.trustedOrigins), guesses: guesses{burst: o.keyGuesses, refill: o.keyGuessRefill},
		public: newPublicPool(o.publicTotal, o.publicPerAddress)}
	h.SetAPIKey(o.apiKey)
	h.mux = http.NewServeMux()
	h.RegisterRoutes(h.mux)
	return h
}

// ServeHTTP serves the API's routes; anything else is a 404 (or 405 for a
// known path with another method), as ErrorResponse JSON, once the request
// is authenticated (a 401 before).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.jsonFallback(w, r) {
		return
	}
	h.mux.ServeHTTP(w, r)
}

// RegisterRoutes adds every route of the API to mux. Each route carries its
// own middleware (recover, auth, body limit), so they are protected on any
// mux.
func (h *Handler) RegisterRoutes(mux *http.ServeMux) {
	for _, rt := range h.routes() {
		mux.Handle(rt.pattern, h.wrap(rt))
	}
}

// SetAPIKey sets the key every route requires, in X-API-Key or
// Authorization: Bearer; "" turns auth off. It may be called while serving;
// it ends every browser session (they were opened with the old key). Only a
// hash of the key is kept, and keys are compared in constant time. A key
// that no header can carry (CheckAPIKey) panics: it would lock every client
// out without a word.
func (h *Handler) SetAPIKey(key string) {
	if err := CheckAPIKey(key); err != nil {
		panic("arena: SetAPIKey: " + err.Error())
	}
	h.sessions.reset()
	if key == "" {
		h.key.Store(nil)
		return
	}
	sum := sha256.Sum256([]byte(key))
	h.key.Store(&sum)
}

// Close ends the open event streams, stops the runs this handler started
// in the background (survival, scenario start) and waits for them. Requests
// after Close get 503. It is safe to call more than once.
func (h *Handler) Close() error {
	h.closeOnce.Do(func() {
		close(h.closing)
		h.cancel()
	})
	// A start in progress finishes (and sees closing) before the wait, so
	// that nothing is added to wg once Wait has begun (lockStart).
	h.startMu.Lock()
	h.startMu.Unlock()
	h.wg.Wait()
	return nil
}

// lockStart is taken by a handler that starts a run in the background (POST
// /arena/survival and /arena/scenario/start) before it adds the run to wg,
// and released once it has answered. Close takes it before it waits for wg,
// so a run started under it is waited for and none is started once Close
// has begun: then lockStart answers 503 and reports false.
func (h *Handler) lockStart(w http.ResponseWriter) (unlock func(), ok bool) {
	h.startMu.Lock()
	if h.closed() {
		writeError(w, http.StatusServiceUnavailable, "", "server is shutting down")
		h.startMu.Unlock()
		return nil, false
	}
	return h.startMu.Unlock, true
}

func (h *Handler) closed() bool {
	select {
	case <-h.closing:
		return true
	default:
		return false
	}
}

// CheckAPIKey says why a key can never match what a client sends: HTTP
// drops the white space around a header's value and cannot carry control
// characters, so a key with either (a trailing newline from a file, say)
// would refuse every request. "" (no key) is fine.
func CheckAPIKey(key string) error {
	switch {
	case key != strings.TrimSpace(key):
		return errors.New("API key has leading or trailing white space, which no header can carry (trim it)")
	case strings.ContainsFunc(key, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return errors.New("API key contains control characters, which no header can carry")
	}
	return nil
}
