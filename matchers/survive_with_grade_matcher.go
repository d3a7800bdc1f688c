package matchers

import (
	"fmt"

	"github.com/onsi/gomega/format"

	"github.com/ares-arena/arena"
)

// SurviveWithGradeMatcher is the matcher of SurviveWithGrade.
type SurviveWithGradeMatcher struct {
	MinGrade string // "B", or any letter arena.ParseGrade reads
	grade    arena.Grade
	run      run
}

// Match reports whether the run's grade is at least MinGrade.
func (m *SurviveWithGradeMatcher) Match(actual any) (bool, error) {
	g, err := arena.ParseGrade(m.MinGrade)
	if err != nil {
		return false, fmt.Errorf("SurviveWithGrade: %w", err)
	}
	m.grade = g
	if m.run, err = runOf("SurviveWithGrade", actual); err != nil {
		return false, err
	}
	if !m.run.rep.Score.Measured {
		return false, fmt.Errorf("SurviveWithGrade: %s has no grade: nothing was measured", m.run.name)
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
