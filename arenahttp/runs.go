package arenahttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/internal/htmlreport"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

// Runs for a page: a scenario started in the background (a browser tab may
// close or reload while it runs), stopped on request, the live status of
// whatever run holds the service, and the HTML report of the last run that
// finished here.

// ScenarioStarted is the 202 answer of POST /arena/scenario/start.
type ScenarioStarted struct {
	Scenario string           `json:"scenario"`
	Seed     uint64           `json:"seed"` // drawn when neither ?seed= nor the scenario gave one
	Status   engine.RunStatus `json:"status"`
}

// ScenarioInfo is one built-in scenario of GET /arena/scenarios.
type ScenarioInfo struct {
	Name          string         `json:"name"`
	Description   string         `json:"description,omitempty"`
	Tags          []string       `json:"tags,omitempty"`
	Steps         int            `json:"steps"`
	PlannedLength clock.Duration `json:"planned_length"`
	// Runnable: this server can run it; Problem says why not (a fault
	// its runtime cannot land, a length over its maximum).
	Runnable bool   `json:"runnable"`
	Problem  string `json:"problem,omitempty"`
}

// RunView is the body of GET /arena/run: the run holding the service now,
// if any, and the last run that finished through this handler.
type RunView struct {
	engine.RunStatus
	Last *LastRun `json:"last,omitempty"`
}

// LastRun sums up the last run that finished through this handler (a
// scenario, or a survival run it started); Report is where its HTML report
// is.
type LastRun struct {
	Kind    string       `json:"kind"` // scenario, survival
	Name    string       `json:"name,omitempty"`
	Seed    uint64       `json:"seed"`
	Outcome string       `json:"outcome"` // a scenario's gate verdict, a survival run's ending
	Total   *float64     `json:"total"`   // null when nothing was measured
	Grade   engine.Grade `json:"grade"`
	End     time.Time    `json:"end"`
	Report  string       `json:"report"`
}

// errStopped is the cause of a scenario run stopped by POST
// /arena/scenario/stop.
var errStopped = errors.New("stopped on request")

// runs tracks the handler's scenario run in progress (one at a time: the
// handler's scenario lock) and the last report.
type runs struct {
	mu   sync.Mutex
	cur  *scenarioRun
	last any // *scenario.Report or *engine.SurvivalReport
}

// scenarioRun is one scenario run of the handler, from begin to end.
type scenarioRun struct {
	cancel context.CancelCauseFunc
	ctx    context.Context
	done   chan struct{} // closed by end
	rep    *scenario.Report
	err    error
}

// begin registers a scenario run under ctx, so that stop can end it.
func (rs *runs) begin(ctx context.Context) (context.Context, *scenarioRun) {
	ctx, cancel := context.WithCancelCause(ctx)
	run := &scenarioRun{cancel: cancel, ctx: ctx, done: make(chan struct{})}
	rs.mu.Lock()
	rs.cur = run
	rs.mu.Unlock()
	return ctx, run
}

// end records the run's outcome.
func (rs *runs) end(run *scenarioRun, rep *scenario.Report, err error) {
	run.rep, run.err = rep, err
	rs.mu.Lock()
	if rs.cur == run {
		rs.cur = nil
	}
	if rep != nil {
		rs.last = rep
	}
	rs.mu.Unlock()
	run.cancel(nil)
	close(run.done)
}

// finished records a survival run's report as the last one.
func (rs *runs) finished(rep *engine.SurvivalReport) {
	rs.mu.Lock()
	rs.last = rep
	rs.mu.Unlock()
}

// stopped says whether POST /arena/scenario/stop ended the run.
func (run *scenarioRun) stopped() bool { return context.Cause(run.ctx) == errStopped }

// checkPlanned refuses a real-time scenario planned longer than the
// server's maximum run.
func (h *Handler) checkPlanned(sc *scenario.Scenario) error {
	max := h.opts.maxScenarioRun
	if _, virtual := h.svc.Clock().(*clock.Virtual); !virtual && sc.PlannedLength() > max {
		return badRequest("actions", "the scenario is planned to run %s, longer than this server's maximum of %s", sc.PlannedLength(), max)
	}
	return nil
}

