package arenahttp

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
)

// SurvivalStarted is the 202 answer of POST /arena/survival.
type SurvivalStarted struct {
	Seed   uint64                `json:"seed"` // drawn when the config had none: rerun with it
	Status engine.SurvivalStatus `json:"status"`
}

// SurvivalStatusView is the body of GET /arena/survival/status: the live
// status, and the outcome of the last run this handler started once it has
// finished.
type SurvivalStatusView struct {
	engine.SurvivalStatus
	Last      *engine.SurvivalReport `json:"last,omitempty"`
	LastError string                 `json:"last_error,omitempty"`
}

// survivalStart starts a survival run in the background. The config is
// engine.SurvivalConfig's JSON (an empty body: every default). The seed is
// drawn here when missing, so the 202 can tell it.
func (h *Handler) survivalStart(w http.ResponseWriter, r *http.Request) {
	var cfg engine.SurvivalConfig
	if err := decodeJSON(r, &cfg); err != nil {
		writeErr(w, err)
		return
	}
	if err := h.checkSurvival(cfg); err != nil {
		writeErr(w, err)
		return
	}
	if cfg.Seed == 0 {
		cfg.Seed = engine.DrawSeed()
	}
	unlock, ok := h.lockStart(w)
	if !ok {
		return
	}
	defer unlock()
	h.survMu.Lock()
	busy := h.survOwn != nil
	h.survMu.Unlock()
	if busy || h.svc.SurvivalStatus().Running {
		msg := engine.ErrSurvivalRunning.Error()
		if err := h.svc.RunActive(); err != nil { // name what holds the service: the last survival run may be finishing while a scenario runs
			msg = err.Error()
		}
		writeError(w, http.StatusConflict, "", msg)
		return
	}

	h.survMu.Lock()
	own := make(chan struct{})
	h.survOwn, h.survSeen = own, false
	h.survMu.Unlock()
	type outcome struct {
		rep *engine.SurvivalReport
		err error
	}
	result := make(chan outcome, 1)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		rep, err := h.svc.RunSurvival(h.ctx, cfg)
		h.survMu.Lock()
		h.survOwn = nil
		if rep != nil {
			h.survLast, h.survErr = rep, err
		}
		h.survMu.Unlock()
		close(own)
		if rep != nil {
			h.runs.finished(rep) // GET /arena/run and /arena/report (runs.go)
		}
		result <- outcome{rep, err}
	}()

	// RunSurvival says nothing when it has started; watch its status until
	// it shows our run, or it returns (refused, or already over in
	// virtual time).
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case res := <-result:
			switch {
			case res.rep != nil:
				accepted(w, SurvivalStarted{Seed: cfg.Seed, Status: h.svc.SurvivalStatus()})
			case errors.Is(res.err, engine.ErrRunActive): // a scenario or another survival run
				writeError(w, http.StatusConflict, "", res.err.Error())
			default:
				writeSurvivalConfigError(w, res.err)
			}
			return
		case <-tick.C:
			if st := h.svc.SurvivalStatus(); st.Running && st.Seed == cfg.Seed {
				h.survMu.Lock()
				h.survSeen = h.survOwn == own
				h.survMu.Unlock()
				accepted(w, SurvivalStarted{Seed: cfg.Seed, Status: st})
				return
			}
		case <-r.Context().Done():
			return // the run goes on; its status tells
		}
	}
}

func accepted(w http.ResponseWriter, v SurvivalStarted) {
	w.Header().Set("Location", "/arena/survival/status")
	writeJSON(w, http.StatusAccepted, v)
}

// writeSurvivalConfigError answers a config RunSurvival refused: its errors
// read "survival: <field>: <problem>".
func writeSurvivalConfigError(w http.ResponseWriter, err error) {
	msg := strings.TrimPrefix(err.Error(), "survival: ")
	if errors.Is(err, fault.ErrNoRuntime) || errors.Is(err, fault.ErrNoDAG) {
		writeError(w, http.StatusServiceUnavailable, "", msg)
		return
	}
	field, rest, ok := strings.Cut(msg, ": ")
	if !ok || strings.ContainsAny(field, " ") {
		field, rest = "", msg
	}
	writeError(w, http.StatusBadRequest, field, rest)
}

// survivalStop stops the running survival run and answers its report; 409
// when none is running.
func (h *Handler) survivalStop(w http.ResponseWriter, r *http.Request) {
	rep, err := h.svc.StopSurvival()
	if err == nil {
		h.awaitOwnSurvival(r, false) // a status read after this answer shows the report as the last
	}
	switch {
	case errors.Is(err, engine.ErrNoSurvival):
		writeError(w, http.StatusConflict, "", err.Error())
	case rep == nil:
		writeError(w, http.StatusInternalServerError, "", err.Error())
	default:
		writeJSON(w, http.StatusOK, rep)
	}
}

func (h *Handler) survivalStatus(w http.ResponseWriter, r *http.Request) {
	v := SurvivalStatusView{SurvivalStatus: h.svc.SurvivalStatus()}
	if !v.Running {
		h.awaitOwnSurvival(r, true) // over in the engine: its outcome is moments from being recorded
		h.survMu.Lock()
		v.Last = h.survLast
		if h.survErr != nil {
			v.LastError = h.survErr.Error()
		}
		h.survMu.Unlock()
	}
	writeJSON(w, http.StatusOK, v)
}

// awaitOwnSurvival waits, once the engine has no survival run going, until a
// run started here has recorded its outcome (survLast), or the request ends.
// With seenOnly it waits only for a run the engine has shown running: one
// not yet started would keep the caller for its whole duration.
func (h *Handler) awaitOwnSurvival(r *http.Request, seenOnly bool) {
	h.survMu.Lock()
	own, seen := h.survOwn, h.survSeen
	h.survMu.Unlock()
	if own == nil || seenOnly && !seen {
		return
	}
	select {
	case <-own:
	case <-r.Context().Done():
	}
}
