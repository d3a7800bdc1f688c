package arenatest

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ares-arena/arena/internal/junit"
)

// JUnit XML of survival runs and A/B tests, shaped like
// scenario.Report.WriteJUnit's and written by the same code: one suite
// named after the test, the figures as properties, a testcase for the run and
// one per criterion, the text report as system-out.

func properties(entries []Entry) []junit.Property {
	out := make([]junit.Property, len(entries))
	for i, e := range entries {
		out[i] = junit.Property{Name: strings.TrimPrefix(e.Key, "arena."), Value: fmt.Sprint(e.Value)}
	}
	return out
}

func (s survivalResult) writeJUnit(w io.Writer) error {
	r := s.rep
	const class = "arena.survival"
	suite := junit.Suite{Name: s.name, Time: junit.Seconds(r.End.Sub(r.Start)), Timestamp: r.Start.UTC().Format(time.RFC3339),
		Properties: properties(Entries(r))}
	var text strings.Builder
	_ = s.writeText(&text)
	suite.SystemOut = text.String()
	run := junit.Case{Name: "survival", Classname: class, Time: suite.Time}
	var reasons []string
	for _, c := range s.gate {
		if !c.Passed {
			reasons = append(reasons, c.Reason)
		}
	}
	if len(reasons) > 0 {
		run.Failure = &junit.Message{Message: strings.Join(reasons, "; "), Type: "gate"}
	}
	suite.Add(run)
	for _, c := range s.gate {
		suite.Add(junit.Gate(class, c.Name, c.Passed, c.Reason, c.Want, c.Got))
	}
	return junit.Write(w, suite)
}

func (c comparison) writeJUnit(w io.Writer) error {
	r := c.res
	suite := junit.Suite{Name: c.name, Time: junit.Seconds(r.WallTime.D()), Properties: properties(Entries(r))}
	suite.SystemOut = c.text()
	tc := junit.Case{Name: "verdict", Classname: "arena.compare", Time: suite.Time}
	if !c.passed() {
		tc.Failure = &junit.Message{Message: fmt.Sprintf("verdict %s, want %s", r.Verdict, verdictList(c.want)), Type: "verdict", Text: r.String()}
	}
	suite.Add(tc)
	return junit.Write(w, suite)
}
