package arena

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"
)

// JUnit XML, as CI servers read it: one testsuite per scenario run, one
// testcase per step and per gate criterion, the score and seed as
// properties, the text report as system-out.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the run as a JUnit XML document: the suite is the
// scenario, its testcases are the steps (failed, skipped or passed) and the
// gate's criteria. Times are on the run's clock.
func (r *ScenarioReport) WriteJUnit(w io.Writer) error {
	class := "arena.scenario." + r.Scenario
	s := junitSuite{
		Name: r.Scenario, Time: junitSeconds(r.End.Sub(r.Start)), Timestamp: r.Start.UTC().Format(time.RFC3339),
		Properties: []junitProperty{
			{"seed", fmt.Sprint(r.Seed)},
			{"verdict", string(r.Gate.Verdict)},
			{"outcome", string(r.Outcome)},
		},
		SystemOut: r.String(),
	}
	if r.Report != nil {
		s.Properties = append(s.Properties,
			junitProperty{"score", junitScore(r.Report.Score)},
			junitProperty{"grade", r.Report.Score.Grade.String()})
	}
	for _, st := range r.Steps {
		c := junitCase{Name: fmt.Sprintf("step %s %s", stepTitle(st), st.Type), Classname: class, Time: junitSeconds(0)}
		if st.Result != nil {
			c.Time = junitSeconds(st.Result.Duration.D())
		}
		switch st.Status {
		case StepFailed:
			c.Failure = &junitMessage{Message: st.Reason, Type: "step"}
			s.Failures++
		case StepSkipped:
			c.Skipped = &junitMessage{Message: st.Reason}
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	for _, g := range r.Gate.Checks {
		c := junitCase{Name: "gate " + g.Name, Classname: class, Time: junitSeconds(0)}
		if !g.Passed {
			c.Failure = &junitMessage{Message: g.Reason, Type: "gate", Text: fmt.Sprintf("want %s, got %s", g.Want, g.Got)}
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
	s.Tests = len(s.Cases)
	doc := junitSuites{Name: "arena", Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Time: s.Time, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func stepTitle(st StepReport) string {
	if st.Label != "" {
		return fmt.Sprintf("%d %s", st.Index, st.Label)
	}
	return fmt.Sprint(st.Index)
}

func junitSeconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func junitScore(s Score) string {
	if !s.Measured {
		return "none"
	}
	return fmt.Sprintf("%.1f", s.Total)
}
