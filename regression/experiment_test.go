package regression_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/regression"
	"github.com/ares-arena/arena/scenarios"
)

// brownout is a minute of chaos where retries matter: LLM failures, tool
// timeouts and MCP disconnects on workers chosen by the run's seed, and at
// 50s a 5s LLM brownout on every worker at once. Retries with backoff ride
// out most of it; without retries every failed attempt is a lost task, and
// the error rate takes the cluster below its health threshold.
var brownout = regression.ScheduleExperiment(time.Minute, brownoutSteps()...)

func brownoutSteps() []engine.Step {
	s := time.Second
	worker := func(at time.Duration, typ fault.Type, meta map[string]any) engine.Step {
		return engine.Step{At: at, Action: fault.Action{Type: typ, TargetID: "type:worker", Metadata: meta}}
	}
	steps := []engine.Step{
		worker(5*s, fault.LLMFailure, map[string]any{"error_type": "rate_limit", "duration": "6s"}),
		worker(6*s, fault.ToolTimeout, map[string]any{"timeout": "2s", "duration": "6s"}),
		worker(7*s, fault.MCPDisconnect, nil),
		worker(25*s, fault.LLMFailure, map[string]any{"error_type": "overloaded", "duration": "5s"}),
		worker(26*s, fault.ToolTimeout, map[string]any{"timeout": "2500ms", "duration": "5s"}),
		worker(40*s, fault.MCPDisconnect, nil),
		worker(41*s, fault.LLMFailure, map[string]any{"error_type": "timeout", "duration": "4s"}),
		worker(42*s, fault.MCPDisconnect, nil),
	}
	for _, id := range []string{"worker-1", "worker-2", "worker-3"} {
		steps = append(steps, engine.Step{At: 50 * s, Action: fault.Action{Type: fault.LLMFailure, TargetID: id,
			Metadata: map[string]any{"error_type": "overloaded", "duration": "5s"}}})
	}
	return steps
}

var (
	withRetries = fakes.Strategy{Name: "retries with backoff", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
	noRetries   = fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
)

// TestStrategyABRetriesAreBetter is the end-to-end A/B test (RegressionTester) on
// the fakes: retries with backoff against none, in both modes.
func TestStrategyABRetriesAreBetter(t *testing.T) {
	rt := regression.NewTester(nil, regression.NewExperimentScorer(brownout))
	for _, cfg := range []regression.Config{
		{Mode: regression.ModeFixed, Runs: 10},
		{Mode: regression.ModeSequential, MaxRuns: 40},
		{Mode: regression.ModeSequential, MaxRuns: 40, TwoSided: true},
	} {
		cfg.Baseline, cfg.Candidate, cfg.Seed = noRetries, withRetries, 1
		res, err := rt.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v (baseline %.1f ± %.1f, candidate %.1f ± %.1f)", cfg.Mode, res,
			res.Baseline.Mean, res.Baseline.SD, res.Candidate.Mean, res.Candidate.SD)
		if res.Verdict != regression.VerdictBetter || res.Wins != res.Candidate.Runs || res.Candidate.SD == 0 {
			t.Errorf("%s: %v with %d wins of %d; want better, winning every pair, with noise in both arms",
				cfg.Mode, res, res.Wins, res.Candidate.Runs)
		}
		// The other way round is a regression.
		cfg.Baseline, cfg.Candidate = withRetries, noRetries
		if res, err := rt.Run(context.Background(), cfg); err != nil || res.Verdict != regression.VerdictWorse {
			t.Errorf("%s, reversed: %v, %v; want worse", cfg.Mode, res, err)
		}
	}
}

