package matchers

import (
	"fmt"

	"github.com/onsi/gomega/format"
)

// HaveScoreAtLeastMatcher is the matcher of HaveScoreAtLeast.
type HaveScoreAtLeastMatcher struct {
	MinScore float64
	run      run
}

// Match reports whether the run's total score is at least MinScore.
func (m *HaveScoreAtLeastMatcher) Match(actual any) (bool, error) {
	var err error
	if m.run, err = runOf("HaveScoreAtLeast", actual); err != nil {
		return false, err
	}
	if !m.run.rep.Score.Measured {
		return false, fmt.Errorf("HaveScoreAtLeast: %s has no score: %s", m.run.name, m.run.rep.Score.UngradedReason())
	}
	return m.run.rep.Score.Total >= m.MinScore, nil
}

// FailureMessage says the run's score and grade.
func (m *HaveScoreAtLeastMatcher) FailureMessage(any) string {
	return format.Message(m.run.name+": "+m.run.score(), "to have score at least", m.MinScore)
}

// NegatedFailureMessage says the run's score and grade.
func (m *HaveScoreAtLeastMatcher) NegatedFailureMessage(any) string {
	return format.Message(m.run.name+": "+m.run.score(), "not to have score at least", m.MinScore)
}
