package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
	"github.com/ares-arena/arena/internal/faulterr"
)

// AbortWhen is a run's stop conditions (scenario config.abort_when,
// SurvivalConfig.AbortWhen): when one is met the run stops injecting at
// once, its faults are rolled back, and it ends aborted with the reason
// (Report.Aborted), which fails its gate. A zero field is no condition.
//
// They are evaluated after every probe sample, so a condition is acted on
// within one probe interval of being met. Like AWS FIS stop conditions,
// they protect a real system from an experiment that goes wrong.
type AbortWhen struct {
	// UnhealthyFor: the probe has been unhealthy without a break this long.
	UnhealthyFor clock.Duration `yaml:"unhealthy_for,omitempty" json:"unhealthy_for,omitempty"`
	// ChecksFailed: any of these consistency checks has failed.
	ChecksFailed []string `yaml:"checks_failed,omitempty" json:"checks_failed,omitempty"`
	// ScoreBelow: the run's live score (once measured) is below this, 0–100.
	ScoreBelow float64 `yaml:"score_below,omitempty" json:"score_below,omitempty"`
}

// IsZero reports whether no condition is set.
func (a AbortWhen) IsZero() bool {
	return a.UnhealthyFor == 0 && len(a.ChecksFailed) == 0 && a.ScoreBelow == 0
}

// Validate checks the conditions against the service's checks; errors name
// the field under path ("config.abort_when", "abort_when").
func (a AbortWhen) Validate(path string, checks []fault.Check) error {
	switch {
	case a.UnhealthyFor < 0:
		return fmt.Errorf("%s.unhealthy_for: negative duration %s", path, a.UnhealthyFor)
	case a.ScoreBelow < 0 || a.ScoreBelow > 100 || a.ScoreBelow != a.ScoreBelow:
		return fmt.Errorf("%s.score_below: %v is not a score from 0 to 100", path, a.ScoreBelow)
	}
	var names []string
	for _, c := range checks {
		names = append(names, c.Name)
	}
	for i, name := range a.ChecksFailed {
		if !slices.Contains(names, name) {
			have := "it has none"
			if len(names) > 0 {
				have = "it has " + strings.Join(names, ", ")
			}
			return fmt.Errorf("%s.checks_failed[%d]: the system has no check %s (%s)", path, i, bound.Quote(name), have)
		}
	}
	return nil
}

// AbortWhen makes the run stop when a condition is met. Call it before
// Play; a second call replaces the first's conditions. A condition that
// names a check the service does not have is an error (see
// AbortWhen.Validate), and sets nothing.
func (r *Run) AbortWhen(a AbortWhen) error {
	if err := a.Validate("abort_when", r.svc.opts.checks); err != nil {
		return err
	}
	if a.IsZero() {
		r.obs.afterSample = nil
		return nil
	}
	r.obs.afterSample = func(now time.Time) {
		st := r.obs.watch()
		switch {
		case a.UnhealthyFor > 0 && !st.unhealthySince.IsZero() && now.Sub(st.unhealthySince) >= a.UnhealthyFor.D():
			r.abort(fmt.Sprintf("abort_when.unhealthy_for: unhealthy for %s since %s (%s)",
				now.Sub(st.unhealthySince), st.unhealthySince.Sub(r.start), st.reason))
		case a.ScoreBelow > 0 && st.score.Measured && st.score.Total < a.ScoreBelow:
			r.abort(fmt.Sprintf("abort_when.score_below: score %.1f is below %v", st.score.Total, a.ScoreBelow))
		default:
			for _, name := range a.ChecksFailed {
				if msg, failed := st.failed[name]; failed {
					r.abort(checkFailedAbort(name) + msg)
					return
				}
			}
		}
	}
	return nil
}

// checkFailedAbort begins the reason of a run aborted because check name
// failed; the check's error follows.
func checkFailedAbort(name string) string {
	return "abort_when.checks_failed: check " + name + " failed: "
}

// AbortedByCheck reports whether reason, a run's Report.Aborted, says that
// the check named check failed (abort_when.checks_failed).
func AbortedByCheck(reason, check string) bool {
	return strings.HasPrefix(reason, checkFailedAbort(check))
}

// gateLooks is how many probes in a row the start gate takes before it
// calls the system unhealthy: one answer lost on a loaded machine (a probe
// timeout of 100ms missed once) is not a broken system, and a broken one
// fails every look.
const gateLooks = 3

// probesInARow says how many probes the gate took: "3 probes in a row",
// "1 probe" when the run ended during the first.
func probesInARow(n int) string {
	if n == 1 {
		return "1 probe"
	}
	return fmt.Sprintf("%d probes in a row", n)
}

// StartGate refuses to start injecting, at offset at, on a system that is
// not healthy then: the run is aborted before its first fault when
// gateLooks probes in a row, back to back, all fail; the reason quotes the
// last one, after what. Call it before Play, with at before the schedule's
// first injection.
func (r *Run) StartGate(at time.Duration, what string) {
	if r.obs.probe == nil {
		return
	}
	r.At(at, KindInject, func(ctx context.Context) {
		var err error
		looks := 0
		for looks < gateLooks {
			looks++
			if err = faulterr.Safely(func() error { return r.obs.probe(ctx) }); err == nil || ctx.Err() != nil {
				break
			}
		}
		if err != nil {
			r.abort(fmt.Sprintf("the system was not healthy at %s (%s failed: %v); no fault was injected (allow_unhealthy_start injects anyway)", what, probesInARow(looks), err))
		}
	})
}

// abort ends the run with reason (the first one wins): nothing new is
// injected, Play rolls back and the report says why.
func (r *Run) abort(reason string) {
	r.mu.Lock()
	if r.aborted == "" {
		r.aborted = reason
	}
	r.mu.Unlock()
	r.Stop()
}

// Aborted returns why the run was aborted, or "".
func (r *Run) Aborted() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.aborted
}
