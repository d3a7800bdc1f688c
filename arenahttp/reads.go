package arenahttp

import (
	"context"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ares-arena/arena/engine"
)

func (h *Handler) stats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.svc.Stats())
}

// history answers a page of the service's history, oldest first: the
// newest ?limit= results, or those after ?after= (see paging.go).
func (h *Handler) history(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("before") {
		h.historyBefore(w, r)
		return
	}
	after, limit, err := pageParams(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	items, first, dropped := h.svc.HistoryPage(after, limit)
	writePage(w, items, first, dropped)
}

// ScoreView is the body of GET /arena/score: the live score of the running
// survival run, or else the total of the service's last finished run.
type ScoreView struct {
	// Source is "survival" (live, with dimensions), "last_run", or "none"
	// when no run has finished with a measured score.
	Source string        `json:"source"`
	Total  *float64      `json:"total"` // null when nothing was measured
	Grade  engine.Grade  `json:"grade"` // "none" when nothing was measured
	Score  *engine.Score `json:"score,omitempty"`
}

func (h *Handler) score(w http.ResponseWriter, r *http.Request) {
	if st := h.svc.SurvivalStatus(); st.Running {
		v := ScoreView{Source: "survival", Grade: st.Score.Grade, Score: &st.Score}
		if st.Score.Measured {
			v.Total = &st.Score.Total
		}
		writeJSON(w, http.StatusOK, v)
		return
	}
	if last := h.svc.Stats().LastScore; last != nil {
		writeJSON(w, http.StatusOK, ScoreView{Source: "last_run", Total: last, Grade: engine.GradeFor(*last)})
		return
	}
	writeJSON(w, http.StatusOK, ScoreView{Source: "none"})
}

func (h *Handler) metricsJSON(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.svc.Metrics())
}

// prometheus serves the registry the service's collectors are on.
func (h *Handler) prometheus(w http.ResponseWriter, r *http.Request) {
	if h.opts.gatherer == nil {
		writeError(w, http.StatusServiceUnavailable, "", "no Prometheus registry configured (arenahttp.WithGatherer)")
		return
	}
	promhttp.HandlerFor(h.opts.gatherer, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, r)
}

func (h *Handler) flightTimeline(w http.ResponseWriter, r *http.Request) {
	serveFlight(h, w, r, flightPager.TimelinePage, engine.FlightReader.Timeline)
}

func (h *Handler) flightDiagnostics(w http.ResponseWriter, r *http.Request) {
	serveFlight(h, w, r, flightPager.DiagnosticsPage, engine.FlightReader.Diagnostics)
}

func serveFlight[T any](h *Handler, w http.ResponseWriter, r *http.Request,
	readPage func(flightPager, context.Context, uint64, int) ([]T, uint64, uint64, error),
	read func(engine.FlightReader, context.Context) ([]T, error)) {
	if h.opts.flight == nil {
		writeError(w, http.StatusServiceUnavailable, "", "no flight recorder configured (arenahttp.WithFlightRecorder)")
		return
	}
	after, limit, err := pageParams(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	if p, ok := h.opts.flight.(flightPager); ok {
		items, first, dropped, err := readPage(p, r.Context(), after, limit)
		if err != nil {
			writeError(w, http.StatusBadGateway, "", "flight recorder: "+err.Error())
			return
		}
		writePage(w, items, first, dropped)
		return
	}
	fr, ok := h.opts.flight.(engine.FlightReader)
	if !ok {
		writeError(w, http.StatusServiceUnavailable, "", "the flight recorder cannot be read back (it is not an engine.FlightReader)")
		return
	}
	all, err := read(fr, r.Context())
	if err != nil {
		writeError(w, http.StatusBadGateway, "", "flight recorder: "+err.Error())
		return
	}
	items, first := pageSlice(all, after, limit)
	writePage(w, items, first, 0)
}
