// Package arenahttp is arena's HTTP API: operators and dashboards drive and
// watch chaos over HTTP, with API-key auth, a Server-Sent Events stream of
// the service's events and Prometheus metrics.
//
//	reg := prometheus.NewRegistry()
//	store := events.NewMemoryStore()
//	svc := engine.NewService(fault.NewInjector(rt, dag), store, nil, engine.WithRegisterer(reg), …)
//	h := arenahttp.NewHandler(svc, arenahttp.WithAPIKey(key), arenahttp.WithEvents(store),
//		arenahttp.WithGatherer(reg), arenahttp.WithFlightRecorder(fr))
//	defer h.Close()
//	http.ListenAndServe("127.0.0.1:8080", h) // or h.RegisterRoutes(yourMux)
//
// `arena serve` does this over the fake cluster; to serve your own system,
// build its Service as above.
//
// # Routes
//
// JSON in and out. Every route requires the API key when one is set, but
// the dashboard's files and the login (see Dashboard and sessions).
//
// Each built-in fault type has a POST route of its own, its spec's
// (fault.Spec.Route): /arena/leader/kill lands kill_leader,
// /arena/agent/{id}/pause pause_agent, /arena/edge/remove remove_edge (body:
// source_id, target_id), and so on; the README's fault table lists them
// all, and a type added to arena gets its route from its spec. The others:
//
//	POST /arena/agent/{id}/{action}          an {action} no fault type has: 400 naming the ones there are
//	POST /arena/fault/{type}                 any type the service knows, its own too (body: target_id, source_id, metadata)
//	GET  /arena/faults                       []engine.ActiveFault: faults arena can still lift, oldest first
//	DELETE /arena/faults/{id}                FaultLifted: lift that fault now (404: no such active fault)
//	DELETE /arena/faults                     []FaultLifted: lift every active fault now
//	GET  /arena/stats                        engine.Stats
//	GET  /arena/history[?after=|before=&limit=]  []fault.Result, oldest first (a page)
//	GET  /arena/score                        ScoreView
//	GET  /arena/metrics                      engine.MetricsSnapshot
//	GET  /arena/stream                       Server-Sent Events of the "arena" stream
//	POST /arena/survival                     202 SurvivalStarted; body: engine.SurvivalConfig
//	POST /arena/survival/stop                engine.SurvivalReport
//	GET  /arena/survival/status              SurvivalStatusView
//	POST /arena/scenario/run[?seed=n]        scenario.Report; body: a scenario or a built-in name
//	POST /arena/scenario/validate            ValidateResponse
//	POST /arena/scenario/start[?seed=n]      202 ScenarioStarted: the run goes on in the background
//	POST /arena/scenario/stop                scenario.Report of the run stopped (started either way)
//	GET  /arena/scenarios                    []ScenarioInfo: the built-in library, runnable here or why not
//	GET  /arena/run                          RunView: the run holding the service, and the last one finished here
//	GET  /arena/report                       the last finished run's HTML report (404: none yet)
//	GET  /arena/flight/timeline[?after=&limit=]     []engine.FlightEvent (a page)
//	GET  /arena/flight/diagnostics[?after=&limit=]  []engine.Diagnostic (a page)
//	GET  /metrics                            Prometheus text format
//	GET  /arena/ui/                          the dashboard (public: a page, its script and style sheet)
//	POST /arena/session                      SessionView: the key (body: LoginRequest) for a session cookie (public)
//	GET  /arena/session                      SessionView: how this request got in; a session's CSRF token
//	DELETE /arena/session                    LoggedOut: the cookie's session ends
//
// The paged reads number each item by its position among all recorded,
// from 1. Without ?after= they answer the newest ?limit= items (default
// DefaultPageLimit, at most MaxPageLimit); with it (0 to 2^63-1), the
// items after that number, oldest first. The headers X-Arena-First (number of the first
// item), X-Arena-Next-After (the ?after= of the next page) and
// X-Arena-Dropped (items that fell out of the bounded store) carry the
// numbering; the body stays a JSON array. The history also pages
// backwards: ?before= answers the newest ?limit= items numbered before it
// (oldest first), so a reader walks back from the newest page with
// before=X-Arena-First.
//
// Action bodies (ActionRequest) are optional: {"id", "metadata"} and, for
// remove_edge and /arena/fault/{type}, "source_id" and "target_id". The
// action is validated strictly against the service's fault types
// (fault.Injector.Validate) before anything is injected. The answer is the
// fault.Result; {id} may be a selector ("random", "type:worker"), and the
// result names the agent chosen.
//
// A fault with a "duration" is lifted when it has elapsed on the service's
// clock, like a fault of a run; until then, and for a liftable fault
// without one, it is listed by GET /arena/faults and can be lifted with
// DELETE /arena/faults/{id}. While a run (scenario or survival) holds the
// service, the action routes answer 409: an outside fault must not be
// scored as the run's system's doing.
//
// # Status codes
//
//   - 200: done. A fault that did not land (no such agent, already dead) is
//     a 200 with "success": false: the request was fine, the system said no.
//     A scenario run is a 200 whatever its gate says: the verdict is in the
//     report.
//   - 202: a survival run or a scenario started in the background; the
//     body has its seed.
//   - 400: bad input: malformed or unknown JSON fields, invalid metadata, an
//     invalid scenario (every problem listed), an unknown action, an ID that
//     is empty, longer than 256 bytes, holds whitespace or a path separator
//     (/ or \) or is . or .., an unknown query parameter (a misspelt
//     parameter is never ignored) or one out of its range (?after=, ?limit=,
//     ?seed=), a value out of its range (the error names the field and the
//     range), a scenario planned longer than the server's maximum run, a
//     fault "duration" over the service's maximum
//     (engine.WithMaxFaultDuration, 1h by default), an action "id" that an
//     active fault already has or of the form the service gives (act-<n>),
//     a string in a JSON body that is not valid UTF-8 (a byte that is no
//     character, or half a surrogate pair such as \ud800: it is refused,
//     not stored as U+FFFD).
//   - 401: no API key, or a wrong one; a session that expired or was
//     revoked. The key is checked before any of the body is read, and the
//     connection is closed after the answer. Without the key, a path with
//     no route, or a route's path with another method, is a 401 too: the
//     404 and 405 below come only with the key.
//   - 403: a state-changing request from a page of another origin
//     (Sec-Fetch-Site, Origin), whatever it authenticates with; or one
//     authenticated by a session cookie without the session's CSRF token.
//   - 404: no such route; /arena/fault/{type} of a type the service does
//     not know; DELETE /arena/faults/{id} of a fault that is not active.
//   - 405: not with this method (Allow lists the methods). 404 and 405
//     are JSON like every error, and need the key.
//   - 408: the body did not arrive within WithBodyReadTimeout (10s by
//     default); the connection is closed.
//   - 409: a run holds the service (one at a time: two runs on one system
//     would score each other's faults): a scenario or survival start while
//     either runs, or an action route during a run or an A/B test on the
//     service; the error names the run. Also: a stop with no such run
//     going; a login on a server without a key.
//   - 413: a body over the limit (1 MiB by default; PublicBodyLimit, 16
//     KiB, for the login); the connection is closed without reading the
//     rest.
//   - 429: the client's address presented too many wrong API keys
//     (WithKeyGuesses: 10 in a burst, one back every 6s); with Retry-After.
//     Until then any key it presents, right or wrong, is refused unread.
//   - 500: a handler panicked; the server lives on.
//   - 501: the service's runtime cannot land this fault type (it lacks the
//     capability: "mcp_disconnect is not supported by this runtime (it does
//     not implement fault.MCPDisconnecter)"); a scenario with such a step is
//     a 400 naming the step.
//   - 503: a dependency is missing (no flight recorder, one that cannot be
//     read back, no event store, no Prometheus registry, no provider for
//     the action), the stream's subscriber cap is reached, the route's
//     class (actions, lifts, reads, scenarios, survival) has
//     WithMaxConcurrent requests in progress, the public pool stayed full
//     for a second (WithPublicCapacity; the connection is closed), both
//     with Retry-After; or the handler is closing.
//   - 504: a scenario run reached the server's maximum (WithMaxScenarioRun);
//     the body has the partial report.
//
// Errors are ErrorResponse: {"error": "metadata.delay: …", "field":
// "metadata.delay"}.
//
// # Capacity
//
// No client without the key takes capacity from those with it, and an
// operator can always lift a fault:
//
//   - Requests with the key are served in classes, each with
//     WithMaxConcurrent slots (64) of its own: actions, lifts (DELETE
//     /arena/faults and /arena/faults/{id}), reads, scenarios, survival;
//     event streams have WithMaxSubscribers (64).
//   - What is served without the key (the dashboard's files, the login)
//     draws from the public pool instead, WithPublicCapacity: 16 at once,
//     4 per client address (an IPv6 one by its /64). A slot is held only
//     while the server works: the login's body is read before one is
//     taken (within WithBodyReadTimeout), and the answer is written after
//     it is given back. A request that finds the pool full waits for a
//     slot up to a second. Refusals before the key is known (401, 403,
//     429) take no slot: they cost no more than a 503 would.
//   - Every answer has a write deadline, WithWriteTimeout (10s, and a
//     second more per 64 KiB of a large answer), armed when the handler
//     starts (HTTP/1; on HTTP/2 a deadline resets the stream when it
//     passes, so there at the first write) and again at each write: a
//     client that does not read its answers is disconnected instead of
//     holding the handler.
//   - An event stream whose writes do not complete within the write
//     deadline is dropped; one that has sent nothing but heartbeats for
//     WithStreamIdle (2m) is ended, since whether its client reads cannot
//     be seen until the client's buffers fill; it comes back at once with
//     Last-Event-ID if it does (see Event stream).
//
// # Event stream
//
// GET /arena/stream sends the events of the service's "arena" stream as
// Server-Sent Events:
//
//	retry: 3000
//
//	id: 42
//	event: arena.action.executed
//	data: {"id":"arena-42","stream":"arena","type":"arena.action.executed","version":42,…}
//
// The id is the event's version in the "arena" stream, the event is its
// type, and the data is the whole events.Event as JSON (its payload is
// "data"). A comment line (": heartbeat") is sent every WithHeartbeat, so
// that proxies keep the stream open.
//
// Without Last-Event-ID a client gets the events from now on. With it (or
// ?last_event_id=, for a browser's first request) it first gets the
// retained events after that version, then the live ones, with nothing lost
// or repeated; Last-Event-ID: 0 replays everything retained. The replay
// buffer is the store's retention (events.WithRetention). If events after
// the client's id are no longer retained, or the id is newer than anything
// the stream has (the server restarted), an arena.stream.gap event
// (StreamGap) says where the stream picks up.
//
// All open streams share one subscription to the store, which encodes each
// event's frame once; every stream copies those bytes, and gathers what
// arrives within 50ms of waking into one write and flush, so a hundred
// clients cost the service little more than one.
//
// A slow client never slows the service: a stream that falls more than a
// few thousand events behind the shared subscription is ended, and if the
// shared subscription itself falls a whole buffer behind
// (events.WithSubscriberBuffer) the store drops it instead of waiting and
// every stream ends; clients reconnect with Last-Event-ID and catch up from
// the retained events. A client that stops reading is cut off after
// WithWriteTimeout. At most
// WithMaxSubscribers streams are open at once (503 beyond), and each ends
// after WithMaxStreamAge (10m; the client resumes with Last-Event-ID), or
// after WithStreamIdle (2m) with no event to send (the end says "retry:
// 250", so a client that reads is back at once), so idle clients cannot
// keep every slot for good. Streams flush
// through http.ResponseController, so they work behind middleware that
// wraps the ResponseWriter (as long as it has an Unwrap method).
//
// # Dashboard and sessions
//
// GET /arena/ui/ is a live dashboard of the service, one page embedded in
// the binary that loads nothing from elsewhere (`arena serve` prints its
// URL). It draws the system's health over time from the stream's
// arena.health.changed events, with faults marked as they land, are lifted,
// recover or do not; lists the active faults with a Lift button each and a
// Lift all; starts a built-in scenario (POST /arena/scenario/start) or a
// survival run, stops it, shows its progress and score so far (GET
// /arena/run, read every 2s while a run goes) and links the last run's HTML
// report; keeps a filterable log of the stream's events and pages through
// the action history; and says whether the stream is live, reconnecting or
// caught up after a gap. A reload resumes the stream after the last event
// the page had. What the page keeps is bounded (5 minutes of chart, the
// last 1000 events), and it draws at most twice a second. The server keeps
// nothing per page: the stream is the shared one, and the page's other
// reads are ordinary requests.
//
// A browser's EventSource cannot send X-API-Key, so a page logs in: POST
// /arena/session with {"key": …} answers a session cookie (HttpOnly,
// SameSite=Strict, Path=/, Secure over HTTPS, expiring after
// WithSessionTTL; HTTPS is the connection's TLS, or a reverse proxy's
// X-Forwarded-Proto or Forwarded proto, or the page's https Origin)
// and the session's CSRF token, which the page keeps in memory and sends in
// X-Arena-CSRF on every request that changes state; GET /arena/session gives
// it again after a reload. DELETE /arena/session ends the session on the
// server, and SetAPIKey ends them all; an event stream opened with a
// session that ended (or with a key that was replaced) is closed at its
// next heartbeat (WithHeartbeat). The key travels once, in a request
// body: never in a URL, a cookie or the page. Header auth works as before,
// with no token; without a key nothing is needed, and the server listens on
// loopback only. Whatever the auth, a request that changes state from a page
// of another origin is refused (403), so that no site a user visits can
// drive arena through the user's browser (WithTrustedOrigins admits a
// reverse proxy's).
package arenahttp
