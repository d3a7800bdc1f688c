package engine

import (
	"time"
)

// Healed records that the runtime's own mechanism ended fault f at t.
func (o *observer) Healed(f landedFault, t time.Time) {
	if f.t == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	at := o.offset(t)
	f.t.out.HealedByRuntime = &at
}

// Lifting records that arena will lift fault f at t: the fault is watched
// until SettleTime after that, not only after it landed.
func (o *observer) Lifting(f landedFault, t time.Time) {
	if f.t == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	f.t.liftAt = t
}
