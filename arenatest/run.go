package arenatest

import (
	"context"
	"fmt"

	"github.com/ares-arena/arena/scenario"
)

var runOptions = []string{"WithRuntime", "WithDAG", "WithFaults", "WithCluster", "Virtual()", "RealTime()",
	"WithSeed", "WithReportDir", "WithProbe", "WithChecks", "WithRoles", "WithObserve", "WithGate", "WithAbortWhen", "AllowUnhealthyStart()",
	"WithFreshRuntime", "WithShrinkOnFailure"}

// Run plays a scenario against a fresh system and fails t when the
// scenario's gate fails (a step missed its expectation, the run did not
// complete, or the expect block does not hold), with a message that shows
// the score, the grade, the gate's reasons, the worst faults with their
// time to recover, the seed and the command that replays the run. It
// returns the report either way.
//
// scenario is the name of a built-in scenario (package scenarios), the path
// of a scenario file, or a *scenario.Scenario (which Run copies, not changes).
// The system is a fresh fake cluster in virtual time unless opts say
// otherwise (WithCluster, WithRuntime, RealTime, …); the seed is the
// override (-arena.seed, ARENA_SEED), else WithSeed, else the scenario's
// config.seed, else drawn. When the scenario cannot be loaded or run,
// Run reports the error and stops the test (t.FailNow).
func Run(t TB, scen any, opts ...Option) *scenario.Report {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	o, err := collect("Run", runOptions, opts)
	if err != nil {
		return stop[scenario.Report](t, "Run", err)
	}
	if sim := simulationOf(t); sim != nil {
		if err := sim.adopt(o); err != nil {
			return stop[scenario.Report](t, "Run", err)
		}
	}
	if path := replayFile(); path != "" { // the file's seed, not the code's; no shrinking of a replay
		scen, o.seed, o.shrink = path, 0, nil
	}
	sc, _, err := loadScenario(scen, o.faults)
	if err == nil {
		err = scenario.Validate(sc, o.faults...)
	}
	if err != nil {
		return stop[scenario.Report](t, "Run", err)
	}
	seed, err := seedFor(o, sc.Config.Seed)
	if err != nil {
		return stop[scenario.Report](t, "Run", err)
	}
	sc.Config.Seed = seed
	if o.gate != nil {
		sc.Expect = stricter(sc.Expect, *o.gate)
	}
	if o.abort != nil {
		sc.Config.AbortWhen = *o.abort
	}
	sc.Config.AllowUnhealthyStart = sc.Config.AllowUnhealthyStart || o.unhealthy
	svc, err := newSystem(o, seed)
	if err != nil {
		return stop[scenario.Report](t, "Run", err)
	}
	rollbackAtCleanup(t, svc)
	rep, runErr := scenario.Run(testContext(t), svc, sc)
	if rep == nil {
		return stop[scenario.Report](t, "Run", runErr)
	}

	publish(t, Entries(rep), rep.Score)
	noteReport(t, rep.Report)
	files, err := reportFiles{json: rep, junit: rep.WriteJUnit, text: rep.WriteText}.write(t, o)
	if err != nil {
		t.Errorf("arenatest.Run: %v", err)
	}
	f := failure{head: fmt.Sprintf("scenario %s failed its gate", sc.Name), score: &rep.Score,
		reasons: rep.Gate.Reasons, report: rep.Report, seed: rep.Seed, files: files}
	switch {
	case runErr != nil:
		f.head = fmt.Sprintf("scenario %s did not finish: %v", sc.Name, runErr)
		t.Errorf("%s", f.text(t))
	case !rep.OK():
		if s := simulationOf(t); s != nil && s.held != nil { // SimulateRun reports it, and shrinks it, outside the bubble
			s.held(pendingFailure{f: f, sc: sc})
			break
		}
		if o.shrink != nil {
			f.shrunk = shrinkFailure(t, o, sc)
		}
		t.Errorf("%s", f.text(t))
	case !isBenchmark(t):
		t.Logf("arena: scenario %s passed its gate: %s (seed %d)%s", sc.Name, scoreText(rep.Score), rep.Seed, filesNote(files))
	}
	return rep
}

// stop reports an error that leaves no result and stops the test.
func stop[R any](t TB, fn string, err error) *R {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	t.Errorf("arenatest.%s: %v", fn, err)
	t.FailNow()
	return nil
}

// testContext is the test's context when it has one (it ends when the
// test does), else one cancelled at cleanup.
func testContext(t TB) context.Context {
	if c, ok := t.(contexter); ok {
		return c.Context()
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx
}

func filesNote(files string) string {
	if files == "" {
		return ""
	}
	return "; report " + files + ".json"
}
