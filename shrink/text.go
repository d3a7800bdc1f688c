package shrink

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/internal/bound"
	"github.com/ares-arena/arena/scenario"
)

// WriteText writes the human summary of a shrink: what it shrank to, how
// often that fails, what the search took, then the schedule, one fault a
// line at its offset from the run's start:
//
//	shrunk survival-seed-3 from 8616 faults (24h) to 2 (40s): fails 10/10 replays, virtual clock
//	  failure: consistent, consistent:tasks
//	  search: done, 113 runs (101 candidates, each judged by 1 run) in 3.112s
//	  at 10s  network_partition  worker-2     duration=1ms
//	  at 10s  kill_agent         type:leader
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "shrunk %s from %d faults (%s) to %d (%s): %s replays, %s\n",
		strings.TrimSuffix(r.Scenario.Name, "-shrunk"), r.Original.Faults, bound.FormatDuration(r.Original.Length.D()),
		r.Shrunk.Faults, bound.FormatDuration(r.Shrunk.Length.D()), r.Rate, strings.TrimPrefix(clockName(r.Clock, r.Virtual), "a "))
	if len(r.Failure) > 0 {
		fmt.Fprintf(&b, "  failure: %s\n", strings.Join(r.Failure, ", "))
	}
	judged := fmt.Sprintf("each judged by %d of %d runs", r.JudgeNeed, r.JudgeRuns)
	if r.JudgeRuns == 1 {
		judged = "each judged by 1 run"
	}
	fmt.Fprintf(&b, "  search: %s, %d runs (%d candidates, %s) in %s\n", r.Stopped, r.Runs, r.Candidates, judged, r.took())
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", warn)
	}
	if err := writeSchedule(&b, r.Scenario, "  "); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clockName names the runs' clock: "a virtual clock", "a simulated clock
// (synctest)", "a real clock". A result from before Result.Clock goes by
// Virtual.
func clockName(k clock.Kind, virtual bool) string {
	switch {
	case k == clock.KindSimulated:
		return "a simulated clock (synctest)"
	case k == clock.KindDeterministic:
		return "a deterministic clock (wasip1)"
	case k == clock.KindVirtual || (k == "" && virtual):
		return "a virtual clock"
	}
	return "a real clock"
}

// took says how long the search took: its wall time and, on a simulated
// clock, where a run's time is not the wall's, the simulated time its
// runs took ("10.6s of wall time, 30m41s simulated").
func (r *Result) took() string {
	wall := r.WallTime.D().Round(time.Millisecond).String()
	switch {
	case r.Clock == clock.KindDeterministic:
		// The instance's wall clock is the host's fake one: only the
		// simulated time means anything.
		return bound.FormatDuration(r.RunTime.D().Round(time.Second)) + " simulated"
	case !r.Clock.Bubbled():
		return wall
	}
	return fmt.Sprintf("%s of wall time, %s simulated", wall, bound.FormatDuration(r.RunTime.D().Round(time.Second)))
}

// scheduleLines bounds the schedule in a summary: a search stopped early
// may leave thousands of faults, which the scenario file lists.
const scheduleLines = 40

// writeSchedule writes a sequential scenario's steps one a line, each at
// its offset from the run's start, the first scheduleLines of them.
func writeSchedule(w io.Writer, sc *scenario.Scenario, indent string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	at := sc.Config.Warmup.D()
	for i, st := range sc.Actions {
		if i == scheduleLines {
			fmt.Fprintf(tw, "%s… and %d more\n", indent, len(sc.Actions)-i)
			break
		}
		at = bound.AddSat(at, st.Delay.D())
		a := st.Action
		target := a.TargetText()
		if target == "" {
			target = "-"
		}
		var meta []string
		for _, k := range slices.Sorted(maps.Keys(a.Metadata)) {
			meta = append(meta, fmt.Sprintf("%s=%v", k, a.Metadata[k]))
		}
		line := fmt.Sprintf("%sat %s\t%s\t%s", indent, bound.FormatDuration(at), a.Type, target)
		if len(meta) > 0 {
			line += "\t" + strings.Join(meta, " ")
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// WriteYAML writes the result as a scenario file: a comment saying where
// it comes from and how often it fails, then the scenario (Scenario.WriteYAML).
func (r *Result) WriteYAML(w io.Writer) error {
	on := clockName(r.Clock, r.Virtual)
	if r.Clock.Bubbled() {
		on += ": the search took " + r.took()
	}
	head := fmt.Sprintf("# Shrunk by arena from %s (%s, %s) to %s (%s):\n# %s replays on %s.\n",
		strings.TrimSuffix(r.Scenario.Name, "-shrunk"), faultCount(r.Original.Faults), bound.FormatDuration(r.Original.Length.D()),
		faultCount(r.Shrunk.Faults), bound.FormatDuration(r.Shrunk.Length.D()), r.Rate, on)
	if len(r.Failure) > 0 {
		head += "# Its gate fails: " + strings.Join(r.Failure, ", ") + ".\n"
	}
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	return r.Scenario.WriteYAML(w)
}
