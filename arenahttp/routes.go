package arenahttp

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ares-arena/arena/fault"
)

// route is one pattern of the API with the query parameters it accepts.
type route struct {
	pattern string
	query   []string // accepted query parameters; any other is a 400
	serve   http.HandlerFunc
	public  bool // served without the key, from the public pool (public.go): the dashboard's files, and the login that checks the key itself
	// gate answers, before a public route's body is read, what no body
	// could change (the login on a server without a key, an address with
	// no guess left), and reports whether it did.
	gate func(http.ResponseWriter, *http.Request) bool
}

// agentRoute is the prefix of the built-in routes of agent faults; the
// last segment names the fault (fault.Spec.Route).
const agentRoute = "/arena/agent/{id}/"

func (h *Handler) routes() []route {
	var rs []route
	for _, spec := range fault.Specs() {
		pathID := ""
		if strings.Contains(spec.Route, "{id}") {
			pathID = "id"
		}
		rs = append(rs, route{pattern: "POST " + spec.Route, serve: h.action(spec.Type, pathID)})
	}
	rs = append(rs,
		route{pattern: "POST " + agentRoute + "{action}", serve: h.unknownAction},
		route{pattern: "POST /arena/fault/{type}", serve: h.fault},

		route{pattern: "GET /arena/faults", serve: h.faults},
		route{pattern: "DELETE /arena/faults", serve: h.faultLiftAll},
		route{pattern: "DELETE /arena/faults/{id}", serve: h.faultLift},

		route{pattern: "GET /arena/stats", serve: h.stats},
		route{pattern: "GET /arena/history", query: historyQuery, serve: h.history},
		route{pattern: "GET /arena/score", serve: h.score},
		route{pattern: "GET /arena/metrics", serve: h.metricsJSON},
		route{pattern: "GET /arena/stream", query: []string{"last_event_id"}, serve: h.stream},

		route{pattern: "POST /arena/survival", serve: h.survivalStart},
		route{pattern: "POST /arena/survival/stop", serve: h.survivalStop},
		route{pattern: "GET /arena/survival/status", serve: h.survivalStatus},

		route{pattern: "POST /arena/scenario/run", query: []string{"seed"}, serve: h.scenarioRun},
		route{pattern: "POST /arena/scenario/validate", serve: h.scenarioValidate},
		route{pattern: "POST /arena/scenario/start", query: []string{"seed"}, serve: h.scenarioStart},
		route{pattern: "POST /arena/scenario/stop", serve: h.scenarioStop},
		route{pattern: "GET /arena/scenarios", serve: h.scenarioList},
		route{pattern: "GET /arena/run", serve: h.runStatus},
		route{pattern: "GET /arena/report", serve: h.report},

		route{pattern: "GET /arena/flight/timeline", query: pageQuery, serve: h.flightTimeline},
		route{pattern: "GET /arena/flight/diagnostics", query: pageQuery, serve: h.flightDiagnostics},

		route{pattern: "GET /metrics", serve: h.prometheus},

		route{pattern: "GET /arena/ui/{asset...}", public: true, serve: h.dashboard},
		route{pattern: "POST /arena/session", public: true, gate: h.loginGate, serve: h.login},
		route{pattern: "GET /arena/session", serve: h.sessionInfo},
		route{pattern: "DELETE /arena/session", serve: h.logout},
	)
	return rs
}

// wrap puts a route behind the API's middleware, outermost first: write
// deadline, panic recovery, closed-handler check, cross-origin check; then
// for a public route its own way (servePublic), for the others auth, body
// limit, concurrency cap of the route's class, body read deadline, query
// check.
func (h *Handler) wrap(rt route) http.Handler {
	class := routeClass(rt.pattern)
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.closed() {
			writeError(w, http.StatusServiceUnavailable, "", "server is shutting down")
			return
		}
		if h.crossOrigin(w, r) {
			return
		}
		if rt.public {
			h.servePublic(w, r, rt)
			return
		}
		// Nothing of the body is read before the key is checked; an early
		// answer closes the connection rather than drain a slow body.
		if !h.authorized(w, r) {
			return
		}
		if r.ContentLength > h.opts.bodyLimit {
			closeIfBody(w, r)
			writeError(w, http.StatusRequestEntityTooLarge, "body", fmt.Sprintf("larger than the limit of %d bytes", h.opts.bodyLimit))
			return
		}
		release, ok := h.admit(w, r, class)
		if !ok {
			return
		}
		defer release()
		h.limitBody(w, r, h.opts.bodyLimit)
		if !badQuery(w, r, rt) {
			rt.serve(w, r)
		}
	})
	return h.withWriteDeadline(recoverMiddleware(h.opts.logger, inner))
}

// badQuery answers 400 for a query parameter the route does not take, and
// reports whether it did: a misspelt parameter is never ignored.
func badQuery(w http.ResponseWriter, r *http.Request, rt route) bool {
	for name := range r.URL.Query() {
		if !slices.Contains(rt.query, name) {
			want := "none"
			if len(rt.query) > 0 {
				want = strings.Join(rt.query, ", ")
			}
			writeError(w, http.StatusBadRequest, name, "unknown query parameter (want "+want+")")
			return true
		}
	}
	return false
}
