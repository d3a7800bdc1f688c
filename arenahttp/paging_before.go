package arenahttp

import (
	"net/http"
	"strconv"
)

// historyQuery lists the query parameters of GET /arena/history: a page
// forwards (after) or backwards (before).
var historyQuery = []string{"after", "limit", "before"}

// historyBefore answers GET /arena/history?before=N[&limit=]: the newest
// ?limit= results numbered before N, oldest first, numbered in the same
// headers as every page (engine.Service.HistoryBefore). X-Arena-First is the
// ?before= of the page before it; a page that starts at 1, or at the
// oldest retained, is the last one back.
func (h *Handler) historyBefore(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("after") {
		writeError(w, http.StatusBadRequest, "before", "not with after: a page goes one way")
		return
	}
	s := q.Get("before")
	before, err := strconv.ParseUint(s, 10, 64)
	if err != nil || before == 0 {
		writeError(w, http.StatusBadRequest, "before", "want a positive integer, got "+quote(s))
		return
	}
	_, limit, err := pageParams(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	items, first, dropped := h.svc.HistoryBefore(before, limit)
	writePage(w, items, first, dropped)
}
