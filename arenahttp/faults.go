package arenahttp

import (
	"errors"
	"net/http"

	"github.com/ares-arena/arena/engine"
)

// FaultLifted is the answer of DELETE /arena/faults/{id}: the fault left
// the registry; Error is the runtime's when the lift itself failed.
type FaultLifted struct {
	ID     string `json:"id"`
	Lifted bool   `json:"lifted"`
	Error  string `json:"error,omitempty"`
}

// faults answers the service's active faults: every landed fault arena can
// still lift, oldest first.
func (h *Handler) faults(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.svc.ActiveFaults())
}

// faultLift lifts one active fault now; 404 when there is none with that ID.
func (h *Handler) faultLift(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := checkID("id", id); err != nil {
		writeErr(w, err)
		return
	}
	err := h.svc.LiftFault(r.Context(), id)
	switch {
	case errors.Is(err, engine.ErrNoActiveFault):
		writeError(w, http.StatusNotFound, "id", err.Error())
	case err != nil:
		writeJSON(w, http.StatusOK, FaultLifted{ID: id, Error: err.Error()})
	default:
		writeJSON(w, http.StatusOK, FaultLifted{ID: id, Lifted: true})
	}
}

// faultLiftAll serves DELETE /arena/faults: it lifts every active fault
// (those of a run too, as DELETE /arena/faults/{id} would) and answers what
// became of each.
func (h *Handler) faultLiftAll(w http.ResponseWriter, r *http.Request) {
	out := []FaultLifted{}
	for _, f := range h.svc.ActiveFaults() {
		err := h.svc.LiftFault(r.Context(), f.ID)
		switch {
		case errors.Is(err, engine.ErrNoActiveFault): // lifted meanwhile (its duration, a rollback)
		case err != nil:
			out = append(out, FaultLifted{ID: f.ID, Error: err.Error()})
		default:
			out = append(out, FaultLifted{ID: f.ID, Lifted: true})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// writeRefused answers an action the service refuses before landing it:
// 409 naming the run that holds the service, 400 for a duration over the
// maximum.
func writeRefused(w http.ResponseWriter, err error) {
	if errors.Is(err, engine.ErrRunActive) {
		writeError(w, http.StatusConflict, "", err.Error())
		return
	}
	writeErr(w, err)
}
