package arena

import "time"

// HealReporter is implemented by runtimes whose own mechanisms end some
// faults before arena lifts them (containers.WithPartitionHealing: the
// network reconnects after a delay). When arena lifts a fault with a
// duration, it asks whether the runtime had already healed the fault that
// landed on agentID at since, and when; the report then says what happened
// ("healed by the runtime at X, lifted by arena at Y"), not what was planned.
type HealReporter interface {
	HealedAt(kind ActionType, agentID string, since time.Time) (time.Time, bool)
}

// healedAt asks the runtime when it healed a (landed at since), if it did.
func (in *Injector) healedAt(a Action, since time.Time) (time.Time, bool) {
	hr, ok := in.runtime.(HealReporter)
	if !ok {
		return time.Time{}, false
	}
	return hr.HealedAt(a.Type, a.TargetID, since)
}

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
