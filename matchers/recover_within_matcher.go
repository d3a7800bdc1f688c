package matchers

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/onsi/gomega/format"

	"github.com/ares-arena/arena/engine"
)

// RecoverWithinMatcher is the matcher of RecoverWithin.
type RecoverWithinMatcher struct {
	Within time.Duration
	run    run
}

// Match reports whether every landed fault recovered within Within.
func (m *RecoverWithinMatcher) Match(actual any) (bool, error) {
	var err error
	if m.run, err = runOf("RecoverWithin", actual); err != nil {
		return false, err
	}
	r := m.run.rep
	if !r.Score.Recovery.Measured {
		return false, fmt.Errorf("RecoverWithin: %s did not measure recovery (no probe, or no fault landed)", m.run.name)
	}
	return r.Unrecovered == 0 && r.MaxTTR.D() <= m.Within, nil
}

// actual: "run (seed 7): 1 of 4 faults unrecovered, max TTR 3.1s" and the
// three worst faults that missed the bound: unrecovered first, then the
// slowest.
func (m *RecoverWithinMatcher) actual() string {
	r := m.run.rep
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d faults unrecovered, max TTR %s", m.run.name, r.Unrecovered, r.Landed, short(r.MaxTTR.D()))
	var late []engine.FaultOutcome
	for _, f := range r.Faults {
		if !f.Recovered || f.TTR.D() > m.Within {
			late = append(late, f)
		}
	}
	slices.SortStableFunc(late, func(a, b engine.FaultOutcome) int {
		if a.Recovered != b.Recovered {
			if !a.Recovered {
				return -1
			}
			return 1
		}
		if !a.Recovered {
			return 0
		}
		return cmp.Compare(b.TTR, a.TTR)
	})
	for _, f := range late[:min(3, len(late))] {
		b.WriteString("\n- " + f.Describe())
	}
	return b.String()
}

// FailureMessage lists the faults that recovered late or never.
func (m *RecoverWithinMatcher) FailureMessage(any) string {
	return format.Message(m.actual(), "to recover within", m.Within.String())
}

// NegatedFailureMessage says how fast the run recovered.
func (m *RecoverWithinMatcher) NegatedFailureMessage(any) string {
	return format.Message(m.actual(), "not to recover within", m.Within.String())
}
