package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"

	"github.com/ares-arena/arena/agentapi"
)

var errUnknownKind = errors.New("unknown fault kind")

// maxBody caps request bodies.
const maxBody = 1 << 16

// Handler serves the agentapi contract and agentd's hand-off endpoint.
func (a *Agent) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+agentapi.PathHealth, a.handleHealth)
	mux.HandleFunc("GET "+agentapi.PathState, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, a.State())
	})
	mux.HandleFunc("POST "+agentapi.PathFaults, a.handleFault)
	mux.HandleFunc("DELETE "+agentapi.PathFaults+"/{kind}", a.handleLift)
	mux.HandleFunc("POST "+agentapi.PathTasks, a.handleTask)
	return a.holdWhilePaused(mux)
}

// holdWhilePaused holds every request but the pause's lift until the agent
// is no longer paused (or the client gives up, or the server shuts down): a
// paused agent answers nothing, as a frozen process would not. The body is
// read before the wait, because net/http notices a client that went away
// only once the body is consumed: a hand-off whose sender gave up must not
// be accepted when the pause ends.
func (a *Agent) holdWhilePaused(next http.Handler) http.Handler {
	lift := agentapi.PathFaults + "/" + agentapi.KindPause
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete && r.URL.Path == lift {
			next.ServeHTTP(w, r)
			return
		}
		if a.paused() {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
			if err != nil {
				writeError(w, http.StatusBadRequest, err)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if !a.waitUnpaused(r.Context()) {
			// No answer at all: the connection drops, as a frozen
			// process's would when it is killed.
			panic(http.ErrAbortHandler)
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, agentapi.Error{Error: err.Error()})
}

func (a *Agent) handleHealth(w http.ResponseWriter, r *http.Request) {
	h := a.lockedHealth()
	code := http.StatusOK
	if !h.Healthy {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, h)
}

func decode(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func (a *Agent) faultState() agentapi.FaultState {
	a.faults.expire(a.now())
	return agentapi.FaultState{Faults: a.faults.list()}
}

// handleFault lands a fault. memory_corrupt acts at once and is not kept as
// an active fault: the memory stays corrupted until the checkpoint tick (or a
// restart) restores it.
func (a *Agent) handleFault(w http.ResponseWriter, r *http.Request) {
	var f agentapi.Fault
	if err := decode(w, r, &f); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if err := validateFault(&f, a.cfg.Routes); err != nil {
		code := http.StatusBadRequest
		if errors.Is(err, errUnknownKind) {
			code = http.StatusNotImplemented
		}
		writeError(w, code, err)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	switch f.Kind {
	case agentapi.KindPause:
		a.faults.expire(now)
		if !a.faults.has(agentapi.KindPause, "") {
			a.resume = make(chan struct{})
		}
		a.faults.set(f, now, 0)
	case agentapi.KindMemoryCorrupt:
		a.mem.corrupt()
	case agentapi.KindMCPDisconnect:
		a.faults.set(f, now, a.cfg.MCPReconnect)
	case agentapi.KindRemoveEdge, agentapi.KindRemoveNode:
		a.faults.set(f, now, a.cfg.DAGRepair)
	default:
		a.faults.set(f, now, 0)
	}
	a.log.Info("fault landed", "kind", f.Kind, "target", f.Target, "duration", f.Duration.D())
	writeJSON(w, http.StatusOK, a.faultState())
}

// handleLift lifts a fault kind; ?target= narrows remove_edge to one edge.
func (a *Agent) handleLift(w http.ResponseWriter, r *http.Request) {
	kind := r.PathValue("kind")
	if !slices.Contains(agentapi.Kinds(), kind) || kind == agentapi.KindMemoryCorrupt { // memory_corrupt is healed, never lifted
		writeError(w, http.StatusNotImplemented, errUnknownKind)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	wasPaused := a.faults.has(agentapi.KindPause, "")
	a.faults.lift(kind, r.URL.Query().Get("target"))
	if wasPaused && !a.faults.has(agentapi.KindPause, "") {
		close(a.resume)
	}
	writeJSON(w, http.StatusOK, a.faultState())
}

// handleTask accepts a task handed on by another agent, once it is in the
// ledger.
func (a *Agent) handleTask(w http.ResponseWriter, r *http.Request) {
	var t taskBody
	if err := decode(w, r, &t); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	removed, err := a.accept(t.ID)
	if removed {
		writeError(w, http.StatusServiceUnavailable, errors.New("node removed from the DAG"))
		return
	}
	switch {
	case errors.Is(err, errBadTask):
		writeError(w, http.StatusBadRequest, err)
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	a.notify()
	w.WriteHeader(http.StatusAccepted)
}

// lockedHealth is health under the lock.
func (a *Agent) lockedHealth() agentapi.Health {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.health()
}

// accept takes task id handed on by another agent, unless the agent's node
// is removed from the DAG.
func (a *Agent) accept(id string) (removed bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults.expire(a.now())
	if a.faults.has(agentapi.KindRemoveNode, "") {
		return true, nil
	}
	_, err = a.ledger.accept(id)
	return false, err
}
