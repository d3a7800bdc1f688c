package engine

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/bound"
)

// WriteText writes the human summary of the report: score and grade, the
// three dimensions, each fault with its TTR, injection errors and failed
// checks.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if err := r.writeText(&b, 0); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeText writes the summary; maxRows > 0 bounds the fault, error and
// check lines (a long survival run lists its worst faults, not all).
func (r *Report) writeText(b *strings.Builder, maxRows int) error {
	clk := r.Clock
	if clk == "" && r.Virtual { // a report made before Clock existed
		clk = clock.KindVirtual
	}
	fmt.Fprintf(b, "arena report: seed %d, %s, %s observed", r.Seed, clk.Time(), r.Round(clock.Duration(r.End.Sub(r.Start))))
	if r.Overtime > 0 {
		fmt.Fprintf(b, " (%s past the schedule, watching its last faults settle)", r.Round(r.Overtime))
	}
	if clk == clock.KindSimulated && r.WallTime > 0 { // a deterministic run's wall clock is its host's fake one
		fmt.Fprintf(b, " in %s of wall time", r.WallTime.D().Round(time.Millisecond))
	}
	b.WriteString("\n")
	if r.Aborted != "" {
		fmt.Fprintf(b, "ABORTED: %s\n", bound.Plain(r.Aborted))
	}
	for _, f := range r.OutsideFaults {
		fmt.Fprintf(b, "outside fault in place at the start: %s %s %s (%s)\n", f.ID, f.Type, f.TargetID, f.Origin)
	}
	if r.Score.Measured {
		fmt.Fprintf(b, "score %.1f  grade %s\n", r.Score.Total, r.Score.Grade)
	} else {
		fmt.Fprintf(b, "score -  grade none (%s)\n", bound.Plain(r.Score.UngradedReason()))
	}
	dim(b, "availability", r.Score.Availability, fmt.Sprintf("%d/%d samples healthy, downtime %s", r.HealthySamples, r.Samples, r.Round(r.Downtime)))
	unobserved := ""
	if r.Undecided > 0 {
		unobserved = fmt.Sprintf(", %d undecided (not observed long enough; not scored)", r.Undecided)
	}
	dim(b, "recovery", r.Score.Recovery, fmt.Sprintf("%d recovered, %d unrecovered%s; MTTR %s, p95 %s, max %s",
		r.Recovered, r.Unrecovered, unobserved, r.Round(r.MTTR), r.Round(r.P95TTR), r.Round(r.MaxTTR)))
	checks := fmt.Sprintf("%d/%d checks passed", r.ChecksPassed, r.ChecksRun)
	if r.ChecksNotApplicable > 0 {
		checks += fmt.Sprintf(", %d not applicable (could not look)", r.ChecksNotApplicable)
	}
	if r.ChecksUndecided > 0 {
		checks += fmt.Sprintf(", %d undecided (out of budget)", r.ChecksUndecided)
	}
	dim(b, "consistency", r.Score.Consistency, checks)
	faults := r.Faults
	if maxRows > 0 && len(faults) > maxRows {
		faults = worstFaults(faults, maxRows)
		fmt.Fprintf(b, "\nworst %d of the %d faults listed (%d landed)\n", maxRows, len(r.Faults), r.Landed)
	} else if len(faults) > 0 {
		b.WriteString("\nfaults\n")
	}
	if len(faults) > 0 {
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  at\ttype\ttarget\tTTR\toutcome")
		for _, f := range faults {
			target := f.Action.TargetID
			if f.Action.SourceID != "" {
				target = f.Action.SourceID + "->" + target
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Round(f.At), f.Action.Type, target, r.ttrText(f), r.outcomeText(f))
		}
		tw.Flush()
	}
	if len(r.InjectionErrors) > 0 {
		fmt.Fprintf(b, "\ninjection errors (not scored): %d\n", r.InjectionErrorCount)
		for i, e := range r.InjectionErrors {
			if maxRows > 0 && i == maxRows {
				fmt.Fprintf(b, "  … %d more\n", r.InjectionErrorCount-maxRows)
				break
			}
			fmt.Fprintf(b, "  %s %s %s: %s\n", e.StartedAt.Sub(r.Start).Round(time.Millisecond), e.Action.Type, bound.Plain(e.Action.TargetID), bound.Plain(e.Error))
		}
	}
	failed, undecided := 0, 0
	for _, c := range r.Checks {
		switch {
		case c.Undecided:
			if undecided++; maxRows == 0 || undecided <= maxRows {
				fmt.Fprintf(b, "check %s undecided at %s: %s\n", bound.Plain(c.Name), c.At, bound.Plain(c.Error))
			}
		case c.Failed():
			if failed++; maxRows > 0 && failed > maxRows {
				continue
			}
			fmt.Fprintf(b, "check %s failed at %s: %s\n", bound.Plain(c.Name), c.At, bound.Plain(c.Error))
			if c.Violation != nil {
				writeViolation(b, c.Violation)
			}
		}
	}
	if maxRows > 0 && failed > maxRows {
		fmt.Fprintf(b, "… %d failed checks in all\n", r.ChecksRun-r.ChecksPassed)
	}
	if maxRows > 0 && undecided > maxRows {
		fmt.Fprintf(b, "… %d undecided checks in all\n", r.ChecksUndecided)
	}
	writeRollback(b, r.Rollback)
	return nil
}

