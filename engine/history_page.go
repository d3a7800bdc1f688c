package engine

import (
	"github.com/ares-arena/arena/fault"
)

// HistoryPage reads the history a page at a time. Each result is numbered
// by its position among all the service has recorded, from 1. With after
// > 0 it returns at most limit results numbered after it, oldest first
// (from the oldest retained when some after it have fallen out of the
// history cap); with after == 0 the newest limit. first is the number of
// the first result returned, dropped how many fell out of the history.
// limit <= 0 means no limit. Only the page is copied.
func (s *Service) HistoryPage(after uint64, limit int) (items []fault.Result, first, dropped uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := &s.history
	dropped = uint64(h.dropped)
	total := dropped + uint64(len(h.buf))
	if after == 0 {
		n := len(h.buf)
		if limit > 0 {
			n = min(n, limit)
		}
		after = total - uint64(n)
	}
	if after >= total { // nothing newer; after+1 cannot wrap past what is kept
		return []fault.Result{}, max(after+1, after), dropped
	}
	first = max(after, dropped) + 1
	n := int(total - first + 1)
	if limit > 0 {
		n = min(n, limit)
	}
	return h.page(first, n), first, dropped
}
