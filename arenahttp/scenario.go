package arenahttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

// ValidateResponse is the 200 answer of POST /arena/scenario/validate.
type ValidateResponse struct {
	Valid         bool           `json:"valid"` // always true: an invalid scenario is a 400
	Name          string         `json:"name"`
	Steps         int            `json:"steps"`
	PlannedLength clock.Duration `json:"planned_length"`
}

// ScenarioTimeout is the 504 answer of POST /arena/scenario/run when the run
// reached the server's maximum: the error and the report so far.
type ScenarioTimeout struct {
	Error  string           `json:"error"`
	Report *scenario.Report `json:"report"`
}

// scenarioBodyName labels the body in scenario error messages.
const scenarioBodyName = "body"

// readScenario reads the scenario of a request body: a YAML or JSON
// scenario, or the name of a built-in one (plain or as a JSON string),
// validated against the service (its own fault types, and what its runtime
// can land).
func (h *Handler) readScenario(r *http.Request) (*scenario.Scenario, error) {
	sc, err := readScenario(r, h.svc.Injector().FaultTypes())
	if err != nil {
		return nil, err
	}
	if err := scenario.ValidateFor(h.svc, sc); err != nil {
		return nil, scenarioError(err)
	}
	return sc, nil
}

func readScenario(r *http.Request, faults []fault.Spec) (*scenario.Scenario, error) {
	b, err := readBody(r)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, badRequest("body", "want a scenario (YAML or JSON) or the name of a built-in scenario (%s)", strings.Join(scenarios.Names(), ", "))
	}
	name := string(b)
	if b[0] == '"' {
		if json.Unmarshal(b, &name) != nil {
			name = ""
		}
	}
	if name != "" && !strings.ContainsAny(name, ":\n{[ ") {
		if !slices.Contains(scenarios.Names(), name) {
			return nil, badRequest("body", "%s is not a built-in scenario (want %s)", quote(name), strings.Join(scenarios.Names(), ", "))
		}
		sc, err := scenarios.Load(name)
		if err != nil {
			return nil, err
		}
		return sc, nil
	}
	sc, err := scenario.Load(b, scenarioBodyName, faults...)
	if err != nil {
		return nil, scenarioError(err)
	}
	return sc, nil
}

// scenarioProblems is a 400 listing every problem of an invalid scenario.
type scenarioProblems struct {
	problems scenario.Errors
}

func (e *scenarioProblems) Error() string { return e.problems.Error() }

func scenarioError(err error) error {
	var es scenario.Errors
	if errors.As(err, &es) && len(es) > 0 {
		return &scenarioProblems{es}
	}
	return badRequest("body", "%v", err)
}

func writeScenarioErr(w http.ResponseWriter, err error) {
	var sp *scenarioProblems
	if !errors.As(err, &sp) {
		writeErr(w, err)
		return
	}
	// Each problem is in the list once; the error names the first (the
	// loader has already dropped repeats and capped the list).
	first := sp.problems[0]
	resp := ErrorResponse{Error: first.Error(), Field: first.Path}
	if n := len(sp.problems) - 1; n > 0 {
		resp.Error += fmt.Sprintf(" (and %d more: see problems)", n)
	}
	for _, p := range sp.problems {
		resp.Problems = append(resp.Problems, Problem{Line: p.Line, Column: p.Column, Field: p.Path, Message: p.Msg})
	}
	writeJSON(w, http.StatusBadRequest, resp)
}

func (h *Handler) scenarioValidate(w http.ResponseWriter, r *http.Request) {
	sc, err := h.readScenario(r)
	if err != nil {
		writeScenarioErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ValidateResponse{Valid: true, Name: sc.Name, Steps: len(sc.Actions), PlannedLength: clock.Duration(sc.PlannedLength())})
}

// seedQuery sets sc's seed from ?seed= when the request has one: a
// positive integer, else a 400 naming seed.
func seedQuery(r *http.Request, sc *scenario.Scenario) error {
	s := r.URL.Query().Get("seed")
	if s == "" {
		return nil
	}
	seed, err := strconv.ParseUint(s, 10, 64)
	if err != nil || seed == 0 {
		return badRequest("seed", "want a positive integer, got %s", quote(s))
	}
	sc.Config.Seed = seed
	return nil
}

// readScenarioToRun reads what a request to run a scenario asks for (POST
// /arena/scenario/run and /start): the body's scenario as readScenario reads
// it, with the seed of ?seed=, refused when it is planned longer than the
// server's maximum run. writeScenarioErr answers its error.
func (h *Handler) readScenarioToRun(r *http.Request) (*scenario.Scenario, error) {
	sc, err := h.readScenario(r)
	if err != nil {
		return nil, err
	}
	if err := seedQuery(r, sc); err != nil {
		return nil, err
	}
	if err := h.checkPlanned(sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// lockScenario takes the handler's scenario lock for a run, or answers 409
// and reports false. One scenario runs at a time on a handler, since two
// runs on one system would score each other's faults; the caller unlocks
// h.scenario when its run has ended.
func (h *Handler) lockScenario(w http.ResponseWriter) bool {
	if !h.scenario.TryLock() {
		writeError(w, http.StatusConflict, "", "a scenario run is in progress")
		return false
	}
	return true
}

// writeScenarioRefused answers a run scenario.Run refused (it
// returned no report): 409 when another run holds the service (a survival
// run, or a run outside the handler), 503 when the service lacks a runtime
// or a DAG the scenario needs, else 400 naming the scenario's problems.
func writeScenarioRefused(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, engine.ErrRunActive):
		writeError(w, http.StatusConflict, "", err.Error())
	case errors.Is(err, fault.ErrNoRuntime) || errors.Is(err, fault.ErrNoDAG):
		writeError(w, http.StatusServiceUnavailable, "", err.Error())
	default:
		writeScenarioErr(w, scenarioError(err))
	}
}

// scenarioRun runs a scenario and answers its report (200 whatever the gate
// says: the verdict is in the report); one at a time (lockScenario). The
// run is bounded by the server's maximum (WithMaxScenarioRun).
func (h *Handler) scenarioRun(w http.ResponseWriter, r *http.Request) {
	sc, err := h.readScenarioToRun(r)
	if err != nil {
		writeScenarioErr(w, err)
		return
	}
	if !h.lockScenario(w) {
		return
	}
	defer h.scenario.Unlock()

	max := h.opts.maxScenarioRun
	ctx, cancel := context.WithTimeout(r.Context(), max)
	defer cancel()
	stop := context.AfterFunc(h.ctx, cancel) // Close ends the run too
	defer stop()
	ctx, run := h.runs.begin(ctx) // POST /arena/scenario/stop ends it too (runs.go)
	rep, err := scenario.Run(ctx, h.svc, sc)
	h.runs.end(run, rep, err)
	if rep == nil {
		writeScenarioRefused(w, err)
		return
	}
	switch {
	case err == nil, run.stopped():
		writeJSON(w, http.StatusOK, rep)
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && r.Context().Err() == nil:
		writeJSON(w, http.StatusGatewayTimeout, ScenarioTimeout{
			Error: fmt.Sprintf("the run reached this server's maximum of %s", max), Report: rep})
	case h.closed():
		writeJSON(w, http.StatusServiceUnavailable, ScenarioTimeout{Error: "server is shutting down", Report: rep})
	default:
		writeError(w, http.StatusInternalServerError, "", err.Error()) // the client is gone
	}
}
