package matchers

import (
	"fmt"
	"reflect"
	"time"

	"github.com/onsi/gomega/format"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
)

// run is what the report matchers read of their actual value.
type run struct {
	rep      *engine.Report
	scenario *scenario.Report // nil unless actual is one
	name     string           // "survival run (seed 7)"
}

// runOf reads actual as a run, or says why it cannot.
func runOf(matcher string, actual any) (run, error) {
	switch v := actual.(type) {
	case *scenario.Report:
		if v != nil && v.Report != nil {
			return run{rep: v.Report, scenario: v, name: fmt.Sprintf("scenario %s (seed %d)", v.Scenario, v.Seed)}, nil
		}
	case *engine.SurvivalReport:
		if v != nil && v.Report != nil {
			return run{rep: v.Report, name: fmt.Sprintf("survival run (seed %d)", v.Config.Seed)}, nil
		}
	case *engine.Report:
		if v != nil {
			return run{rep: v, name: fmt.Sprintf("run (seed %d)", v.Seed)}, nil
		}
	case engine.Report:
		return run{rep: &v, name: fmt.Sprintf("run (seed %d)", v.Seed)}, nil
	default:
		return run{}, fmt.Errorf("%s matcher expects a *scenario.Report, *engine.SurvivalReport or *engine.Report.  Got:\n%s",
			matcher, got(actual))
	}
	return run{}, fmt.Errorf("%s matcher expects a report.  Got a nil %T (or one without its run's report)", matcher, actual)
}

// score: "grade B, score 84.2", "no grade (nothing measured)", or "no
// grade (none of the 3 planned faults landed (first: …))".
func (r run) score() string {
	s := r.rep.Score
	switch {
	case s.NoneLanded:
		return "no grade (" + s.Ungraded + ")"
	case !s.Measured:
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