// writeRollback lists what became of the faults still in place at the end.
func writeRollback(b *strings.Builder, rbs []FaultRollback) {
	if len(rbs) == 0 {
		return
	}
	b.WriteString("\nat the end of the run\n")
	for _, rb := range rbs {
		target := rb.TargetID
		if rb.SourceID != "" {
			target = rb.SourceID + "->" + target
		}
		fmt.Fprintf(b, "  %s %s %s: %s\n", bound.Plain(rb.ActionID), rb.Type, bound.Plain(target), bound.Plain(rb.Detail))
	}
}

// worstFaults returns the n listed faults that healed worst: unrecovered
// first, then by TTR, in time order within a tie.
func worstFaults(faults []FaultOutcome, n int) []FaultOutcome {
	s := slices.Clone(faults)
	slices.SortStableFunc(s, func(a, b FaultOutcome) int {
		if a.Recovered != b.Recovered {
			if !a.Recovered {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.TTR, a.TTR)
	})
	return s[:n]
}

// Round rounds a duration of the report to what its probe can resolve:
// a time to recover is known to a probe interval, so 7.498629893s at a
// 100ms probe reads 7.5s. The unit is the largest power of ten not above
// the probe interval (1ms without one). JSON keeps the exact values.
func (r *Report) Round(d clock.Duration) clock.Duration {
	return clock.Duration(d.D().Round(resolution(r.ProbeInterval.D())))
}

// resolution is the largest power of ten (in nanoseconds) not above
// interval, at least a millisecond.
func resolution(interval time.Duration) time.Duration {
	u := time.Millisecond
	for u*10 <= interval {
		u *= 10
	}
	return u
}

// String returns the human summary.
func (r *Report) String() string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}

func dim(b *strings.Builder, name string, d Dimension, detail string) {
	if !d.Measured {
		fmt.Fprintf(b, "  %-12s     -  (unmeasured; %s)\n", name, detail)
		return
	}
	fmt.Fprintf(b, "  %-12s %5.1f  (%s)\n", name, d.Score, detail)
}

func (r *Report) ttrText(f FaultOutcome) string {
	if !f.Recovered {
		return "-"
	}
	return r.Round(f.TTR).String()
}

func (r *Report) outcomeText(f FaultOutcome) string {
	var parts []string
	switch {
	case f.Recovered && !f.Degraded:
		parts = append(parts, "no impact")
	case f.Recovered:
		parts = append(parts, "recovered")
	case f.Undecided:
		parts = append(parts, "undecided: not observed long enough")
	default:
		parts = append(parts, "UNRECOVERED")
	}
	if f.HealedByRuntime != nil {
		parts = append(parts, "healed by the runtime at "+r.Round(*f.HealedByRuntime).String())
	}
	if f.Lifted != nil {
		parts = append(parts, "lifted by arena at "+r.Round(*f.Lifted).String())
	}
	for _, c := range f.Checks {
		switch {
		case c.NotApplicable:
			parts = append(parts, "check "+c.Name+" not applicable")
		case c.Undecided:
			parts = append(parts, "check "+c.Name+" undecided")
		case !c.Passed:
			parts = append(parts, "check "+c.Name+" failed")
		}
	}
	return strings.Join(parts, ", ")
}

// Describe says what the fault was and what became of it, as failure
// messages list it: "kill_leader on leader-0 at 15s: recovered in 1.2s", or
// "...: unrecovered", with ", check tasks failed" for the first consistency
// check that failed after it. Durations are rounded to the millisecond.
func (f FaultOutcome) Describe() string {
	s := f.Label() + ": "
	switch {
	case f.Recovered:
		s += "recovered in " + f.TTR.D().Round(time.Millisecond).String()
	case f.Undecided:
		s += "undecided (not observed long enough)"
	default:
		s += "unrecovered"
	}
	for _, c := range f.Checks {
		if c.Failed() {
			return s + ", check " + c.Name + " failed"
		}
	}
	return s
}

// Label names the fault: "kill_leader on leader-0 at 15s" (the first part of
// Describe).
func (f FaultOutcome) Label() string {
	s := string(f.Action.Type)
	if t := f.Action.TargetText(); t != "" {
		s += " on " + t
	}
	return s + " at " + f.At.D().Round(time.Millisecond).String()
}
