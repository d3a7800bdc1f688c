package matchers

import (
	"fmt"
	"reflect"
	"time"

	"github.com/onsi/gomega/format"

	"github.com/ares-arena/arena"
)

// run is what the report matchers read of their actual value.
type run struct {
	rep      *arena.Report
	scenario *arena.ScenarioReport // nil unless actual is one
	name     string                // "survival run (seed 7)"
}

// runOf reads actual as a run, or says why it cannot.
func runOf(matcher string, actual any) (run, error) {
	switch v := actual.(type) {
	case *arena.ScenarioReport:
		if v != nil && v.Report != nil {
			return run{rep: v.Report, scenario: v, name: fmt.Sprintf("scenario %s (seed %d)", v.Scenario, v.Seed)}, nil
		}
	case *arena.SurvivalReport:
		if v != nil && v.Report != nil {
			return run{rep: v.Report, name: fmt.Sprintf("survival run (seed %d)", v.Config.Seed)}, nil
		}
	case *arena.Report:
		if v != nil {
			return run{rep: v, name: fmt.Sprintf("run (seed %d)", v.Seed)}, nil
		}
	case arena.Report:
		return run{rep: &v, name: fmt.Sprintf("run (seed %d)", v.Seed)}, nil
	default:
		return run{}, fmt.Errorf("%s matcher expects an *arena.ScenarioReport, *arena.SurvivalReport or *arena.Report.  Got:\n%s",
			matcher, got(actual))
	}
	return run{}, fmt.Errorf("%s matcher expects a report.  Got a nil %T (or one without its run's report)", matcher, actual)
}

// score: "grade B, score 84.2", or "no grade (nothing measured)".
func (r run) score() string {
	s := r.rep.Score
	if !s.Measured {
		return "no grade (nothing measured)"
	}
	return fmt.Sprintf("grade %s, score %.1f", s.Grade, s.Total)
}

// got shows a value of the wrong type: a small value in full, a structure
// by its type only (a report in full is thousands of lines).
func got(v any) string {
	switch reflect.ValueOf(v).Kind() {
	case reflect.Pointer, reflect.Struct, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
		return fmt.Sprintf("%s<%T>", format.Indent, v)
	}
	return format.Object(v, 1)
}

func short(d time.Duration) string { return d.Round(time.Millisecond).String() }
