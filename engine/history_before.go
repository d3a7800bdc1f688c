package engine

import (
	"github.com/ares-arena/arena/fault"
)

// HistoryBefore reads the history backwards a page at a time: the newest
// limit results numbered before `before` (numbered as in HistoryPage),
// oldest first. It completes HistoryPage, whose after == 0 means "the
// newest", so that a reader walking back from the newest page reaches
// result 1. before == 0, or past the newest, means "the newest". limit <= 0
// means no limit. first is the number of the first result returned (before
// itself when there is none), dropped how many fell out of the history.
func (s *Service) HistoryBefore(before uint64, limit int) (items []fault.Result, first, dropped uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := &s.history
	dropped = uint64(h.dropped)
	total := dropped + uint64(len(h.buf))
	if before == 0 || before > total {
		before = total + 1
	}
	n := before - 1 - min(before-1, dropped) // retained results before `before`
	if limit > 0 {
		n = min(n, uint64(limit))
	}
	first = before - n
	return h.page(first, int(n)), first, dropped
}
