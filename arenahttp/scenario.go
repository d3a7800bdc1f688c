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

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/scenarios"
)

// ValidateResponse is the 200 answer of POST /arena/scenario/validate.
type ValidateResponse struct {
	Valid         bool           `json:"valid"` // always true: an invalid scenario is a 400
	Name          string         `json:"name"`
	Steps         int            `json:"steps"`
	PlannedLength arena.Duration `json:"planned_length"`
}

// ScenarioTimeout is the 504 answer of POST /arena/scenario/run when the run
// reached the server's maximum: the error and the report so far.
type ScenarioTimeout struct {
	Error  string                `json:"error"`
	Report *arena.ScenarioReport `json:"report"`
}

// scenarioBodyName labels the body in scenario error messages.
const scenarioBodyName = "body"

// readScenario reads the scenario of a request body: a YAML or JSON
// scenario, or the name of a built-in one (plain or as a JSON string),
// validated against the service (its own fault types, and what its runtime
// can land).
func (h *Handler) readScenario(r *http.Request) (*arena.Scenario, error) {
	sc, err := readScenario(r, h.svc.Injector().FaultTypes())
	if err != nil {
		return nil, err
	}
	if err := h.svc.ValidateScenario(sc); err != nil {
		return nil, scenarioError(err)
	}
	return sc, nil
}

func readScenario(r *http.Request, faults []arena.FaultSpec) (*arena.Scenario, error) {
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
	sc, err := arena.LoadScenario(b, scenarioBodyName, faults...)
	if err != nil {
		return nil, scenarioError(err)
	}
	return sc, nil
}

// scenarioProblems is a 400 listing every problem of an invalid scenario.
type scenarioProblems struct {
	problems arena.ScenarioErrors
}

func (e *scenarioProblems) Error() string { return e.problems.Error() }

func scenarioError(err error) error {
	var es arena.ScenarioErrors
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
	writeJSON(w, http.StatusOK, ValidateResponse{Valid: true, Name: sc.Name, Steps: len(sc.Actions), PlannedLength: arena.Duration(sc.PlannedLength())})
}

// seedQuery sets sc's seed from ?seed= when the request has one: a
// positive integer, else a 400 naming seed.
func seedQuery(r *http.Request, sc *arena.Scenario) error {
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

// scenarioRun runs a scenario and answers its report (200 whatever the gate
// says: the verdict is in the report). One runs at a time on a handler
// (409 otherwise), since two runs on one system would score each other's
// faults. The run is bounded by the server's maximum (WithMaxScenarioRun).
func (h *Handler) scenarioRun(w http.ResponseWriter, r *http.Request) {
	sc, err := h.readScenario(r)
	if err != nil {
		writeScenarioErr(w, err)
		return
	}
	if err := seedQuery(r, sc); err != nil {
		writeErr(w, err)
		return
	}
	max := h.opts.maxScenarioRun
	if err := h.checkPlanned(sc); err != nil {
		writeErr(w, err)
		return
	}
	if !h.scenario.TryLock() {
		writeError(w, http.StatusConflict, "", "a scenario run is in progress")
		return
	}
	defer h.scenario.Unlock()

	ctx, cancel := context.WithTimeout(r.Context(), max)
	defer cancel()
	stop := context.AfterFunc(h.ctx, cancel) // Close ends the run too
	defer stop()
	ctx, run := h.runs.begin(ctx) // POST /arena/scenario/stop ends it too (runs.go)
	rep, err := arena.RunScenarioReport(ctx, h.svc, sc)
	h.runs.end(run, rep, err)
	switch {
	case rep == nil && errors.Is(err, arena.ErrRunActive): // a survival run, or a run outside the handler
		writeError(w, http.StatusConflict, "", err.Error())
	case rep == nil && (errors.Is(err, arena.ErrNoRuntime) || errors.Is(err, arena.ErrNoDAG)):
		writeError(w, http.StatusServiceUnavailable, "", err.Error())
	case rep == nil:
		writeScenarioErr(w, scenarioError(err))
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
