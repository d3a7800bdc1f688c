// Package htmlreport writes arena reports as one self-contained HTML page:
// the score and grade, the three dimensions, the run's health over time as
// an inline SVG chart (drawn here, see Chart), and tables of the faults,
// injection errors and failed checks, plus the steps and gate of a scenario
// or the per-type counts of a survival run.
//
// The page loads nothing: its CSS is inline, the chart is inline SVG with no
// fonts, images or namespace URLs, and its icon is a data: URL, so it opens
// the same from a CI artifact, an e-mail or a file on disk, offline. It has
// no script. A consistency violation that a check visualized links to
// that file (its path as the check wrote it, in the report directory): the
// only reference on the page, followed only when clicked.
//
// WriteScenario and WriteSurvival write one; WriteFile writes either to a
// path. The arena CLI's --html FILE uses them.
package htmlreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// MaxRows bounds each table of the page; a longer list ends with a line
// saying how many rows were left out (the counts above cover them all).
const MaxRows = 1000

//go:embed report.html.tmpl
var pageTemplate string

// page is parsed on first use, not at package init: every arena command
// links this package, few write HTML.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"pct":   func(v float64) string { return fmt.Sprintf("%.0f%%", v) },
		"score": func(v float64) string { return fmt.Sprintf("%.1f", v) },
		"ms":    func(d clock.Duration) string { return roundDuration(time.Duration(d)).String() },
		"rows":  rows,
	}).Parse(pageTemplate))
})

// view is what the template shows.
type view struct {
	Title     string
	Kind      string // "scenario" or "survival"
	Verdict   string // passed, failed, inconclusive; survived, stopped
	Good      bool   // the verdict is a pass
	Reasons   []string
	Subtitle  string
	Rep       *engine.Report
	Mode      string // virtual time, real time
	Length    time.Duration
	Chart     template.HTML
	Scenario  *scenario.Report
	Survival  *engine.SurvivalReport
	Dims      []dimension
	Failed    []engine.CheckResult
	Undecided []engine.CheckResult
}

type dimension struct {
	Name   string
	D      engine.Dimension
	Detail string
}

// WriteScenario writes the page of a scenario run.
func WriteScenario(w io.Writer, rep *scenario.Report) error {
	v := view{
		Title: rep.Scenario, Kind: "scenario", Verdict: string(rep.Gate.Verdict),
		Good: rep.Gate.Verdict == scenario.GatePassed, Reasons: rep.Gate.Reasons,
		Subtitle: rep.Description, Scenario: rep,
	}
	return write(w, v, rep.Report)
}

// WriteSurvival writes the page of a survival run.
func WriteSurvival(w io.Writer, rep *engine.SurvivalReport) error {
	v := view{Title: "survival run", Kind: "survival", Verdict: "completed", Good: true, Survival: rep,
		Subtitle: fmt.Sprintf("%d actions in %d ticks every %s, at most %d faults active", rep.Actions, rep.Ticks, rep.Config.Interval, rep.Config.MaxActiveFaults)}
	if rep.Stopped {
		v.Verdict, v.Good = "stopped early", false
	}
	return write(w, v, rep.Report)
}

// WriteFile writes a page to path with write (WriteScenario or
// WriteSurvival bound to a report), replacing the file.
func WriteFile(path string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func write(w io.Writer, v view, rep *engine.Report) error {
	if rep == nil {
		return fmt.Errorf("htmlreport: no run report")
	}
	chart, err := Chart(rep)
	if err != nil {
		return fmt.Errorf("htmlreport: %w", err)
	}
	v.Rep, v.Chart = rep, template.HTML(chart) // generated here: no input reaches it unescaped
	clk := rep.Clock
	if clk == "" && rep.Virtual { // a report made before reports named their clock
		clk = clock.KindVirtual
	}
	v.Mode = clk.Time() // "virtual time", "simulated time (synctest)", "real time"
	v.Length = rep.End.Sub(rep.Start)
	v.Dims = []dimension{
		{"availability", rep.Score.Availability, fmt.Sprintf("%d of %d samples healthy, downtime %s", rep.HealthySamples, rep.Samples, rep.Downtime)},
		{"recovery", rep.Score.Recovery, fmt.Sprintf("%d of %d landed faults recovered, MTTR %s", rep.Recovered, rep.Landed, roundDuration(rep.MTTR.D()))},
		{"consistency", rep.Score.Consistency, consistencyDetail(rep)},
	}
	for _, c := range rep.Checks {
		switch {
		case c.Failed():
			v.Failed = append(v.Failed, c)
		case c.Undecided:
			v.Undecided = append(v.Undecided, c)
		}
	}
	var buf bytes.Buffer
	if err := page().Execute(&buf, v); err != nil {
		return fmt.Errorf("htmlreport: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// consistencyDetail counts the checks, with those not measured.
func consistencyDetail(rep *engine.Report) string {
	s := fmt.Sprintf("%d of %d checks passed", rep.ChecksPassed, rep.ChecksRun)
	if rep.ChecksNotApplicable > 0 {
		s += fmt.Sprintf(", %d not applicable", rep.ChecksNotApplicable)
	}
	if rep.ChecksUndecided > 0 {
		s += fmt.Sprintf(", %d undecided (out of budget, not counted)", rep.ChecksUndecided)
	}
	return s
}

// rows returns the first MaxRows items of a list, and how many are left out.
func rows(list any) (map[string]any, error) {
	switch l := list.(type) {
	case []engine.FaultOutcome:
		return cut(l), nil
	case []fault.Result:
		return cut(l), nil
	case []engine.CheckResult:
		return cut(l), nil
	case []scenario.StepReport:
		return cut(l), nil
	case []engine.SurvivalEvent:
		return cut(l), nil
	}
	return nil, fmt.Errorf("rows: %T", list)
}

func cut[T any](l []T) map[string]any {
	if len(l) <= MaxRows {
		return map[string]any{"Items": l, "More": 0}
	}
	return map[string]any{"Items": l[:MaxRows], "More": len(l) - MaxRows}
}

// roundDuration keeps three significant figures, the way reports print TTRs.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d
}