// TestStrategyABIdenticalIsNotBetter: two identical configurations (one
// spelt out) get the same score on every seed, since a run's noise comes
// from its seed only: never Better.
func TestStrategyABIdenticalIsNotBetter(t *testing.T) {
	defaults := fakes.Strategy{Name: "defaults"}
	spelt := fakes.Strategy{Name: "defaults, spelt out", Options: []fakes.Option{fakes.WithHealing(fakes.DefaultHealing())}}
	rt := regression.NewTester(nil, regression.NewExperimentScorer(brownout))
	for _, c := range []struct {
		cfg  regression.Config
		want regression.Verdict
	}{
		{regression.Config{Mode: regression.ModeFixed, Runs: 12}, regression.VerdictNoDifference},
		{regression.Config{Mode: regression.ModeSequential, MaxRuns: 20}, regression.VerdictInconclusive},
	} {
		for _, pair := range [][2]fakes.Strategy{{defaults, spelt}, {noRetries, noRetries}} {
			c.cfg.Baseline, c.cfg.Candidate, c.cfg.Seed = pair[0], pair[1], 2
			res, err := rt.Run(context.Background(), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != c.want || res.Ties != res.Baseline.Runs || res.Delta != 0 || res.Baseline.SD == 0 {
				t.Errorf("%s %q vs %q: %v, %d ties; want %s, every pair tied, scores varying by seed",
					c.cfg.Mode, pair[0].Name, pair[1].Name, res, res.Ties, c.want)
			}
		}
	}
}

func TestExperimentScorerDeterministic(t *testing.T) {
	s := regression.NewExperimentScorer(brownout)
	score := func(seed uint64) float64 {
		v, err := s.Score(regression.Trial{Arm: regression.ArmBaseline, Strategy: &noRetries, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if a, b := score(42), score(42); a != b {
		t.Errorf("seed 42 scored %v then %v: a run must depend on its seed only", a, b)
	}
	if a, b := score(42), score(43); a == b {
		t.Errorf("seeds 42 and 43 both scored %v: the seed should move the workload", a)
	}
	rep, err := s.Report(context.Background(), noRetries, 42)
	if err != nil || rep.Seed != 42 || rep.Score.Total != score(42) {
		t.Errorf("Report: seed %d, score %v, %v", rep.Seed, rep.Score.Total, err)
	}
}

func TestExperimentScorerErrors(t *testing.T) {
	boom := errors.New("boom")
	failing := regression.NewExperimentScorer(func(context.Context, *engine.Service, uint64) (*engine.Report, error) { return nil, boom })
	empty := regression.NewExperimentScorer(func(context.Context, *engine.Service, uint64) (*engine.Report, error) { return &engine.Report{}, nil })
	trial := func(st any) regression.Trial {
		return regression.Trial{Arm: regression.ArmCandidate, Strategy: st, Seed: 7}
	}
	cases := []struct {
		name  string
		s     *regression.ExperimentScorer
		input any
		want  string
	}{
		{"not a trial", failing, "x", "regression: experiment scorer: input is string, want regression.Trial"},
		{"nil trial", failing, (*regression.Trial)(nil), "regression: experiment scorer: nil trial"},
		{"not a strategy", failing, trial(42), "regression: experiment scorer: candidate strategy is int, want a regression.System such as fakes.Strategy"},
		{"nil strategy", failing, trial((*fakes.Strategy)(nil)), "regression: experiment scorer: nil candidate strategy"},
		{"seeded strategy", failing, trial(fakes.Strategy{Name: "s", Options: []fakes.Option{fakes.WithSeed(3)}}),
			`strategy "s": options[0]: WithSeed: each run is seeded by its trial`},
		{"clocked strategy", failing, trial(fakes.Strategy{Name: "c", Options: []fakes.Option{fakes.WithWorkers(2), fakes.WithClock(clock.Real{})}}),
			`strategy "c": options[1]: WithClock: each run has its own virtual clock`},
		{"nil option", failing, trial(fakes.Strategy{Name: "n", Options: []fakes.Option{nil}}), `strategy "n": options[0]: nil option`},
		{"invalid option", failing, trial(fakes.Strategy{Name: "w", Options: []fakes.Option{fakes.WithWorkers(0)}}),
			`strategy "w": fakes: WithWorkers(0): need at least one worker`},
		{"experiment fails", failing, trial(noRetries), `strategy "no retries": seed 7: boom`},
		{"nothing measured", empty, trial(noRetries), `strategy "no retries": seed 7: run measured nothing`},
	}
	for _, tc := range cases {
		if _, err := tc.s.Score(tc.input); err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// The tester reports which run failed and how far it got.
	_, err := regression.NewTester(nil, failing).Run(context.Background(),
		regression.Config{Baseline: noRetries, Candidate: withRetries, Runs: 5, Parallelism: 1, Seed: 1})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "regression: scorer failed after 0 of 10 runs: baseline run 0 (seed ") {
		t.Errorf("Run: err = %v", err)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("NewStrategyScorer(nil) did not panic")
		}
	}()
	regression.NewExperimentScorer(nil)
}

func TestExperimentScorerCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := regression.NewExperimentScorer(brownout).ScoreContext(ctx, regression.Trial{Strategy: noRetries, Seed: 1})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: err = %v, want context.Canceled", err)
	}
}

// TestStrategyABOnScenarioAndSurvival: the same question asked through a
// built-in scenario and through a survival run of random worker faults.
func TestStrategyABOnScenarioAndSurvival(t *testing.T) {
	sc, err := scenarios.Load("llm-brownout")
	if err != nil {
		t.Fatal(err)
	}
	survival := engine.SurvivalConfig{
		Duration: 5 * time.Minute, Interval: 10 * time.Second,
		Mix:     map[fault.Type]float64{fault.LLMFailure: 1, fault.ToolTimeout: 1, fault.MCPDisconnect: 1},
		Targets: engine.TargetFilter{Types: []string{fault.TypeWorker}},
	}
	for name, exp := range map[string]regression.Experiment{
		"scenario llm-brownout": regression.ScenarioExperiment(sc),
		"survival":              regression.SurvivalExperiment(survival),
	} {
		res, err := regression.NewTester(nil, regression.NewExperimentScorer(exp)).Run(context.Background(),
			regression.Config{Baseline: noRetries, Candidate: withRetries, Mode: regression.ModeSequential, MaxRuns: 30, Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %v (baseline %.1f ± %.1f, candidate %.1f ± %.1f)", name, res,
			res.Baseline.Mean, res.Baseline.SD, res.Candidate.Mean, res.Candidate.SD)
		if res.Verdict != regression.VerdictBetter {
			t.Errorf("%s: %v, want better", name, res)
		}
	}
}

func TestScenarioExperimentNilPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "arena: regression.ScenarioExperiment: nil scenario" {
			t.Errorf("panic %v, want the nil-scenario panic", r)
		}
	}()
	regression.ScenarioExperiment(nil)
}
