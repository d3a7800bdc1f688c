package engine

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/bound"
)

// WriteText writes the human summary of a survival run: what survival did,
// per action type, then the run's report (score, dimensions, faults).
func (r *SurvivalReport) WriteText(w io.Writer) error {
	var b strings.Builder
	end := string(r.Ending)
	switch {
	case r.Ending == "":
		end = "completed"
	case r.Reason != "":
		end += " (" + r.Reason + ")"
	}
	if r.Ending != SurvivalCompleted && r.Report != nil {
		end += fmt.Sprintf(" after %s", r.Round(clock.Duration(r.End.Sub(r.Start))))
	}
	fmt.Fprintf(&b, "survival: %s of chaos every %s, %s; %d actions, %d ticks skipped (max %d active faults)\n",
		r.Config.Duration, r.Config.Interval, end, r.Actions, r.Skipped, r.Config.MaxActiveFaults)
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", bound.Plain(w))
	}
	if len(r.ByType) > 0 {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  type\tattempted\tlanded\trecovered\tunrecovered\tMTTR\t")
		for _, t := range slices.Sorted(maps.Keys(r.ByType)) {
			o := r.ByType[t]
			mttr := o.MTTR
			if r.Report != nil {
				mttr = r.Round(mttr)
			}
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%s\t\n", t, o.Attempted, o.Landed, o.Recovered, o.Unrecovered, mttr)
		}
		tw.Flush()
	}
	if r.Report != nil {
		fmt.Fprintf(&b, "TTR p50 %s, p90 %s, p99 %s\n\n", r.Round(r.P50TTR), r.Round(r.P90TTR), r.Round(r.P99TTR))
		if err := r.Report.writeText(&b, 20); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String returns the human summary.
func (r *SurvivalReport) String() string {
	var b strings.Builder
	_ = r.WriteText(&b)
	return b.String()
}
