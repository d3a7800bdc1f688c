package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
)

// No grade without a landed fault. A run that meant to land faults and
// landed none measured the system at rest: its availability says nothing of
// resilience, and an A+ for it would be made up. Such a run's score has no
// grade (Score.NoneLanded, Score.Ungraded says why) and fails its gate.
//
// What the run "meant to land" is its plan when the schedule says it
// (PlanFaults: a scenario counts its steps that expect to land), else the
// faults it tried (code schedules, survival). So:
//   - some faults landed: graded; the others are injection errors (and a
//     scenario step that did not land fails its steps check);
//   - none planned (a baseline, a scenario whose steps all expect a
//     refusal, a survival run that never found a target): graded on what
//     was measured, as before;
//   - planned and none landed, tried or not: no grade.

// PlanFaults tells the run how many faults its schedule means to land,
// counting those it may never try (a scenario step skipped after an
// earlier one failed). Without it the faults tried are the plan. A
// negative n is a programming error.
func (r *Run) PlanFaults(n int) {
	if n < 0 {
		panic(fmt.Sprintf("arena: PlanFaults(%d): a plan is not negative", n))
	}
	r.obs.planFaults(n)
}

func (o *observer) planFaults(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.plan, o.planSet = n, true
}

// unlanded returns s without its grade when the run meant to land faults and
// none landed. Under mu. final: the run is over, so planned faults never
// tried count; a live score counts only those tried so far, so that it is
// not taken away before the first fault was due.
func (o *observer) unlanded(s Score, final bool) Score {
	t := o.tally
	if t.landed > 0 {
		return s
	}
	tried := t.injectionErrs
	want, what := tried, "fault tried"
	if o.planSet {
		want = min(o.plan, tried)
		if final {
			want, what = o.plan, "planned fault"
		}
	}
	if want == 0 {
		return s
	}
	s.Total, s.Grade, s.Measured, s.NoneLanded = 0, GradeNone, false, true
	var first string
	if len(o.injectionErrs) > 0 {
		first = o.refusal(o.injectionErrs[0])
	}
	s.Ungraded = unlandedReason(want, what, first)
	return s
}

// UnlandedReason says in one line that none of a run's planned faults
// landed: "none of the 3 planned faults landed (first: <first>)", "the one
// planned fault did not land (<first>)", or "... (none was tried)" when
// first is "". Schedules that know their steps (scenarios) name the first
// refusal by its step.
func UnlandedReason(planned int, first string) string {
	return unlandedReason(planned, "planned fault", first)
}

// unlandedReason is UnlandedReason for what ("planned fault", "fault
// tried").
func unlandedReason(n int, what, first string) string {
	switch {
	case n == 1 && first == "":
		return fmt.Sprintf("the one %s was not tried", what)
	case n == 1:
		return fmt.Sprintf("the one %s did not land (%s)", what, first)
	}
	what = strings.Replace(what, "fault", "faults", 1)
	if first == "" {
		return fmt.Sprintf("none of the %d %s landed (none was tried)", n, what)
	}
	return fmt.Sprintf("none of the %d %s landed (first: %s)", n, what, first)
}

// refusal names a fault that did not land and why, on one line:
// `kill_agent on w1 at 5s: sim: no node "w1"`.
func (o *observer) refusal(res fault.Result) string {
	s := string(res.Action.Type)
	if t := res.Action.TargetText(); t != "" {
		s += " on " + bound.Plain(t)
	}
	if !res.StartedAt.IsZero() {
		s += " at " + o.offset(res.StartedAt).D().Round(time.Millisecond).String()
	}
	return s + ": " + bound.Plain(res.Error)
}
