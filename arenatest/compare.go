package arenatest

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/regression"
	"github.com/ares-arena/arena/scenarios"
)

var compareOptions = []string{"WithSeed", "WithReportDir", "WithScorer", "WithExperiment", "WantVerdicts"}

// DefaultScenario is the built-in scenario of DefaultExperiment.
const DefaultScenario = "everything-at-once"

// DefaultExperiment is what each run of a fakes.Strategy does when Compare
// (or matchers.SignificantlyBetterThan) is not given an experiment: the
// built-in scenario everything-at-once, seeded by the run. It lands the
// thirteen original fault types (not the network ones), so a strategy that
// heals any of them better scores better.
func DefaultExperiment() regression.Experiment {
	sc, err := scenarios.Load(DefaultScenario)
	if err != nil {
		panic("arena: built-in scenario " + DefaultScenario + ": " + err.Error())
	}
	return regression.ScenarioExperiment(sc)
}

// Compare runs an A/B test of cfg.Candidate against cfg.Baseline
// (regression.Tester) and fails t unless the verdict is one that
// WantVerdicts allows: by default only regression.VerdictBetter, "the candidate is
// significantly better". The message shows the verdict with its p-value
// and effect, both arms' means, the paired wins and losses, the warnings,
// the seed and the command that replays the test.
//
// The strategies are scored by WithScorer, or, when both build their own
// system (regression.System, such as fakes.Strategy), by
// regression.ExperimentScorer over WithExperiment's experiment
// (DefaultExperiment by default): each run is a fresh system seeded by the
// run (for fakes.Strategy a fake cluster in virtual time). The seed is the override
// (-arena.seed, ARENA_SEED), else WithSeed, else cfg.Seed, else drawn.
// A test that cannot be run (bad config, a run that cannot be scored) is
// reported and stops the test (t.FailNow).
func Compare(t TB, cfg regression.Config, opts ...Option) *regression.Result {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	o, err := collect("Compare", compareOptions, opts)
	if err != nil {
		return stop[regression.Result](t, "Compare", err)
	}
	seed, err := seedFor(o, cfg.Seed)
	if err != nil {
		return stop[regression.Result](t, "Compare", err)
	}
	cfg.Seed = seed
	scorer := o.scorer
	if scorer == nil {
		if err := strategies(cfg); err != nil {
			return stop[regression.Result](t, "Compare", err)
		}
		exp := o.experiment
		if exp == nil {
			exp = DefaultExperiment()
		}
		scorer = regression.NewExperimentScorer(exp)
	}
	c := comparison{cfg: cfg, want: o.verdicts, name: t.Name()}
	if len(c.want) == 0 {
		c.want = []regression.Verdict{regression.VerdictBetter}
	}
	res, err := regression.NewTester(nil, scorer).Run(testContext(t), cfg)
	if err != nil {
		t.Errorf("%s", failure{head: fmt.Sprintf("A/B test %s: %v", c.title(), err), seed: seed}.text(t))
		t.FailNow()
		return nil
	}
	c.res = res

	publish(t, Entries(res), engine.Score{})
	files, err := reportFiles{json: res, junit: c.writeJUnit, text: func(w io.Writer) error {
		_, err := io.WriteString(w, c.text())
		return err
	}}.write(t, o)
	if err != nil {
		t.Errorf("arenatest.Compare: %v", err)
	}
	if !c.passed() {
		t.Errorf("%s", failure{head: fmt.Sprintf("A/B test %s: verdict %s, want %s", c.title(), res.Verdict, verdictList(c.want)),
			lines: c.lines(), seed: res.Seed, files: files}.text(t))
	} else if !isBenchmark(t) {
		t.Logf("arena: A/B test %s: %s (seed %d)%s", c.title(), res, res.Seed, filesNote(files))
	}
	return res
}

// strategies checks that both arms are systems that build themselves
// (regression.System, such as fakes.Strategy), which is what Compare can
// score without WithScorer.
func strategies(cfg regression.Config) error {
	for _, arm := range []struct {
		name string
		v    any
	}{{"Baseline", cfg.Baseline}, {"Candidate", cfg.Candidate}} {
		if _, ok := regression.AsSystem(arm.v); !ok {
			if _, typed := arm.v.(regression.System); typed {
				return fmt.Errorf("%s is a nil %T", arm.name, arm.v)
			}
			return fmt.Errorf("%s is %T: without WithScorer both strategies must be regression.System values, such as fakes.Strategy", arm.name, arm.v)
		}
	}
	return nil
}

// comparison is an A/B test with what it must answer.
type comparison struct {
	cfg  regression.Config
	want []regression.Verdict
	res  *regression.Result
	name string // the test's
}

func (c comparison) passed() bool { return slices.Contains(c.want, c.res.Verdict) }

// title: "of \"retries\" against \"no retries\"".
func (c comparison) title() string {
	return fmt.Sprintf("of %s against %s", strategyName(c.cfg.Candidate), strategyName(c.cfg.Baseline))
}

// lines are the detail of a result, as the failure message and the text
// report show it.
func (c comparison) lines() []string {
	r := c.res
	out := []string{
		r.String(),
		fmt.Sprintf("baseline  %s: mean %.1f, sd %.1f over %d runs", strategyName(c.cfg.Baseline), r.Baseline.Mean, r.Baseline.SD, r.Baseline.Runs),
		fmt.Sprintf("candidate %s: mean %.1f, sd %.1f over %d runs", strategyName(c.cfg.Candidate), r.Candidate.Mean, r.Candidate.SD, r.Candidate.Runs),
	}
	if r.Wins+r.Ties+r.Losses > 0 {
		out = append(out, fmt.Sprintf("pairs: %d wins, %d ties, %d losses", r.Wins, r.Ties, r.Losses))
	}
	for _, w := range r.Warnings {
		out = append(out, "warning: "+w.Error())
	}
	return out
}

func (c comparison) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "A/B test %s: %s (want %s), seed %d\n", c.title(), c.res.Verdict, verdictList(c.want), c.res.Seed)
	for _, l := range c.lines() {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	return b.String()
}

// strategyName names a strategy in messages: a fakes.Strategy by its quoted
// Name, a fmt.Stringer by its String, anything else as %v.
func strategyName(s any) string {
	switch v := s.(type) {
	case fakes.Strategy:
		return fmt.Sprintf("%q", v.Name)
	case *fakes.Strategy:
		if v != nil {
			return fmt.Sprintf("%q", v.Name)
		}
	case fmt.Stringer:
		return fmt.Sprintf("%q", v.String())
	case string:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprintf("%v", s)
}

// verdictList: "better", "better or no_difference", "better, no_difference or inconclusive".
func verdictList(vs []regression.Verdict) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
