package scenario

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
)

// Report is the outcome of one scenario run, and of this run only:
// nothing in it comes from the service's cumulative stats. Its JSON form is
// stable: the field names below are the documented schema, durations are Go
// duration strings, times are RFC 3339 on the run's clock. In virtual time
// the same scenario, seed and system give the same report, Report.WallTime
// aside.
//
// It embeds the run's *Report, so rep.Score, rep.MTTR and rep.Faults read as
// on any run (the report's own Seed, Virtual, Start and End are the same as
// the scenario's); in JSON the run's report is the "report" object.
type Report struct {
	Scenario    string    `json:"scenario"`
	Description string    `json:"description,omitempty"`
	Tags        []string  `json:"tags,omitempty"`
	Source      string    `json:"source,omitempty"` // the file it was loaded from
	Seed        uint64    `json:"seed"`
	Virtual     bool      `json:"virtual"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	// Outcome says how the run ended: completed (every step, then the
	// cooldown), stopped (stop_on_error), timed_out, cancelled, or aborted
	// (Report.Aborted says why).
	Outcome        Outcome         `json:"outcome"`
	Steps          []StepReport    `json:"steps"` // in the scenario's order, skipped steps included
	Passed         int             `json:"passed"`
	Failed         int             `json:"failed"`
	Skipped        int             `json:"skipped"`
	Gate           GateResult      `json:"gate"`
	*engine.Report `json:"report"` // the run's observation: score, grade, faults, checks
}

// Outcome says how a scenario run ended.
type Outcome string

// Run outcomes.
const (
	OutcomeCompleted Outcome = "completed"
	OutcomeStopped   Outcome = "stopped" // stop_on_error
	OutcomeTimedOut  Outcome = "timed_out"
	OutcomeCancelled Outcome = "cancelled"
	OutcomeAborted   Outcome = "aborted" // a stop condition (abort_when), or unhealthy at the end of the warmup
)

// StepReport is what became of one step.
type StepReport struct {
	Index     int             `json:"index"`
	Label     string          `json:"label,omitempty"`
	Type      fault.Type      `json:"type"`
	Target    string          `json:"target,omitempty"` // as written: an ID or a selector; the result has the chosen ID
	Source    string          `json:"source,omitempty"`
	DependsOn []string        `json:"depends_on,omitempty"`
	Expect    StepExpect      `json:"expect"`
	Status    StepStatus      `json:"status"`
	Reason    string          `json:"reason,omitempty"`  // why it failed or was skipped
	Ready     *clock.Duration `json:"ready,omitempty"`   // offset from the run's start; nil if never ready
	Started   *clock.Duration `json:"started,omitempty"` // when arena started landing it (the fault's "at"); nil when skipped
	Result    *fault.Result   `json:"result,omitempty"`  // nil when skipped
}

// StepExpect is what a step expects of its injection.
type StepExpect string

// Step expectations. A step without expect_failure expects success.
const (
	ExpectSuccess StepExpect = "success"
	ExpectFailure StepExpect = "failure"
)

// StepStatus is a step's verdict.
type StepStatus string

// Step statuses.
const (
	StepPassed  StepStatus = "passed"  // ran and met its expectation
	StepFailed  StepStatus = "failed"  // ran and missed it
	StepSkipped StepStatus = "skipped" // never started (stop_on_error, timeout, cancellation)
)

// GateResult is the scenario gate's verdict on a run.
type GateResult struct {
	Verdict GateVerdict `json:"verdict"`
	Reasons []string    `json:"reasons"` // why it did not pass; empty when it passed
	Checks  []GateCheck `json:"checks"`  // every criterion, passed or not
	// Note explains a verdict that the grade seems to contradict: a gate
	// that passed a run graded D or F because it asks nothing of the grade
	// or the score.
	Note string `json:"note,omitempty"`
}

// GateVerdict is a gate's verdict.
type GateVerdict string

// Gate verdicts. A cancelled run is inconclusive: it was not seen to the end.
const (
	GatePassed       GateVerdict = "passed"
	GateFailed       GateVerdict = "failed"
	GateInconclusive GateVerdict = "inconclusive"
)

// GateCheck is one criterion of a gate with what was required and found.
type GateCheck struct {
	Name   string `json:"name"` // steps, run, min_grade, min_score, max_mttr, all_recovered, consistent
	Want   string `json:"want"`
	Got    string `json:"got"`
	Passed bool   `json:"passed"`
	Reason string `json:"reason,omitempty"` // set when it did not pass
}

// OK reports whether the scenario's gate passed.
func (r *Report) OK() bool { return r.Gate.Verdict == GatePassed }

// Check evaluates the gate's criteria against a run's report; unset
// criteria are left out. A run that meant to land faults and landed none
// (engine.Score.NoneLanded) fails a "landed" criterion first, whatever the
// gate asks: it has no grade, and it did not test what it set out to.
func (g Gate) Check(rep *engine.Report) []GateCheck {
	var out []GateCheck
	s := rep.Score
	if s.NoneLanded {
		out = append(out, GateCheck{Name: "landed", Want: "a planned fault landed", Got: "none landed",
			Reason: "no grade: " + s.UngradedReason()})
	}
	if g.MinGrade != engine.GradeNone {
		c := GateCheck{Name: "min_grade", Want: g.MinGrade.String(), Got: gradeText(s), Passed: s.Grade.AtLeast(g.MinGrade)}
		switch {
		case !s.Measured:
			c.Reason = "no grade: " + s.UngradedReason()
		case !c.Passed:
			c.Reason = fmt.Sprintf("grade %s is below the minimum %s", c.Got, g.MinGrade)
		}
		out = append(out, c)
	}
	if g.MinScore != nil {
		c := GateCheck{Name: "min_score", Want: fmt.Sprintf("%.1f", *g.MinScore), Got: "none",
			Passed: s.AtLeast(*g.MinScore)}
		if s.Measured {
			c.Got = fmt.Sprintf("%.1f", s.Total)
		}
		if !c.Passed {
			c.Reason = fmt.Sprintf("score %s is below the minimum %s", c.Got, c.Want)
		}
		out = append(out, c)
	}
	if g.MaxMTTR != nil {
		mttr := rep.MTTR.D().Round(time.Millisecond) // for display; the comparison is exact
		c := GateCheck{Name: "max_mttr", Want: g.MaxMTTR.String(), Got: mttr.String(), Passed: rep.MTTR <= *g.MaxMTTR}
		if !c.Passed {
			c.Reason = fmt.Sprintf("MTTR %s is above the maximum %s", mttr, g.MaxMTTR)
		}
		out = append(out, c)
	}
	if g.AllRecovered {
		out = append(out, recoveredCheck(rep))
	}
	if g.Consistent {
		out = append(out, consistentCheck(rep))
	}
	return out
}

func gradeText(s engine.Score) string {
	if !s.Measured {
		return "none"
	}
	return fmt.Sprintf("%s (%.1f)", s.Grade, s.Total)
}

func recoveredCheck(rep *engine.Report) GateCheck {
	landed := rep.Landed
	c := GateCheck{Name: "all_recovered", Want: "every landed fault recovered",
		Got: fmt.Sprintf("%d of %d recovered", rep.Recovered, landed)}
	switch {
	case landed > 0 && !rep.Score.Recovery.Measured:
		c.Reason = "recovery not measured (no probe)"
	case rep.Unrecovered > 0:
		var lost []string
		for _, f := range rep.Faults {
			if !f.Recovered {
				lost = append(lost, f.Label())
			}
		}
		c.Reason = fmt.Sprintf("%d of %d faults unrecovered: %s", rep.Unrecovered, landed, strings.Join(lost, ", "))
	default:
		c.Passed = true
	}
	return c
}

func consistentCheck(rep *engine.Report) GateCheck {
	c := GateCheck{Name: "consistent", Want: "every consistency check passed",
		Got: fmt.Sprintf("%d/%d checks passed", rep.ChecksPassed, rep.ChecksRun)}
	if rep.ChecksUndecided > 0 {
		c.Got += fmt.Sprintf(", %d undecided", rep.ChecksUndecided)
	}
	switch {
	case rep.ChecksRun == 0 && rep.ChecksUndecided > 0:
		c.Reason = fmt.Sprintf("no consistency check decided: %d undecided (out of budget), %d could not look", rep.ChecksUndecided, rep.ChecksNotApplicable)
	case rep.ChecksRun == 0 && rep.ChecksNotApplicable > 0:
		c.Reason = fmt.Sprintf("no consistency check ran: %d could not look (not applicable)", rep.ChecksNotApplicable)
	case rep.ChecksRun == 0:
		c.Reason = "no consistency check ran"
	case rep.ChecksPassed < rep.ChecksRun:
		c.Reason = fmt.Sprintf("%d of %d checks failed", rep.ChecksRun-rep.ChecksPassed, rep.ChecksRun)
		for _, ch := range rep.Checks { // the listed ones: the first ListCap
			if ch.Failed() {
				c.Reason += fmt.Sprintf(", first %s at %s: %s", ch.Name, ch.At, ch.Error)
				break
			}
		}
	default:
		c.Passed = true
	}
	return c
}

// judge builds the gate result: the steps, how the run ended, then the
// scenario's expect block. A run none of whose planned faults landed first
// has its reason for no grade name the step that failed first.
func judge(sc *Scenario, r *Report, cancelErr error) GateResult {
	g := GateResult{Reasons: []string{}}
	if r.Report != nil && r.Report.Score.NoneLanded {
		r.Report.Score.Ungraded = engine.UnlandedReason(sc.plannedFaults(), firstRefusal(sc, r.Steps))
	}
	steps := GateCheck{Name: "steps", Want: "every step meets its expectation",
		Got: fmt.Sprintf("%d passed, %d failed, %d skipped", r.Passed, r.Failed, r.Skipped), Passed: r.Failed == 0 && r.Skipped == 0}
	if !steps.Passed {
		steps.Reason = fmt.Sprintf("%d of %d steps failed or skipped", r.Failed+r.Skipped, len(r.Steps))
	}
	run := GateCheck{Name: "run", Want: string(OutcomeCompleted), Got: string(r.Outcome), Passed: r.Outcome == OutcomeCompleted}
	switch r.Outcome {
	case OutcomeTimedOut:
		run.Reason = fmt.Sprintf("timed out after %s", bound.FormatDuration(sc.Config.Timeout.D()))
		if sc.Config.Timeout == 0 {
			run.Reason = fmt.Sprintf("ran out of time after %s (no timeout set: the planned length with slack)", bound.FormatDuration(sc.runLimit()))
		}
	case OutcomeStopped:
		run.Reason = "stopped on error"
	case OutcomeCancelled:
		run.Reason = fmt.Sprintf("cancelled: %v", cancelErr)
	case OutcomeAborted:
		run.Reason = "aborted: " + r.Report.Aborted
	}
	g.Checks = append([]GateCheck{steps, run}, sc.Expect.Check(r.Report)...)
	for _, st := range r.Steps {
		if st.Status == StepFailed {
			g.Reasons = append(g.Reasons, fmt.Sprintf("%s: %s", stepName(sc, st.Index), st.Reason))
		}
	}
	if r.Skipped > 0 {
		g.Reasons = append(g.Reasons, fmt.Sprintf("%d steps skipped: %s", r.Skipped, firstSkipReason(r.Steps)))
	}
	for _, c := range g.Checks {
		// Failed and skipped steps have their own reasons above, and they
		// say why a stopped run stopped. "landed" and min_grade give the
		// same reason for no grade: once is enough.
		if !c.Passed && c.Name != "steps" && (c.Name != "run" || r.Outcome != OutcomeStopped) && !slices.Contains(g.Reasons, c.Reason) {
			g.Reasons = append(g.Reasons, c.Reason)
		}
	}
	switch {
	case r.Outcome == OutcomeCancelled:
		g.Verdict = GateInconclusive
	case len(g.Reasons) > 0:
		g.Verdict = GateFailed
	default:
		g.Verdict = GatePassed
		g.Note = passedNote(sc.Expect, r.Report.Score)
	}
	return g
}

// passedNote says why a gate passed a run graded below C: its criteria do
// not include the grade or the score. "" when nothing needs saying.
func passedNote(g Gate, s engine.Score) string {
	if !s.Measured || s.Grade.AtLeast(engine.GradeC) || g.MinGrade != engine.GradeNone || g.MinScore != nil {
		return ""
	}
	return fmt.Sprintf("passed although graded %s (%.1f): this gate sets no min_grade or min_score, so the grade does not count", s.Grade, s.Total)
}

// firstRefusal names the first step that expected to land and was refused,
// with the runtime's error: `actions[0] (split-worker-1): sim: no node
// "worker-1"`; "" when none was tried.
func firstRefusal(sc *Scenario, steps []StepReport) string {
	var first *StepReport
	for i := range steps {
		st := &steps[i]
		if st.Expect == ExpectSuccess && st.Result != nil && !st.Result.Success &&
			(first == nil || st.Result.StartedAt.Before(first.Result.StartedAt)) {
			first = st
		}
	}
	if first == nil {
		return ""
	}
	return stepName(sc, first.Index) + ": " + bound.Plain(first.Result.Error)
}

func firstSkipReason(steps []StepReport) string {
	for _, st := range steps {
		if st.Status == StepSkipped {
			return st.Reason
		}
	}
	return ""
}
