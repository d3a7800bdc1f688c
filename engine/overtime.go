package engine

import (
	"context"
	"time"

	"github.com/ares-arena/arena/internal/bound"
)

// Overtime: a fault landed near the end of a run has not been watched long
// enough to call it recovered or not when the schedule ends (the last step
// of a scenario without a cooldown, a survival tick a second before the
// end). Scoring it unrecovered would turn a healthy system into a failure;
// dropping it would hide a real one. So a run whose schedule is over goes
// on observing — probe samples, timed lifts and consistency checks, no new
// injections — until every landed fault is decided or stably healthy
// (StableSamples healthy samples in a row: the end then calls it
// recovered, as it always has), for at most
// overtimeLimit: RecoveryDeadline + SettleTime + StableSamples probe
// intervals, the longest it can take to decide a fault that landed at the
// end (40.3s with the defaults). The overtime's samples count like any
// other (a fault's downtime is the run's), and the report says how long it
// was (Report.Overtime). A run stopped on request (Stop, StopSurvival),
// aborted, cancelled or at a scenario's limit has no overtime: the faults
// it leaves undecided are reported as such (FaultOutcome.Undecided), never
// as unrecovered.

// overtimeLimit is the longest a run observes past its schedule.
func (o ObserveOptions) overtimeLimit() time.Duration {
	o = o.WithDefaults()
	return bound.AddSat(bound.AddSat(o.RecoveryDeadline, o.SettleTime), time.Duration(o.StableSamples)*o.ProbeInterval)
}

// wantsOvertime reports whether the run's schedule ended by itself (not
// stopped, aborted or cut at a scenario's limit) with faults unsettled.
func (r *Run) wantsOvertime() bool {
	r.mu.Lock()
	ok := !r.halted && r.aborted == "" && (r.completed || r.overtimeAtEnd)
	r.mu.Unlock()
	return ok && r.obs.probed() && r.obs.Unsettled() > 0
}

// playOvertime plays the run on past its schedule until no fault is
// unsettled or the limit is reached.
func (r *Run) playOvertime(ctx context.Context) error {
	from := r.ex.Now()
	end := from.Add(r.opts.overtimeLimit())
	if !r.bound.IsZero() && r.bound.Before(end) {
		end = r.bound
	}
	if !end.After(from) {
		return nil
	}
	if ot, ok := r.ex.(overtimer); ok {
		ot.startOvertime()
	}
	r.obs.extend(end, func(context.Context) { r.ex.Stop() })
	err := r.ex.Run(ctx, end)
	r.mu.Lock()
	r.overtime = r.ex.Now().Sub(from)
	r.mu.Unlock()
	return err
}

func (r *Run) overtimeTaken() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.overtime
}
