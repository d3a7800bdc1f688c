package matchers

import (
	"fmt"
	"strings"

	"github.com/onsi/gomega/format"

	"github.com/ares-arena/arena/scenario"
)

// MeetExpectationsMatcher is the matcher of MeetExpectations.
type MeetExpectationsMatcher struct {
	rep *scenario.Report
}

// Match reports whether the scenario's gate passed.
func (m *MeetExpectationsMatcher) Match(actual any) (bool, error) {
	rep, ok := actual.(*scenario.Report)
	switch {
	case !ok:
		return false, fmt.Errorf("MeetExpectations matcher expects a *scenario.Report.  Got:\n%s", got(actual))
	case rep == nil:
		return false, fmt.Errorf("MeetExpectations matcher expects a report.  Got a nil *scenario.Report")
	}
	m.rep = rep
	return rep.OK(), nil
}

// actual: "scenario leader-failover (seed 7): gate failed" and its reasons.
func (m *MeetExpectationsMatcher) actual() string {
	r := m.rep
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s (seed %d): gate %s, %d of %d steps passed", r.Scenario, r.Seed, r.Gate.Verdict, r.Passed, len(r.Steps))
	for _, reason := range r.Gate.Reasons {
		b.WriteString("\n- " + reason)
	}
	return b.String()
}

// FailureMessage lists the gate's reasons.
func (m *MeetExpectationsMatcher) FailureMessage(any) string {
	return format.Message(m.actual(), "to meet its expectations")
}

// NegatedFailureMessage says the gate passed.
func (m *MeetExpectationsMatcher) NegatedFailureMessage(any) string {
	return format.Message(m.actual(), "not to meet its expectations")
}
