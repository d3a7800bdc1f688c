package matchers_test

import (
	"testing"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/matchers"
)

func TestSurviveWithGrade(t *testing.T) {
	good, bad := survival(t, 7), survival(t, 7, fakes.WithoutHealing())
	t.Run("passes", func(t *testing.T) {
		check(t, matchers.SurviveWithGrade("B"), good, outcome{match: true,
			positive: "Expected\n    <string>: survival run (seed 7): grade A+, score 96.2\nto survive with grade at least\n    <engine.Grade>: B",
			negated:  "Expected\n    <string>: survival run (seed 7): grade A+, score 96.2\nnot to survive with grade at least\n    <engine.Grade>: B",
		})
		check(t, matchers.SurviveWithGrade(engine.GradeA), good.Report, outcome{match: true,
			positive: "Expected\n    <string>: run (seed 7): grade A+, score 96.2\nto survive with grade at least\n    <engine.Grade>: A",
			negated:  "Expected\n    <string>: run (seed 7): grade A+, score 96.2\nnot to survive with grade at least\n    <engine.Grade>: A",
		})
	})
	t.Run("fails", func(t *testing.T) {
		check(t, matchers.SurviveWithGrade("b"), bad, outcome{
			positive: "Expected\n    <string>: survival run (seed 7): grade F, score 33.6\nto survive with grade at least\n    <engine.Grade>: B",
			negated:  "Expected\n    <string>: survival run (seed 7): grade F, score 33.6\nnot to survive with grade at least\n    <engine.Grade>: B",
		})
	})
	t.Run("errors", func(t *testing.T) {
		check(t, matchers.SurviveWithGrade("Z"), good, outcome{err: `SurviveWithGrade: unknown grade "Z" (want A+, A, B, C, D or F)`})
		check(t, matchers.SurviveWithGrade("B"), 42, outcome{
			err: "SurviveWithGrade matcher expects a *scenario.Report, *engine.SurvivalReport or *engine.Report.  Got:\n    <int>: 42"})
		check(t, matchers.SurviveWithGrade("B"), engine.Score{}, outcome{
			err: "SurviveWithGrade matcher expects a *scenario.Report, *engine.SurvivalReport or *engine.Report.  Got:\n    <engine.Score>"})
		check(t, matchers.SurviveWithGrade("B"), (*engine.SurvivalReport)(nil), outcome{
			err: "SurviveWithGrade matcher expects a report.  Got a nil *engine.SurvivalReport (or one without its run's report)"})
		check(t, matchers.SurviveWithGrade("B"), &engine.Report{Seed: 3}, outcome{
			err: "SurviveWithGrade: run (seed 3) has no grade: nothing was measured"})
	})
	t.Run("through Gomega", func(t *testing.T) {
		to, notTo := assertion(bad, matchers.SurviveWithGrade("B"))
		if want := "Expected\n    <string>: survival run (seed 7): grade F, score 33.6\nto survive with grade at least\n    <engine.Grade>: B"; to != want || notTo != "" {
			t.Errorf("To: %q\nNotTo: %q", to, notTo)
		}
		to, notTo = assertion("B", matchers.SurviveWithGrade("B"))
		if want := "SurviveWithGrade matcher expects a *scenario.Report, *engine.SurvivalReport or *engine.Report.  Got:\n    <string>: B"; to != want || notTo != want {
			t.Errorf("a wrong type must fail both ways:\nTo: %q\nNotTo: %q", to, notTo)
		}
	})
}
