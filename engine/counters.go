package engine

import (
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// Stats are the service's counters since it was created. Snapshots are
// consistent: every counter is read under one lock.
type Stats struct {
	Total             int                           `json:"total"`
	Succeeded         int                           `json:"succeeded"`
	Failed            int                           `json:"failed"`
	ByType            map[fault.Type]FaultTypeStats `json:"by_type"`
	FaultsRecovered   int                           `json:"faults_recovered"`
	FaultsUnrecovered int                           `json:"faults_unrecovered"`
	FaultsUndecided   int                           `json:"faults_undecided,omitempty"` // runs ended before their verdict
	Proposals         int                           `json:"proposals"`
	Runs              int                           `json:"runs"`
	LastScore         *float64                      `json:"last_score,omitempty"`
	HistoryDropped    int                           `json:"history_dropped"`
	EventErrors       int                           `json:"event_errors"`
	LastEventError    string                        `json:"last_event_error,omitempty"`
	BridgeErrors      int                           `json:"bridge_errors"`
	LastBridgeError   string                        `json:"last_bridge_error,omitempty"`
	MeanInjection     clock.Duration                `json:"mean_injection"` // wall-clock
	injectionWall     time.Duration
	ttrSum            time.Duration
}

// FaultTypeStats count the actions of one type.
type FaultTypeStats struct {
	Total     int `json:"total"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
}

// Stats returns a consistent snapshot of the service's counters.
func (s *Service) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.ByType = make(map[fault.Type]FaultTypeStats, len(s.byType))
	for t, ts := range s.byType {
		st.ByType[t] = *ts
	}
	st.HistoryDropped = s.history.dropped
	if st.LastScore != nil {
		v := *st.LastScore
		st.LastScore = &v
	}
	if st.Total > 0 {
		st.MeanInjection = clock.Duration(st.injectionWall / time.Duration(st.Total))
	}
	return st
}

// History returns the most recent results, oldest first (at most the
// history cap; Stats().HistoryDropped counts what fell out).
func (s *Service) History() []fault.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.history.snapshot()
}

// history is a ring of the last cap results.
type history struct {
	cap     int
	buf     []fault.Result
	head    int // index of the oldest when full
	dropped int
}

func (h *history) add(r *fault.Result) {
	if h.cap <= 0 {
		h.dropped++
		return
	}
	if len(h.buf) < h.cap {
		h.buf = append(h.buf, *r)
		return
	}
	h.buf[h.head] = *r
	if h.head++; h.head == h.cap { // no division: this runs per action
		h.head = 0
	}
	h.dropped++
}

// page copies the n results numbered from first (numbered from 1 among all
// ever recorded; first > dropped and the n retained).
func (h *history) page(first uint64, n int) []fault.Result {
	items := make([]fault.Result, n)
	start := int(first - uint64(h.dropped) - 1) // index among the retained, oldest 0
	for i := range items {
		items[i] = h.buf[(h.head+start+i)%len(h.buf)]
	}
	return items
}

func (h *history) snapshot() []fault.Result {
	out := make([]fault.Result, 0, len(h.buf))
	out = append(out, h.buf[h.head:]...)
	return append(out, h.buf[:h.head]...)
}
