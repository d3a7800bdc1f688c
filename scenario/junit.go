package scenario

import (
	"fmt"
	"io"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/internal/junit"
)

// WriteJUnit writes the run as a JUnit XML document: the suite is the
// scenario, with the seed, verdict, outcome, score, grade, the count of
// undecided checks and, for a run with no grade, why (ungraded) as
// properties; its testcases are the steps (failed,
// skipped or passed), the gate's criteria, and each undecided check run,
// skipped with how far it got; the text report is its system-out. Times are
// on the run's clock.
func (r *Report) WriteJUnit(w io.Writer) error {
	class := "arena.scenario." + r.Scenario
	s := junit.Suite{
		Name: r.Scenario, Time: junit.Seconds(r.End.Sub(r.Start)), Timestamp: r.Start.UTC().Format(time.RFC3339),
		Properties: []junit.Property{
			{Name: "seed", Value: fmt.Sprint(r.Seed)},
			{Name: "verdict", Value: string(r.Gate.Verdict)},
			{Name: "outcome", Value: string(r.Outcome)},
		},
		SystemOut: r.String(),
	}
	if r.Report != nil {
		s.Properties = append(s.Properties,
			junit.Property{Name: "score", Value: junitScore(r.Report.Score)},
			junit.Property{Name: "grade", Value: r.Report.Score.Grade.String()},
			junit.Property{Name: "checks_undecided", Value: fmt.Sprint(r.Report.ChecksUndecided)})
		if why := r.Report.Score.UngradedReason(); why != "" {
			s.Properties = append(s.Properties, junit.Property{Name: "ungraded", Value: why})
		}
	}
	for _, st := range r.Steps {
		c := junit.Case{Name: fmt.Sprintf("step %s %s", stepTitle(st), st.Type), Classname: class, Time: junit.Seconds(0)}
		if st.Result != nil {
			c.Time = junit.Seconds(st.Result.Duration.D())
		}
		switch st.Status {
		case StepFailed:
			c.Failure = &junit.Message{Message: st.Reason, Type: "step"}
		case StepSkipped:
			c.Skipped = &junit.Message{Message: st.Reason}
		}
		s.Add(c)
	}
	for _, g := range r.Gate.Checks {
		s.Add(junit.Gate(class, g.Name, g.Passed, g.Reason, g.Want, g.Got))
	}
	if r.Report != nil {
		for _, c := range r.Report.Checks { // an undecided check is neither passed nor failed: skipped, saying how far it got
			if c.Undecided {
				s.Add(junit.Case{Name: fmt.Sprintf("check %s at %s", c.Name, c.At), Classname: class, Time: junit.Seconds(0),
					Skipped: &junit.Message{Message: c.Error}})
			}
		}
	}
	return junit.Write(w, s)
}

func stepTitle(st StepReport) string {
	if st.Label != "" {
		return fmt.Sprintf("%d %s", st.Index, st.Label)
	}
	return fmt.Sprint(st.Index)
}

func junitScore(s engine.Score) string {
	if !s.Measured {
		return "none"
	}
	return fmt.Sprintf("%.1f", s.Total)
}
