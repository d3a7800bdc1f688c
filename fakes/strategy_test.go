package fakes_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/scenarios"
)

// brownout is a minute of chaos where retries matter: LLM failures, tool
// timeouts and MCP disconnects on workers chosen by the run's seed, and at
// 50s a 5s LLM brownout on every worker at once. Retries with backoff ride
// out most of it; without retries every failed attempt is a lost task, and
// the error rate takes the cluster below its health threshold.
var brownout = fakes.ScheduleExperiment(time.Minute, brownoutSteps()...)

func brownoutSteps() []arena.Step {
	s := time.Second
	worker := func(at time.Duration, typ arena.ActionType, meta map[string]any) arena.Step {
		return arena.Step{At: at, Action: arena.Action{Type: typ, TargetID: "type:worker", Metadata: meta}}
	}
	steps := []arena.Step{
		worker(5*s, arena.ActionLLMFailure, map[string]any{"error_type": "rate_limit", "duration": "6s"}),
		worker(6*s, arena.ActionToolTimeout, map[string]any{"timeout": "2s", "duration": "6s"}),
		worker(7*s, arena.ActionMCPDisconnect, nil),
		worker(25*s, arena.ActionLLMFailure, map[string]any{"error_type": "overloaded", "duration": "5s"}),
		worker(26*s, arena.ActionToolTimeout, map[string]any{"timeout": "2500ms", "duration": "5s"}),
		worker(40*s, arena.ActionMCPDisconnect, nil),
		worker(41*s, arena.ActionLLMFailure, map[string]any{"error_type": "timeout", "duration": "4s"}),
		worker(42*s, arena.ActionMCPDisconnect, nil),
	}
	for _, id := range []string{"worker-1", "worker-2", "worker-3"} {
		steps = append(steps, arena.Step{At: 50 * s, Action: arena.Action{Type: arena.ActionLLMFailure, TargetID: id,
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
	rt := arena.NewRegressionTester(nil, fakes.NewStrategyScorer(brownout))
	for _, cfg := range []arena.RegressionConfig{
		{Mode: arena.ModeFixed, Runs: 10},
		{Mode: arena.ModeSequential, MaxRuns: 40},
		{Mode: arena.ModeSequential, MaxRuns: 40, TwoSided: true},
	} {
		cfg.Baseline, cfg.Candidate, cfg.Seed = noRetries, withRetries, 1
		res, err := rt.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v (baseline %.1f ± %.1f, candidate %.1f ± %.1f)", cfg.Mode, res,
			res.Baseline.Mean, res.Baseline.SD, res.Candidate.Mean, res.Candidate.SD)
		if res.Verdict != arena.VerdictBetter || res.Wins != res.Candidate.Runs || res.Candidate.SD == 0 {
			t.Errorf("%s: %v with %d wins of %d; want better, winning every pair, with noise in both arms",
				cfg.Mode, res, res.Wins, res.Candidate.Runs)
		}
		// The other way round is a regression.
		cfg.Baseline, cfg.Candidate = withRetries, noRetries
		if res, err := rt.Run(context.Background(), cfg); err != nil || res.Verdict != arena.VerdictWorse {
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
	rt := arena.NewRegressionTester(nil, fakes.NewStrategyScorer(brownout))
	for _, c := range []struct {
		cfg  arena.RegressionConfig
		want arena.RegressionVerdict
	}{
		{arena.RegressionConfig{Mode: arena.ModeFixed, Runs: 12}, arena.VerdictNoDifference},
		{arena.RegressionConfig{Mode: arena.ModeSequential, MaxRuns: 20}, arena.VerdictInconclusive},
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

func TestStrategyScorerDeterministic(t *testing.T) {
	s := fakes.NewStrategyScorer(brownout)
	score := func(seed uint64) float64 {
		v, err := s.Score(arena.Trial{Arm: arena.ArmBaseline, Strategy: &noRetries, Seed: seed})
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

func TestStrategyScorerErrors(t *testing.T) {
	boom := errors.New("boom")
	failing := fakes.NewStrategyScorer(func(context.Context, *arena.Service, uint64) (*arena.Report, error) { return nil, boom })
	empty := fakes.NewStrategyScorer(func(context.Context, *arena.Service, uint64) (*arena.Report, error) { return &arena.Report{}, nil })
	trial := func(st any) arena.Trial { return arena.Trial{Arm: arena.ArmCandidate, Strategy: st, Seed: 7} }
	cases := []struct {
		name  string
		s     *fakes.StrategyScorer
		input any
		want  string
	}{
		{"not a trial", failing, "x", "fakes: strategy scorer: input is string, want arena.Trial"},
		{"nil trial", failing, (*arena.Trial)(nil), "fakes: strategy scorer: nil trial"},
		{"not a strategy", failing, trial(42), "fakes: strategy scorer: candidate strategy is int, want fakes.Strategy"},
		{"nil strategy", failing, trial((*fakes.Strategy)(nil)), "fakes: strategy scorer: nil strategy"},
		{"seeded strategy", failing, trial(fakes.Strategy{Name: "s", Options: []fakes.Option{fakes.WithSeed(3)}}),
			`strategy "s": options[0]: WithSeed: each run is seeded by its trial`},
		{"clocked strategy", failing, trial(fakes.Strategy{Name: "c", Options: []fakes.Option{fakes.WithWorkers(2), fakes.WithClock(arena.RealClock{})}}),
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
	_, err := arena.NewRegressionTester(nil, failing).Run(context.Background(),
		arena.RegressionConfig{Baseline: noRetries, Candidate: withRetries, Runs: 5, Parallelism: 1, Seed: 1})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "regression: scorer failed after 0 of 10 runs: baseline run 0 (seed ") {
		t.Errorf("Run: err = %v", err)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("NewStrategyScorer(nil) did not panic")
		}
	}()
	fakes.NewStrategyScorer(nil)
}

func TestStrategyScorerCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := fakes.NewStrategyScorer(brownout).ScoreContext(ctx, arena.Trial{Strategy: noRetries, Seed: 1})
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
	survival := arena.SurvivalConfig{
		Duration: 5 * time.Minute, Interval: 10 * time.Second,
		Mix:     map[arena.ActionType]float64{arena.ActionLLMFailure: 1, arena.ActionToolTimeout: 1, arena.ActionMCPDisconnect: 1},
		Targets: arena.TargetFilter{Types: []string{arena.TypeWorker}},
	}
	for name, exp := range map[string]fakes.Experiment{
		"scenario llm-brownout": fakes.ScenarioExperiment(sc),
		"survival":              fakes.SurvivalExperiment(survival),
	} {
		res, err := arena.NewRegressionTester(nil, fakes.NewStrategyScorer(exp)).Run(context.Background(),
			arena.RegressionConfig{Baseline: noRetries, Candidate: withRetries, Mode: arena.ModeSequential, MaxRuns: 30, Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %v (baseline %.1f ± %.1f, candidate %.1f ± %.1f)", name, res,
			res.Baseline.Mean, res.Baseline.SD, res.Candidate.Mean, res.Candidate.SD)
		if res.Verdict != arena.VerdictBetter {
			t.Errorf("%s: %v, want better", name, res)
		}
	}
}

func TestScenarioExperimentNilPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "fakes: ScenarioExperiment: nil scenario" {
			t.Errorf("panic %v, want the nil-scenario panic", r)
		}
	}()
	fakes.ScenarioExperiment(nil)
}
