package scenario

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ares-arena/arena/internal/bound"
)

// WriteText writes the human summary of a scenario run: the verdict with
// its reasons, each step, each gate criterion, then the run's report
// (Report.WriteText).
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s: %s (seed %d, %s)\n", bound.Plain(r.Scenario), strings.ToUpper(string(r.Gate.Verdict)), r.Seed, r.Outcome)
	if r.Description != "" {
		fmt.Fprintf(&b, "  %s\n", bound.Plain(firstLine(r.Description)))
	}
	for _, reason := range r.Gate.Reasons {
		fmt.Fprintf(&b, "  - %s\n", bound.Plain(reason))
	}
	if r.Gate.Note != "" {
		fmt.Fprintf(&b, "  note: %s\n", r.Gate.Note)
	}

	fmt.Fprintf(&b, "\nsteps: %d passed, %d failed, %d skipped\n", r.Passed, r.Failed, r.Skipped)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  #\tlabel\tat\ttype\ttarget\tstatus")
	for _, st := range r.Steps {
		at, target := "-", st.Target
		if st.Started != nil {
			at = st.Started.String()
			if r.Report != nil {
				at = r.Round(*st.Started).String() // to what the probe resolves, as the fault table
			}
		}
		if st.Result != nil {
			target = st.Result.Action.TargetText()
		} else if st.Source != "" {
			target = st.Source + "->" + target
		}
		status := string(st.Status)
		if st.Expect == ExpectFailure {
			status += " (expected failure)"
		}
		if st.Reason != "" {
			status += ": " + st.Reason
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", st.Index, bound.Plain(orDash(st.Label)), at, st.Type, bound.Plain(orDash(target)), bound.Plain(status))
	}
	tw.Flush()

	b.WriteString("\ngate\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range r.Gate.Checks {
		mark := "ok"
		if !c.Passed {
			mark = "FAIL"
		}
		fmt.Fprintf(tw, "  %s\t%s\twant %s\tgot %s\n", mark, c.Name, bound.Plain(c.Want), bound.Plain(c.Got))
	}
	tw.Flush()
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if r.Report == nil {
		return nil
	}
	return r.Report.WriteText(w)
}

// String returns the human summary.
func (r *Report) String() string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}