// scenarioStart serves POST /arena/scenario/start: the scenario runs in the
// background, bounded by the server's maximum run; GET /arena/run follows
// it and POST /arena/scenario/stop ends it.
func (h *Handler) scenarioStart(w http.ResponseWriter, r *http.Request) {
	sc, err := h.readScenarioToRun(r)
	if err != nil {
		writeScenarioErr(w, err)
		return
	}
	if sc.Config.Seed == 0 {
		sc.Config.Seed = engine.DrawSeed()
	}
	unlock, ok := h.lockStart(w)
	if !ok {
		return
	}
	defer unlock()
	if !h.lockScenario(w) {
		return
	}
	ctx, cancel := context.WithTimeout(h.ctx, h.opts.maxScenarioRun)
	ctx, run := h.runs.begin(ctx)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer h.scenario.Unlock()
		defer cancel()
		rep, err := scenario.Run(ctx, h.svc, sc)
		h.runs.end(run, rep, err)
	}()

	// As for survival: watch the status until it shows this run, or the
	// run returns (refused, or already over in virtual time).
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-run.done:
			if run.rep == nil {
				writeScenarioRefused(w, run.err)
				return
			}
			startedScenario(w, ScenarioStarted{Scenario: sc.Name, Seed: sc.Config.Seed, Status: h.svc.RunStatus()})
			return
		case <-tick.C:
			if st := h.svc.RunStatus(); st.Origin == engine.OriginScenario && st.Name == sc.Name && st.Seed == sc.Config.Seed {
				startedScenario(w, ScenarioStarted{Scenario: sc.Name, Seed: sc.Config.Seed, Status: st})
				return
			}
		case <-r.Context().Done():
			return // the run goes on; GET /arena/run tells
		}
	}
}

func startedScenario(w http.ResponseWriter, v ScenarioStarted) {
	w.Header().Set("Location", "/arena/run")
	writeJSON(w, http.StatusAccepted, v)
}

// scenarioStop serves POST /arena/scenario/stop: it ends the scenario run
// of this handler (started here or by POST /arena/scenario/run, whose
// caller then gets the same report) and answers its report, cut short
// (outcome "cancelled"); faults it landed are rolled back as at any end.
// 409 when none is going.
func (h *Handler) scenarioStop(w http.ResponseWriter, r *http.Request) {
	h.runs.mu.Lock()
	run := h.runs.cur
	h.runs.mu.Unlock()
	if run == nil {
		writeError(w, http.StatusConflict, "", "no scenario run is going on this server")
		return
	}
	run.cancel(errStopped)
	select {
	case <-run.done:
	case <-r.Context().Done():
		return
	}
	if run.rep == nil {
		writeError(w, http.StatusInternalServerError, "", fmt.Sprint("the run ended without a report: ", run.err))
		return
	}
	writeJSON(w, http.StatusOK, run.rep)
}

// scenarioList serves GET /arena/scenarios: the built-in library, each
// checked against this server.
func (h *Handler) scenarioList(w http.ResponseWriter, r *http.Request) {
	var out []ScenarioInfo
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Load(name)
		if err != nil {
			out = append(out, ScenarioInfo{Name: name, Problem: err.Error()})
			continue
		}
		info := ScenarioInfo{Name: name, Description: sc.Description, Tags: sc.Tags, Steps: len(sc.Actions),
			PlannedLength: clock.Duration(sc.PlannedLength()), Runnable: true}
		if err := scenario.ValidateFor(h.svc, sc); err != nil {
			info.Runnable, info.Problem = false, err.Error()
		} else if err := h.checkPlanned(sc); err != nil {
			info.Runnable, info.Problem = false, err.Error()
		}
		out = append(out, info)
	}
	writeJSON(w, http.StatusOK, out)
}

// runStatus serves GET /arena/run.
func (h *Handler) runStatus(w http.ResponseWriter, r *http.Request) {
	v := RunView{RunStatus: h.svc.RunStatus()}
	h.runs.mu.Lock()
	last := h.runs.last
	h.runs.mu.Unlock()
	switch rep := last.(type) {
	case *scenario.Report:
		v.Last = &LastRun{Kind: "scenario", Name: rep.Scenario, Seed: rep.Seed, Outcome: string(rep.Gate.Verdict), End: rep.End}
		v.Last.Total, v.Last.Grade = total(rep.Report)
	case *engine.SurvivalReport:
		v.Last = &LastRun{Kind: "survival", Seed: rep.Config.Seed, Outcome: string(rep.Ending), End: rep.End}
		v.Last.Total, v.Last.Grade = total(rep.Report)
	}
	if v.Last != nil {
		v.Last.Report = "/arena/report"
	}
	writeJSON(w, http.StatusOK, v)
}

func total(rep *engine.Report) (*float64, engine.Grade) {
	if rep == nil || !rep.Score.Measured {
		return nil, engine.GradeNone
	}
	t := rep.Score.Total
	return &t, rep.Score.Grade
}

// reportCSP lets the HTML report (inline CSS and SVG, a data: icon, no
// script) show and nothing else.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// report serves GET /arena/report: the self-contained HTML report of the
// last run that finished here (as `arena run --html` writes it).
func (h *Handler) report(w http.ResponseWriter, r *http.Request) {
	h.runs.mu.Lock()
	last := h.runs.last
	h.runs.mu.Unlock()
	var buf bytes.Buffer
	var err error
	switch rep := last.(type) {
	case *scenario.Report:
		err = htmlreport.WriteScenario(&buf, rep)
	case *engine.SurvivalReport:
		err = htmlreport.WriteSurvival(&buf, rep)
	default:
		writeError(w, http.StatusNotFound, "", "no run has finished on this server yet")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "", "write the report: "+err.Error())
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Security-Policy", reportCSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}
