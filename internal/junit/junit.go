// Package junit writes JUnit XML, as CI servers read it: one document with
// one testsuite, its figures as properties, one testcase per check and the
// text report as system-out. scenario.Report.WriteJUnit and arenatest's
// survival and A/B reports both build a Suite and call Write.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"
)

type suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []Suite  `xml:"testsuite"`
}

// Suite is one testsuite. Add its cases with Add, which keeps the counts.
type Suite struct {
	Name       string     `xml:"name,attr"`
	Tests      int        `xml:"tests,attr"`
	Failures   int        `xml:"failures,attr"`
	Skipped    int        `xml:"skipped,attr"`
	Time       string     `xml:"time,attr"`
	Timestamp  string     `xml:"timestamp,attr,omitempty"`
	Properties []Property `xml:"properties>property"`
	Cases      []Case     `xml:"testcase"`
	SystemOut  string     `xml:"system-out,omitempty"`
}

// Property is a name and value of the suite.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// Case is one testcase: passed, or with a Failure or Skipped message.
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *Message `xml:"failure,omitempty"`
	Skipped   *Message `xml:"skipped,omitempty"`
}

// Message says why a case failed or was skipped; Text is its body.
type Message struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// Add appends c and counts it.
func (s *Suite) Add(c Case) {
	s.Cases = append(s.Cases, c)
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Skipped != nil:
		s.Skipped++
	}
}

// Gate is the testcase of one gate criterion: it fails with the criterion's
// reason, and its body says what was wanted and what was got.
func Gate(class, name string, passed bool, reason, want, got string) Case {
	c := Case{Name: "gate " + name, Classname: class, Time: Seconds(0)}
	if !passed {
		c.Failure = &Message{Message: reason, Type: "gate", Text: fmt.Sprintf("want %s, got %s", want, got)}
	}
	return c
}

// Write writes s as an indented JUnit XML document named "arena".
func Write(w io.Writer, s Suite) error {
	doc := suites{Name: "arena", Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Time: s.Time, Suites: []Suite{s}}
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

// Seconds is a duration as JUnit writes it: seconds with three decimals.
func Seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
