package arenatest

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit XML of survival runs and A/B tests, shaped like
// arena.ScenarioReport.WriteJUnit's: one suite named after the test, the
// figures as properties, a testcase for the run and one per criterion, the
// text report as system-out.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
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
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func (s *junitSuite) add(c junitCase) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	if c.Failure != nil {
		s.Failures++
	}
}

func writeJUnit(w io.Writer, s junitSuite) error {
	doc := junitSuites{Name: "arena", Tests: s.Tests, Failures: s.Failures, Time: s.Time, Suites: []junitSuite{s}}
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

func properties(entries []Entry) []junitProperty {
	out := make([]junitProperty, len(entries))
	for i, e := range entries {
		out[i] = junitProperty{strings.TrimPrefix(e.Key, "arena."), fmt.Sprint(e.Value)}
	}
	return out
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func (s survivalResult) writeJUnit(w io.Writer) error {
	r := s.rep
	const class = "arena.survival"
	suite := junitSuite{Name: s.name, Time: seconds(r.End.Sub(r.Start)), Timestamp: r.Start.UTC().Format(time.RFC3339),
		Properties: properties(Entries(r))}
	var text strings.Builder
	_ = s.writeText(&text)
	suite.SystemOut = text.String()
	run := junitCase{Name: "survival", Classname: class, Time: suite.Time}
	var reasons []string
	for _, c := range s.gate {
		if !c.Passed {
			reasons = append(reasons, c.Reason)
		}
	}
	if len(reasons) > 0 {
		run.Failure = &junitFailure{Message: strings.Join(reasons, "; "), Type: "gate"}
	}
	suite.add(run)
	for _, c := range s.gate {
		tc := junitCase{Name: "gate " + c.Name, Classname: class, Time: seconds(0)}
		if !c.Passed {
			tc.Failure = &junitFailure{Message: c.Reason, Type: "gate", Text: fmt.Sprintf("want %s, got %s", c.Want, c.Got)}
		}
		suite.add(tc)
	}
	return writeJUnit(w, suite)
}

func (c comparison) writeJUnit(w io.Writer) error {
	r := c.res
	suite := junitSuite{Name: c.name, Time: seconds(r.WallTime.D()), Properties: properties(Entries(r))}
	suite.SystemOut = c.text()
	tc := junitCase{Name: "verdict", Classname: "arena.compare", Time: suite.Time}
	if !c.passed() {
		tc.Failure = &junitFailure{Message: fmt.Sprintf("verdict %s, want %s", r.Verdict, verdictList(c.want)), Type: "verdict", Text: r.String()}
	}
	suite.add(tc)
	return writeJUnit(w, suite)
}
