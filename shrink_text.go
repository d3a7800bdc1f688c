package arena

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
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
func (r *ShrinkResult) WriteText(w io.Writer) error {
	var b strings.Builder
	clock := "real clock"
	if r.Virtual {
		clock = "virtual clock"
	}
	fmt.Fprintf(&b, "shrunk %s from %d faults (%s) to %d (%s): %s replays, %s\n",
		strings.TrimSuffix(r.Scenario.Name, "-shrunk"), r.Original.Faults, trimDuration(r.Original.Length.D()),
		r.Shrunk.Faults, trimDuration(r.Shrunk.Length.D()), r.Rate, clock)
	if len(r.Failure) > 0 {
		fmt.Fprintf(&b, "  failure: %s\n", strings.Join(r.Failure, ", "))
	}
	judged := fmt.Sprintf("each judged by %d of %d runs", r.JudgeNeed, r.JudgeRuns)
	if r.JudgeRuns == 1 {
		judged = "each judged by 1 run"
	}
	fmt.Fprintf(&b, "  search: %s, %d runs (%d candidates, %s) in %s\n", r.Stopped, r.Runs, r.Candidates, judged,
		r.WallTime.D().Round(time.Millisecond))
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", warn)
	}
	if err := r.Scenario.writeSchedule(&b, "  "); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// scheduleLines bounds the schedule in a summary: a search stopped early
// may leave thousands of faults, which the scenario file lists.
const scheduleLines = 40

// writeSchedule writes a sequential scenario's steps one a line, each at
// its offset from the run's start, the first scheduleLines of them.
func (sc *Scenario) writeSchedule(w io.Writer, indent string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	at := sc.Config.Warmup.D()
	for i, st := range sc.Actions {
		if i == scheduleLines {
			fmt.Fprintf(tw, "%s… and %d more\n", indent, len(sc.Actions)-i)
			break
		}
		at = addSat(at, st.Delay.D())
		a := st.Action
		target := describeTarget(a)
		var meta []string
		for _, k := range slices.Sorted(maps.Keys(a.Metadata)) {
			meta = append(meta, fmt.Sprintf("%s=%v", k, a.Metadata[k]))
		}
		line := fmt.Sprintf("%sat %s\t%s\t%s", indent, trimDuration(at), a.Type, orDash(target))
		if len(meta) > 0 {
			line += "\t" + strings.Join(meta, " ")
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// WriteYAML writes the result as a scenario file: a comment saying where
// it comes from and how often it fails, then the scenario (Scenario.WriteYAML).
func (r *ShrinkResult) WriteYAML(w io.Writer) error {
	clock := "a real clock"
	if r.Virtual {
		clock = "a virtual clock"
	}
	head := fmt.Sprintf("# Shrunk by arena from %s (%s, %s) to %s (%s):\n# %s replays on %s.\n",
		strings.TrimSuffix(r.Scenario.Name, "-shrunk"), faultCount(r.Original.Faults), trimDuration(r.Original.Length.D()),
		faultCount(r.Shrunk.Faults), trimDuration(r.Shrunk.Length.D()), r.Rate, clock)
	if len(r.Failure) > 0 {
		head += "# Its gate fails: " + strings.Join(r.Failure, ", ") + ".\n"
	}
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	return r.Scenario.WriteYAML(w)
}
