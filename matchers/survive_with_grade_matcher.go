package matchers

import (
	"fmt"

	"github.com/onsi/gomega/format"

	"github.com/ares-arena/arena/engine"
)

// SurviveWithGradeMatcher is the matcher of SurviveWithGrade.
type SurviveWithGradeMatcher struct {
	MinGrade string // "B", or any letter engine.ParseGrade reads
	grade    engine.Grade
	run      run
}

// Match reports whether the run's grade is at least MinGrade.
func (m *SurviveWithGradeMatcher) Match(actual any) (bool, error) {
	g, err := engine.ParseGrade(m.MinGrade)
	if err != nil {
		return false, fmt.Errorf("SurviveWithGrade: %w", err)
	}
	m.grade = g
	if m.run, err = runOf("SurviveWithGrade", actual); err != nil {
		return false, err
	}
	if !m.run.rep.Score.Measured {
		return false, fmt.Errorf("SurviveWithGrade: %s has no grade: %s", m.run.name, m.run.rep.Score.UngradedReason())
	}
	return m.run.rep.Score.Grade.AtLeast(g), nil
}

// FailureMessage says the run's grade and score.
func (m *SurviveWithGradeMatcher) FailureMessage(any) string {
	return format.Message(m.run.name+": "+m.run.score(), "to survive with grade at least", m.grade)
}

// NegatedFailureMessage says the run's grade and score.
func (m *SurviveWithGradeMatcher) NegatedFailureMessage(any) string {
	return format.Message(m.run.name+": "+m.run.score(), "not to survive with grade at least", m.grade)
}
