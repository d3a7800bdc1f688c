package arenatest

import (
	"fmt"
	"io"
	"slices"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
)

var surviveOptions = runOptions

// Survive makes a survival run (seeded random chaos for cfg.Duration, see
// engine.SurvivalConfig) against a fresh system and returns its report.
// It fails t when the gate of WithGate does not hold, when the run was
// aborted (WithAbortWhen, or an unhealthy start), when it tried faults and
// none landed (it has no grade then: engine.Score.NoneLanded), or when it
// did not finish, with the same kind of message as Run. Without WithGate
// the grade is the caller's to judge (matchers.SurviveWithGrade, or
// rep.Score.Grade.AtLeast).
//
// With the default fake cluster the run is virtual: a day of chaos takes
// about a second of CPU. The seed is the override (-arena.seed,
// ARENA_SEED), else WithSeed, else cfg.Seed, else drawn. An invalid
// config is reported and stops the test (t.FailNow).
func Survive(t TB, cfg engine.SurvivalConfig, opts ...Option) *engine.SurvivalReport {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	o, err := collect("Survive", surviveOptions, opts)
	if err != nil {
		return stop[engine.SurvivalReport](t, "Survive", err)
	}
	if sim := simulationOf(t); sim != nil {
		if err := sim.adopt(o); err != nil {
			return stop[engine.SurvivalReport](t, "Survive", err)
		}
	}
	if path := replayFile(); path != "" {
		return replaySurvival(t, path, cfg, opts)
	}
	if o.shrink != nil && cfg.TimelineCap < scenario.MaxSteps {
		cfg.TimelineCap = scenario.MaxSteps // every action listed: the run can become a scenario
	}
	seed, err := seedFor(o, cfg.Seed)
	if err != nil {
		return stop[engine.SurvivalReport](t, "Survive", err)
	}
	cfg.Seed = seed
	if o.abort != nil {
		cfg.AbortWhen = *o.abort
	}
	cfg.AllowUnhealthyStart = cfg.AllowUnhealthyStart || o.unhealthy
	svc, err := newSystem(o, seed)
	if err != nil {
		return stop[engine.SurvivalReport](t, "Survive", err)
	}
	rollbackAtCleanup(t, svc)
	rep, runErr := svc.RunSurvival(testContext(t), cfg)
	if rep == nil {
		return stop[engine.SurvivalReport](t, "Survive", runErr)
	}

	var g scenario.Gate // without WithGate, only a run in which no fault landed fails it
	if o.gate != nil {
		g = *o.gate
	}
	gate := g.Check(rep.Report)
	if rep.Ending == engine.SurvivalAborted { // a stop condition fails the test, gate or not
		gate = append([]scenario.GateCheck{{Name: "run", Want: "not aborted", Got: string(rep.Ending), Reason: "aborted: " + rep.Reason}}, gate...)
	}
	var reasons []string
	for _, c := range gate {
		if !c.Passed && !slices.Contains(reasons, c.Reason) { // landed and min_grade give one reason for no grade
			reasons = append(reasons, c.Reason)
		}
	}
	publish(t, Entries(rep), rep.Score)
	noteReport(t, rep.Report)
	sr := survivalResult{rep: rep, gate: gate, name: t.Name()}
	files, err := reportFiles{json: rep, junit: sr.writeJUnit, text: sr.writeText}.write(t, o)
	if err != nil {
		t.Errorf("arenatest.Survive: %v", err)
	}
	f := failure{head: "survival run failed its gate", score: &rep.Score, reasons: reasons,
		report: rep.Report, seed: rep.Config.Seed, files: files}
	switch {
	case runErr != nil:
		f.head = fmt.Sprintf("survival run did not finish: %v", runErr)
		t.Errorf("%s", f.text(t))
	case len(reasons) > 0:
		if s := simulationOf(t); s != nil && s.held != nil { // SimulateSurvive reports it, and shrinks it, outside the bubble
			s.held(pendingFailure{f: f, survival: rep})
			break
		}
		if o.shrink != nil {
			f.shrunk = shrinkSurvival(t, o, rep)
		}
		t.Errorf("%s", f.text(t))
	case !isBenchmark(t):
		t.Logf("arena: survival run of %s: %s, %d faults landed, %d unrecovered (seed %d)%s",
			shortDuration(rep.End.Sub(rep.Start)), scoreText(rep.Score), rep.Landed, rep.Unrecovered, rep.Config.Seed, filesNote(files))
	}
	return rep
}

// survivalResult is a survival run with its gate, for the report files.
type survivalResult struct {
	rep  *engine.SurvivalReport
	gate []scenario.GateCheck
	name string
}

func (s survivalResult) writeText(w io.Writer) error {
	if err := writeGate(w, s.gate); err != nil {
		return err
	}
	return s.rep.WriteText(w)
}

func writeGate(w io.Writer, gate []scenario.GateCheck) error {
	if len(gate) == 0 {
		return nil
	}
	if _, err := io.WriteString(w, "gate\n"); err != nil {
		return err
	}
	for _, c := range gate {
		mark := "ok"
		if !c.Passed {
			mark = "FAIL"
		}
		if _, err := fmt.Fprintf(w, "  %s %s: want %s, got %s\n", mark, c.Name, c.Want, c.Got); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n")
	return err
}
