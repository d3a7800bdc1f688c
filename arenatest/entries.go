package arenatest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/regression"
	"github.com/ares-arena/arena/scenario"
)

// Entry is one figure of a result as the helpers publish it: an attribute
// of the test in go test -json (t.Attr), a report entry under Ginkgo (in
// its --json-report and --junit-report files). Keys start with "arena.";
// values are numbers or strings, so they read back as such from JSON.
type Entry struct {
	Key   string
	Value any
}

// Entries lists what the helpers publish of a result: a
// *scenario.Report, *engine.SurvivalReport, *engine.Report or
// *regression.Result (nil for anything else).
//
//	arena.scenario     the scenario's name (scenario.Report)
//	arena.gate         the gate's verdict: passed, failed, inconclusive (scenario.Report)
//	arena.score        the total score rounded to 0.1; absent when nothing was measured
//	arena.grade        A+ … F, or none
//	arena.mttr         mean time to recover, a duration string
//	arena.unrecovered  faults that did not recover
//	arena.undecided    consistency checks that ran out of their budget; absent when none did
//	arena.verdict      better, worse, no_difference, inconclusive (regression.Result)
//	arena.p            the A/B test's p-value, two significant digits
//	arena.runs         runs per arm, "18+18"
//	arena.delta        candidate mean − baseline mean, rounded to 0.1
//	arena.seed         the seed that replays the run or test
func Entries(result any) []Entry {
	switch r := result.(type) {
	case *scenario.Report:
		if r == nil {
			return nil
		}
		out := []Entry{{"arena.scenario", oneLine(r.Scenario)}, {"arena.gate", string(r.Gate.Verdict)}}
		return append(out, reportEntries(r.Report, r.Seed)...)
	case *engine.SurvivalReport:
		if r == nil || r.Report == nil {
			return nil
		}
		return reportEntries(r.Report, r.Report.Seed)
	case *engine.Report:
		if r == nil {
			return nil
		}
		return reportEntries(r, r.Seed)
	case *regression.Result:
		if r == nil {
			return nil
		}
		return []Entry{
			{"arena.verdict", string(r.Verdict)},
			{"arena.p", roundSig(r.P, 2)},
			{"arena.runs", fmt.Sprintf("%d+%d", r.Baseline.Runs, r.Candidate.Runs)},
			{"arena.delta", round1(r.Delta)},
			{"arena.seed", r.Seed},
		}
	}
	return nil
}

func reportEntries(r *engine.Report, seed uint64) []Entry {
	if r == nil {
		return []Entry{{"arena.grade", engine.GradeNone.String()}, {"arena.seed", seed}}
	}
	var out []Entry
	if r.Score.Measured {
		out = append(out, Entry{"arena.score", round1(r.Score.Total)})
	}
	out = append(out,
		Entry{"arena.grade", r.Score.Grade.String()},
		Entry{"arena.mttr", shortDuration(r.MTTR.D())},
		Entry{"arena.unrecovered", r.Unrecovered},
	)
	if r.ChecksUndecided > 0 {
		out = append(out, Entry{"arena.undecided", r.ChecksUndecided})
	}
	return append(out, Entry{"arena.seed", seed})
}

// publish hands the entries to the test: report entries under Ginkgo,
// attributes under go test, and the score (unrounded) as a benchmark
// metric for benchstat.
func publish(t TB, entries []Entry, score engine.Score) {
	if h, ok := t.(helper); ok {
		h.Helper() // GinkgoT's entries then carry the user's line, not this one
	}
	switch r := t.(type) {
	case ginkgoReporter: // GinkgoT() has Attr too, but entries keep their types
		for _, e := range entries {
			r.AddReportEntryVisibilityFailureOrVerbose(e.Key, e.Value)
		}
	case attrer:
		if isBenchmark(t) {
			break // a benchmark reports its score with ReportMetric, once per run
		}
		for _, e := range entries {
			r.Attr(e.Key, oneLine(fmt.Sprint(e.Value)))
		}
	}
	if m, ok := t.(metricReporter); ok && score.Measured {
		m.ReportMetric(score.Total, "score")
	}
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

func roundSig(x float64, digits int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	return v
}

// shortDuration rounds to the millisecond for people: 3.384615384s is 3.385s.
func shortDuration(d time.Duration) string { return d.Round(time.Millisecond).String() }

// oneLine keeps a value on one line (t.Attr refuses newlines).
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
