package arenahttp

import (
	"errors"
	"net/http"
	"strings"

	"github.com/ares-arena/arena/fault"
)

// ActionRequest is the optional JSON body of the action routes. On the
// built-in routes the path names the target ({id}) except for remove_edge,
// whose body carries source_id and target_id; on POST /arena/fault/{type}
// (every type the service knows, user-defined ones too) the body carries
// the target. Metadata is validated per type, as in scenarios (durations as
// "1.5s" or seconds):
//
//	POST /arena/agent/worker-1/slow      {"metadata": {"delay": "2s", "duration": 10}}
//	POST /arena/edge/remove              {"source_id": "orchestrator-0", "target_id": "worker-2"}
//	POST /arena/fault/acme.disk_full     {"target_id": "node-2", "metadata": {"percent": 100}}
type ActionRequest struct {
	ID       string         `json:"id,omitempty"`        // the action's ID; default: assigned by the service
	SourceID string         `json:"source_id,omitempty"` // remove_edge and /arena/fault/{type} only
	TargetID string         `json:"target_id,omitempty"` // remove_edge and /arena/fault/{type} only
	Metadata map[string]any `json:"metadata,omitempty"`
}

// action serves one action route. pathID names the path wildcard holding
// the target ("" when there is none).
func (h *Handler) action(t fault.Type, pathID string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, err := h.parseAction(r, t, pathID)
		if err != nil {
			writeErr(w, err)
			return
		}
		h.execute(w, r, a)
	}
}

// execute lands a parsed action. A fault the runtime cannot land is a 501
// (the server does not implement it), one with no provider at all a 503.
func (h *Handler) execute(w http.ResponseWriter, r *http.Request, a fault.Action) {
	switch err := h.svc.Injector().Unsupported(a.Type); {
	case errors.Is(err, fault.ErrUnsupported):
		writeError(w, http.StatusNotImplemented, "", err.Error())
		return
	case err != nil:
		writeError(w, http.StatusServiceUnavailable, "", string(a.Type)+": "+err.Error())
		return
	}
	if err := h.svc.Admit(a); err != nil {
		writeRefused(w, err)
		return
	}
	// A fault that did not land is still a 200: the request was fine, and
	// the result says what happened.
	writeJSON(w, http.StatusOK, h.svc.Execute(r.Context(), a))
}

// fault serves POST /arena/fault/{type}: any type the service knows, the
// target and metadata in the body.
func (h *Handler) fault(w http.ResponseWriter, r *http.Request) {
	t := fault.Type(r.PathValue("type"))
	if _, ok := h.svc.Injector().Fault(t); !ok {
		names := make([]string, 0, 16)
		for _, spec := range h.svc.Injector().FaultTypes() {
			names = append(names, string(spec.Type))
		}
		writeError(w, http.StatusNotFound, "type", "unknown fault type "+quote(string(t))+" (want "+strings.Join(names, ", ")+")")
		return
	}
	var req ActionRequest
	if err := decodeJSON(r, &req); err != nil {
		writeErr(w, err)
		return
	}
	a := fault.Action{ID: req.ID, Type: t, SourceID: req.SourceID, TargetID: req.TargetID, Metadata: req.Metadata}
	for _, f := range [...]struct{ name, id string }{{"id", a.ID}, {"source_id", a.SourceID}, {"target_id", a.TargetID}} {
		if f.id != "" {
			if err := checkID(f.name, f.id); err != nil {
				writeErr(w, err)
				return
			}
		}
	}
	if err := h.svc.Injector().Validate(a); err != nil {
		writeErr(w, err)
		return
	}
	h.execute(w, r, a)
}

func (h *Handler) parseAction(r *http.Request, t fault.Type, pathID string) (fault.Action, error) {
	var req ActionRequest
	if err := decodeJSON(r, &req); err != nil {
		return fault.Action{}, err
	}
	a := fault.Action{ID: req.ID, Type: t, SourceID: req.SourceID, TargetID: req.TargetID, Metadata: req.Metadata}
	if a.ID != "" {
		if err := checkID("id", a.ID); err != nil {
			return a, err
		}
	}
	if spec, _ := fault.Lookup(t); spec.Target == fault.TargetEdge {
		for _, f := range [...]struct{ name, id string }{{"source_id", a.SourceID}, {"target_id", a.TargetID}} {
			if f.id != "" {
				if err := checkID(f.name, f.id); err != nil {
					return a, err
				}
			}
		}
	} else {
		if a.SourceID != "" {
			return a, badRequest("source_id", "only remove_edge (/arena/edge/remove) takes a source")
		}
		if a.TargetID != "" {
			return a, badRequest("target_id", "the path names the target of %s", t)
		}
	}
	if pathID != "" {
		a.TargetID = r.PathValue(pathID)
		if err := checkID(pathID, a.TargetID); err != nil {
			return a, err
		}
	}
	return a, a.Validate()
}

// unknownAction answers POST /arena/agent/{id}/{action} for an action that
// is not one of the routes above it.
func (h *Handler) unknownAction(w http.ResponseWriter, r *http.Request) {
	var names []string
	for _, spec := range fault.Specs() {
		if name, ok := strings.CutPrefix(spec.Route, agentRoute); ok {
			names = append(names, name)
		}
	}
	writeError(w, http.StatusBadRequest, "action", "unknown action "+quote(r.PathValue("action"))+" (want "+strings.Join(names, ", ")+")")
}

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
