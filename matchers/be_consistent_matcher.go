package matchers

import (
	"fmt"
	"strings"

	"github.com/onsi/gomega/format"
)

// BeConsistentMatcher is the matcher of BeConsistent.
type BeConsistentMatcher struct {
	run run
}

// Match reports whether every consistency check of the run passed.
func (m *BeConsistentMatcher) Match(actual any) (bool, error) {
	var err error
	if m.run, err = runOf("BeConsistent", actual); err != nil {
		return false, err
	}
	r := m.run.rep
	if r.ChecksRun == 0 {
		return false, fmt.Errorf("BeConsistent: %s ran no consistency check", m.run.name)
	}
	return r.ChecksPassed == r.ChecksRun, nil
}

// actual: "run (seed 7): 40 of 42 checks passed" and the first three
// distinct failures.
func (m *BeConsistentMatcher) actual() string {
	r := m.run.rep
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d checks passed", m.run.name, r.ChecksPassed, r.ChecksRun)
	seen := map[string]bool{} // a check that fails after each of several faults at once is listed once
	for _, c := range r.Checks {
		line := fmt.Sprintf("\n- %s at %s: %s", c.Name, short(c.At.D()), c.Error)
		if c.Failed() && !seen[line] && len(seen) < 3 {
			seen[line] = true
			b.WriteString(line)
		}
	}
	return b.String()
}

// FailureMessage lists the first failed checks.
func (m *BeConsistentMatcher) FailureMessage(any) string {
	return format.Message(m.actual(), "to be consistent")
}

// NegatedFailureMessage says how many checks passed.
func (m *BeConsistentMatcher) NegatedFailureMessage(any) string {
	return format.Message(m.actual(), "not to be consistent")
}
