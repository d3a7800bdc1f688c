package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/bound"
)

// EventHealthChanged is the event of a run's probe changing its verdict:
// the first sample of a run, then each sample whose verdict differs from
// the one before (the run's Report.Timeline, as it happens). A watcher of
// the stream (the dashboard of arenahttp) draws the system's health over
// time from these events alone. Outside runs nothing samples the probe, so
// nothing is sent.
const EventHealthChanged = "arena.health.changed"

// HealthEvent is the payload of arena.health.changed.
type HealthEvent struct {
	RunID   string         `json:"run_id"`
	At      clock.Duration `json:"at"` // offset from the run's start, as in Transition
	Healthy bool           `json:"healthy"`
	// Reason is the probe's error when unhealthy, cut to MaxHealthReason
	// bytes: a probe's message is the user's and may be of any length.
	Reason string `json:"reason,omitempty"`
}

// MaxHealthReason bounds HealthEvent.Reason, in bytes.
const MaxHealthReason = 1024

// healthChanged appends the event of a change of health. At most one per
// probe sample, so a run adds at most 1/ProbeInterval events per second.
func (r *Run) healthChanged(ctx context.Context, now time.Time, tr Transition) {
	if r.svc.store == nil {
		return
	}
	e := HealthEvent{RunID: r.id, At: tr.At, Healthy: tr.Healthy, Reason: bound.Cut(tr.Reason, MaxHealthReason)}
	r.svc.mu.Lock()
	payload := r.svc.payloads.healthEvent(&e)
	r.svc.mu.Unlock()
	r.svc.appendEncoded(ctx, EventHealthChanged, now, payload)
}

// appendJSON appends e encoded exactly as json.Marshal encodes it (a test
// and a fuzz target hold the two equal): a day of chaos changes health tens
// of thousands of times.
func (e *HealthEvent) appendJSON(b []byte) []byte {
	b = append(b, `{"run_id":`...)
	b = appendJSONString(b, e.RunID)
	b = append(b, `,"at":"`...)
	b = appendDuration(b, time.Duration(e.At))
	b = append(b, `","healthy":`...)
	b = strconv.AppendBool(b, e.Healthy)
	b = appendOmitEmpty(b, `,"reason":`, e.Reason)
	return append(b, '}')
}
