package regression_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/regression"
)

// gauss scores each arm N(mean, sd), the noise drawn from the trial's seed
// and arm: deterministic per run, independent between the arms.
func gauss(base, cand, sd float64) regression.ScorerFunc {
	return func(in any) (float64, error) {
		tr := in.(regression.Trial)
		mu, salt := base, uint64(1)
		if tr.Arm == regression.ArmCandidate {
			mu, salt = cand, 2
		}
		return mu + sd*rand.New(rand.NewPCG(tr.Seed, salt)).NormFloat64(), nil
	}
}

func run(t *testing.T, s regression.Scorer, cfg regression.Config) *regression.Result {
	t.Helper()
	res, err := regression.NewTester(nil, s).Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run(%+v): %v", cfg, err)
	}
	return res
}

func TestRegressionFixedVerdicts(t *testing.T) {
	cases := []struct {
		name     string
		cand     float64 // candidate mean; the baseline is N(80, 5)
		twoSided bool
		runs     int
		want     regression.Verdict
		warn     error
	}{
		{"better", 85, false, 30, regression.VerdictBetter, nil},
		{"worse, one-sided, is still reported", 75, false, 30, regression.VerdictWorse, nil},
		{"same", 80, false, 60, regression.VerdictNoDifference, nil},
		{"same, too few runs", 80, false, 10, regression.VerdictNoDifference, regression.ErrTooFewRuns},
		{"better, two-sided", 85, true, 30, regression.VerdictBetter, nil},
		{"worse, two-sided", 75, true, 30, regression.VerdictWorse, nil},
		{"same, two-sided", 80, true, 70, regression.VerdictNoDifference, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, gauss(80, tc.cand, 5), regression.Config{Runs: tc.runs, TwoSided: tc.twoSided, Seed: 11})
			if res.Verdict != tc.want {
				t.Fatalf("verdict = %s, want %s: %v", res.Verdict, tc.want, res)
			}
			if res.Baseline.Runs != tc.runs || res.Candidate.Runs != tc.runs || len(res.Baseline.Scores) != tc.runs {
				t.Errorf("runs = %d+%d (%d scores), want %d each", res.Baseline.Runs, res.Candidate.Runs, len(res.Baseline.Scores), tc.runs)
			}
			significant := tc.want == regression.VerdictBetter || tc.want == regression.VerdictWorse
			if significant != (res.P < 0.05) {
				t.Errorf("p = %v for verdict %s", res.P, res.Verdict)
			}
			if tc.warn != nil && !slices.ContainsFunc(res.Warnings, func(e error) bool { return errors.Is(e, tc.warn) }) {
				t.Errorf("warnings = %v, want %v", res.Warnings, tc.warn)
			}
			if tc.warn == nil && len(res.Warnings) > 0 {
				t.Errorf("unexpected warnings %v", res.Warnings)
			}
			if res.Wins+res.Ties+res.Losses != tc.runs || res.Effect == nil || res.DF <= 0 {
				t.Errorf("wins/ties/losses %d/%d/%d, effect %v, df %v", res.Wins, res.Ties, res.Losses, res.Effect, res.DF)
			}
		})
	}
}

// TestRegressionWelchThroughRun: Run's fixed mode reproduces SciPy's
// reference Welch p-value (stats.ttest_ind(a, b, equal_var=False) with
// a = (1, 2, 3), b = (1.1, 2.9, 4.2): t = −0.68649512735572582,
// p = 0.53619490753126731, from scipy/stats/tests/test_stats.py), scores
// stored by run index.
func TestRegressionWelchThroughRun(t *testing.T) {
	cand, base := []float64{1, 2, 3}, []float64{1.1, 2.9, 4.2}
	s := regression.ScorerFunc(func(in any) (float64, error) {
		tr := in.(regression.Trial)
		if tr.Arm == regression.ArmCandidate {
			return cand[tr.Index], nil
		}
		return base[tr.Index], nil
	})
	res := run(t, s, regression.Config{Runs: 3, TwoSided: true, Seed: 1, Parallelism: 3})
	if math.Abs(res.P-0.53619490753126731) > 1e-6 || math.Abs(res.T+0.68649512735572582) > 1e-6 {
		t.Errorf("p = %.17g, t = %.17g; want 0.53619490753126731, −0.68649512735572582", res.P, res.T)
	}
	if !slices.Equal(res.Candidate.Scores, cand) || !slices.Equal(res.Baseline.Scores, base) {
		t.Errorf("scores = %v / %v, want them in run order", res.Baseline.Scores, res.Candidate.Scores)
	}
	// One-sided (the default): p of "better" is 1 − p/2 here (t < 0).
	one, err := regression.CompareScores(regression.Config{}, base, cand)
	if err != nil || math.Abs(one.P-(1-0.53619490753126731/2)) > 1e-6 || one.Verdict != regression.VerdictNoDifference {
		t.Errorf("one-sided: %v, %v", one, err)
	}
	if res.Wins != 0 || res.Losses != 3 || res.Ties != 0 {
		t.Errorf("wins/ties/losses = %d/%d/%d, want 0/0/3", res.Wins, res.Ties, res.Losses)
	}
}

// TestRegressionWorseIsNeverBetter: across effects and seeds, in both modes
// and both sidednesses, a candidate that is worse is never called VerdictBetter.
func TestRegressionWorseIsNeverBetter(t *testing.T) {
	for _, mode := range []regression.Mode{regression.ModeFixed, regression.ModeSequential} {
		for _, two := range []bool{false, true} {
			worse := 0
			for _, shift := range []float64{-0.2, -0.5, -1, -3} {
				for seed := uint64(1); seed <= 10; seed++ {
					res := run(t, gauss(0, shift, 1), regression.Config{Mode: mode, TwoSided: two, Runs: 40, MaxRuns: 60, Seed: seed})
					if res.Verdict == regression.VerdictBetter {
						t.Errorf("%s two-sided=%v shift %v seed %d: VerdictBetter: %v", mode, two, shift, seed, res)
					}
					if res.Verdict == regression.VerdictWorse {
						worse++
						if res.Delta >= 0 || res.P > 0.05 {
							t.Errorf("VerdictWorse with Δ %v, p %v", res.Delta, res.P)
						}
					}
				}
			}
			if worse < 20 {
				t.Errorf("%s two-sided=%v: only %d of 40 worse candidates found VerdictWorse", mode, two, worse)
			}
		}
	}
}

func TestRegressionSequential(t *testing.T) {
	res := run(t, gauss(70, 80, 10), regression.Config{Mode: regression.ModeSequential, MaxRuns: 130, Seed: 3})
	if res.Verdict != regression.VerdictBetter || res.Baseline.Runs >= 130 || res.Baseline.Runs != res.Candidate.Runs {
		t.Fatalf("d=1: %v, want VerdictBetter well before the cap", res)
	}
	if res.P > 0.05 || res.BayesFactor < 20 || res.Looks != res.Baseline.Runs-1 || math.Abs(res.P-1/res.BayesFactor) > 1e-12 {
		t.Errorf("p %v, LR %v, looks %d at n=%d: want p = 1/LR ≤ 0.05 and a look after every run from 2",
			res.P, res.BayesFactor, res.Looks, res.Baseline.Runs)
	}
	if len(res.Baseline.Scores) != res.Baseline.Runs {
		t.Errorf("%d scores for %d runs", len(res.Baseline.Scores), res.Baseline.Runs)
	}

	// No difference: runs to the cap and says so, never "no difference".
	aa := run(t, gauss(70, 70, 10), regression.Config{Mode: regression.ModeSequential, MaxRuns: 40, Seed: 3})
	if aa.Verdict != regression.VerdictInconclusive || aa.Baseline.Runs != 40 || aa.P <= 0.05 {
		t.Errorf("A/A: %v, want inconclusive at the cap of 40", aa)
	}

	if len(aa.Warnings) != 0 {
		t.Errorf("A/A warnings: %v", aa.Warnings)
	}
	// A cap so low that no data could reach the threshold is flagged.
	low := run(t, gauss(70, 90, 1), regression.Config{Mode: regression.ModeSequential, MaxRuns: 3, Seed: 3})
	if low.Verdict != regression.VerdictInconclusive || len(low.Warnings) != 1 || low.Warnings[0].Error() !=
		"too few runs: a sequential test capped at 3 runs per arm can never be significant at α 0.05; it needs ≥ 4" {
		t.Errorf("cap 3: %v, warnings %v", low, low.Warnings)
	}

	// Batches: looks only at multiples of Batch (and the cap).
	b := run(t, gauss(70, 70, 10), regression.Config{Mode: regression.ModeSequential, MaxRuns: 45, Batch: 10, Seed: 3})
	if b.Looks != 5 { // 10, 20, 30, 40, 45
		t.Errorf("batch 10, cap 45: %d looks, want 5", b.Looks)
	}
}

func TestRegressionConstantArms(t *testing.T) {
	constant := func(base, cand float64) regression.ScorerFunc {
		return func(in any) (float64, error) {
			if in.(regression.Trial).Arm == regression.ArmCandidate {
				return cand, nil
			}
			return base, nil
		}
	}
	cases := []struct {
		name       string
		mode       regression.Mode
		base, cand float64
		want       regression.Verdict
		p          float64
		runs       int
	}{
		{"fixed, equal", regression.ModeFixed, 90, 90, regression.VerdictNoDifference, 1, 2},
		{"fixed, better", regression.ModeFixed, 90, 95, regression.VerdictBetter, 0, 2},
		{"fixed, worse", regression.ModeFixed, 95, 90, regression.VerdictWorse, 0, 2},
		{"sequential, equal: to the cap", regression.ModeSequential, 90, 90, regression.VerdictNoDifference, 1, 20},
		// The likelihood ratio of t → ∞ at n = 4, its first past 1/α = 20:
		// 0.95·LR(0.5) + 0.05·LR(3) (internal/stats checks LR by quadrature).
		{"sequential, better", regression.ModeSequential, 90, 95, regression.VerdictBetter, 0.012212334663972188, 4},
		// With G, the Bayes factor of t → ∞ is (1 + n_δ g)^(ν/2): past 10 at n = 6.
		{"sequential G 0.25, better", regression.ModeSequential, 90, 95, regression.VerdictBetter, 1 / (2 * math.Pow(1.75, 5)), 6},
	}
	for _, tc := range cases {
		cfg := regression.Config{Mode: tc.mode, Runs: 2, MaxRuns: 20, Seed: 1}
		if strings.Contains(tc.name, "G 0.25") {
			cfg.G = 0.25
		}
		res := run(t, constant(tc.base, tc.cand), cfg)
		if res.Verdict != tc.want || math.Abs(res.P-tc.p) > 1e-12 || res.Baseline.Runs != tc.runs {
			t.Errorf("%s: %v (p=%v), want %s p=%v n=%d", tc.name, res, res.P, tc.want, tc.p, tc.runs)
		}
		if len(res.Warnings) != 1 || !errors.Is(res.Warnings[0], regression.ErrZeroVariance) {
			t.Errorf("%s: warnings %v, want one zero-variance warning", tc.name, res.Warnings)
		}
		if res.Effect != nil {
			t.Errorf("%s: effect %+v, want none for constant arms", tc.name, res.Effect)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Errorf("%s: JSON: %v", tc.name, err)
		}
	}
}

// TestRegressionParallelismKeepsIndexes: runs finish in a random order, yet
// every score lands at its run's index, and the answer (including where a
// sequential test stops) does not depend on Parallelism.
func TestRegressionParallelismKeepsIndexes(t *testing.T) {
	score := gauss(70, 76, 10)
	var mu sync.Mutex
	seeds := map[int]uint64{}
	jittery := regression.ScorerFunc(func(in any) (float64, error) {
		tr := in.(regression.Trial)
		mu.Lock()
		seeds[tr.Index] = tr.Seed
		mu.Unlock()
		time.Sleep(time.Duration(tr.Seed%5) * 50 * time.Microsecond)
		return score(in)
	})
	for _, mode := range []regression.Mode{regression.ModeFixed, regression.ModeSequential} {
		var want *regression.Result
		for _, p := range []int{1, 3, 8} {
			res := run(t, jittery, regression.Config{Mode: mode, Runs: 25, MaxRuns: 60, Parallelism: p, Seed: 5})
			res.WallTime = 0
			if want == nil {
				want = res
				continue
			}
			if diff := cmp.Diff(want, res, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s: parallelism %d changed the result (-p1 +p%d):\n%s", mode, p, p, diff)
			}
		}
		for i, v := range want.Candidate.Scores {
			if w, _ := score(regression.Trial{Arm: regression.ArmCandidate, Index: i, Seed: seeds[i]}); w != v {
				t.Fatalf("%s: candidate score %d = %v, want %v", mode, i, v, w)
			}
		}
	}
}

func TestRegressionTrialsArePaired(t *testing.T) {
	var mu sync.Mutex
	var trials []regression.Trial
	svc := engine.NewService(fault.NewInjector(nil, nil), nil, nil)
	s := regression.ScorerFunc(func(in any) (float64, error) {
		mu.Lock()
		defer mu.Unlock()
		trials = append(trials, in.(regression.Trial))
		return float64(len(trials)), nil
	})
	_, err := regression.NewTester(svc, s).Run(context.Background(),
		regression.Config{Baseline: "old", Candidate: "new", Runs: 10, Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 20 {
		t.Fatalf("%d trials, want 20", len(trials))
	}
	byIndex := map[int][]regression.Trial{}
	seeds := map[uint64]bool{}
	for _, tr := range trials {
		byIndex[tr.Index] = append(byIndex[tr.Index], tr)
		seeds[tr.Seed] = true
		if tr.Service != svc || tr.Seed == 0 || tr.Seed >= 1<<63 {
			t.Errorf("trial %+v: want the tester's service and a seed in [1, 2⁶³)", tr)
		}
		if (tr.Arm == regression.ArmBaseline) != (tr.Strategy == "old") {
			t.Errorf("trial %+v: wrong strategy for its arm", tr)
		}
	}
	for i, pair := range byIndex {
		if len(pair) != 2 || pair[0].Seed != pair[1].Seed || pair[0].Arm == pair[1].Arm {
			t.Errorf("index %d: %+v, want one run per arm with one seed", i, pair)
		}
	}
	if len(seeds) != 10 {
		t.Errorf("%d distinct seeds over 10 pairs, want 10", len(seeds))
	}
}

func TestRegressionScorerFailure(t *testing.T) {
	boom := errors.New("boom")
	var calls atomic.Int32
	s := regression.ScorerFunc(func(in any) (float64, error) {
		calls.Add(1)
		tr := in.(regression.Trial)
		if tr.Arm == regression.ArmCandidate && tr.Index == 7 {
			return 0, boom
		}
		return 50, nil
	})
	res, err := regression.NewTester(nil, s).Run(context.Background(), regression.Config{Runs: 20, Parallelism: 1, Seed: 9})
	if res != nil {
		t.Errorf("result %v, want none: no zero-filled scores", res)
	}
	var re *regression.Error
	if !errors.As(err, &re) || !errors.Is(err, boom) {
		t.Fatalf("err = %v, want a *RegressionError wrapping boom", err)
	}
	// In order: baseline 0, candidate 0, …, baseline 7 done (15 runs), then candidate 7 fails.
	want := "regression: scorer failed after 15 of 40 runs: candidate run 7 (seed "
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "): boom") || re.Completed != 15 {
		t.Errorf("err = %q, want %q…: boom", err, want)
	}
	if calls.Load() != 16 {
		t.Errorf("%d runs started, want 16: nothing after the failure", calls.Load())
	}
}

func TestRegressionBadScores(t *testing.T) {
	cases := []struct {
		name string
		s    regression.Scorer
		want string
	}{
		{"panic", regression.ScorerFunc(func(any) (float64, error) { panic("kaboom") }), "scorer panicked: kaboom"},
		{"NaN", constScorer(math.NaN()), "score NaN is not a finite number"},
		{"Inf", constScorer(math.Inf(-1)), "score -Inf is not a finite number"},
	}
	for _, tc := range cases {
		_, err := regression.NewTester(nil, tc.s).Run(context.Background(), regression.Config{Runs: 5, Parallelism: 2})
		if err == nil || !strings.Contains(err.Error(), "regression: scorer failed after") || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want …%s", tc.name, err, tc.want)
		}
	}
}

func TestRegressionCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int32
	s := regression.ContextScorerFunc(func(ctx context.Context, _ any) (float64, error) {
		if n.Add(1) == 10 {
			cancel()
			<-ctx.Done() // a context-aware run stops early
			return 0, ctx.Err()
		}
		return 1 + float64(n.Load()%3), nil
	})
	res, err := regression.NewTester(nil, s).Run(ctx, regression.Config{Mode: regression.ModeSequential, MaxRuns: 50, Parallelism: 1})
	if res != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, %v; want no result and context.Canceled", res, err)
	}
	if want := "regression: cancelled after 9 of 100 runs: context canceled"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}

	_, err = regression.NewTester(nil, s).Run(ctx, regression.Config{Runs: 5})
	if want := "regression: cancelled after 0 of 10 runs: context canceled"; err == nil || err.Error() != want {
		t.Errorf("cancelled before the start: err = %v, want %q", err, want)
	}
}

// constantsAnswer is where a default sequential test of two constant arms
// that differ (90 vs 95) has its answer: VerdictBetter at the first n whose
// likelihood ratio can reach 1/α (4).
func constantsAnswer(t *testing.T) int {
	t.Helper()
	res, err := regression.CompareScores(regression.Config{Mode: regression.ModeSequential},
		slices.Repeat([]float64{90}, 100), slices.Repeat([]float64{95}, 100))
	if err != nil || res.Verdict != regression.VerdictBetter || res.Baseline.Runs < 3 {
		t.Fatalf("CompareScores of constants: %v, %v; want better after a few runs", res, err)
	}
	return res.Baseline.Runs
}

// TestRegressionStopsRunsInFlight: when a sequential test has its answer,
// the runs still in flight see their context end, and Run waits for them
// (goleak checks that none is left behind).
func TestRegressionStopsRunsInFlight(t *testing.T) {
	answer := constantsAnswer(t)
	var started, cancelled atomic.Int32
	hung := make(chan struct{})
	var once sync.Once
	s := regression.ContextScorerFunc(func(ctx context.Context, in any) (float64, error) {
		tr := in.(regression.Trial)
		switch {
		case tr.Index >= answer: // after the answer: hangs until cancelled
			started.Add(1)
			once.Do(func() { close(hung) })
			<-ctx.Done()
			cancelled.Add(1)
			return 0, ctx.Err()
		case tr.Index == answer-1 && tr.Arm == regression.ArmCandidate:
			<-hung // the last run the answer needs ends once a later one is in flight
		}
		if tr.Arm == regression.ArmCandidate {
			return 95, nil
		}
		return 90, nil
	})
	res := run(t, s, regression.Config{Mode: regression.ModeSequential, MaxRuns: 100, Parallelism: 4, Seed: 2})
	if res.Verdict != regression.VerdictBetter || res.Baseline.Runs != answer {
		t.Errorf("%v, want better at n=%d", res, answer)
	}
	if started.Load() == 0 || cancelled.Load() != started.Load() {
		t.Errorf("%d runs after the answer started, %d cancelled: want all of them cancelled", started.Load(), cancelled.Load())
	}
}

func TestRegressionConfigErrors(t *testing.T) {
	cases := []struct {
		cfg  regression.Config
		want string
	}{
		{regression.Config{Mode: "adaptive"}, `regression: mode: unknown mode "adaptive" (want "fixed" or "sequential")`},
		{regression.Config{Alpha: 0.5}, "regression: alpha: want a level in (0, 0.5), got 0.5"},
		{regression.Config{Alpha: -1}, "regression: alpha: want a level in (0, 0.5), got -1"},
		{regression.Config{MDE: -0.5}, "regression: mde: want an effect size in (0, 100] standard deviations, got -0.5"},
		{regression.Config{MDE: 101}, "regression: mde: want an effect size in (0, 100] standard deviations, got 101"},
		{regression.Config{MDE: math.NaN()}, "regression: mde: want an effect size in (0, 100] standard deviations, got NaN"},
		{regression.Config{G: -1}, "regression: g: want a finite positive prior variance, got -1"},
		{regression.Config{G: math.Inf(1)}, "regression: g: want a finite positive prior variance, got +Inf"},
		{regression.Config{Runs: 1}, "regression: runs: need at least 2 runs per arm, got 1"},
		{regression.Config{Runs: -3}, "regression: runs: negative count -3"},
		{regression.Config{Mode: regression.ModeSequential, MaxRuns: 1}, "regression: max_runs: need at least 2 runs per arm, got 1"},
		{regression.Config{Mode: regression.ModeSequential, MinRuns: 1}, "regression: min_runs: need at least 2 runs per arm, got 1"},
		{regression.Config{Parallelism: -1}, "regression: parallelism: negative count -1"},
		{regression.Config{Mode: regression.ModeSequential, MinRuns: 10, MaxRuns: 5}, "regression: min_runs: 10 is above max_runs 5"},
	}
	for _, tc := range cases {
		_, err := regression.NewTester(nil, constScorer(1)).Run(context.Background(), tc.cfg)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Run(%+v) error = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "arena: ") {
			t.Errorf("NewRegressionTester(nil, nil): panic %v, want an arena: panic", r)
		}
	}()
	regression.NewTester(nil, nil)
}

func TestRegressionDefaults(t *testing.T) {
	var n atomic.Int32
	s := regression.ScorerFunc(func(any) (float64, error) { return float64(n.Add(1) % 5), nil })
	res := run(t, s, regression.Config{})
	// One-sided α 0.05, MDE 0.5, 80% power: 51 runs per arm.
	if res.Baseline.Runs != 51 || res.Mode != regression.ModeFixed || res.Alpha != 0.05 || res.TwoSided || res.Seed == 0 {
		t.Errorf("defaults: %d runs, mode %s, α %v, two-sided %v, seed %d", res.Baseline.Runs, res.Mode, res.Alpha, res.TwoSided, res.Seed)
	}
	seq := run(t, s, regression.Config{Mode: regression.ModeSequential, Seed: 1})
	if seq.Baseline.Runs != 129 { // 1.5 × 86, the two-sided fixed n for 90% power at 0.5
		t.Errorf("sequential default cap: %d runs, want 129", seq.Baseline.Runs)
	}
}

func TestRegressionResultJSONAndString(t *testing.T) {
	res := run(t, gauss(80, 86, 5), regression.Config{Runs: 18, Seed: 4})
	res.WallTime = clock.Duration(1500 * time.Millisecond)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(b, &keys)
	for _, k := range []string{"verdict", "mode", "two_sided", "alpha", "p", "t", "df", "baseline", "candidate",
		"delta", "effect", "wins", "ties", "losses", "seed", "warnings", "wall_time"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("JSON has no %q: %s", k, b)
		}
	}
	if string(keys["wall_time"]) != `"1.5s"` || string(keys["verdict"]) != `"better"` {
		t.Errorf("wall_time %s, verdict %s", keys["wall_time"], keys["verdict"])
	}
	var back regression.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res, &back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}

	// Warnings travel as text.
	warned := run(t, gauss(80, 80, 5), regression.Config{Runs: 5, Seed: 4})
	wb, _ := json.Marshal(warned)
	if !strings.Contains(string(wb), `"warnings":["too few runs: need ≥ 51 runs per arm for 80% power at effect size 0.5, have 5; no difference is not evidence of equivalence"]`) {
		t.Errorf("warnings in JSON: %s", wb)
	}

	e := &regression.Result{Verdict: regression.VerdictBetter, P: 0.0123, Delta: 4.1,
		Baseline: regression.ArmSummary{Runs: 18}, Candidate: regression.ArmSummary{Runs: 18},
		Effect: &regression.EffectSize{G: 0.834, Low: 0.2149, High: 1.452, Level: 0.95}}
	if got, want := e.String(), "better: p=0.012 n=18+18 Δ=+4.1 g=0.83 [0.21, 1.45]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	e.Verdict, e.Effect, e.P, e.Delta = regression.VerdictNoDifference, nil, 1, 0
	if got, want := e.String(), "no difference: p=1 n=18+18 Δ=+0"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestCompareScores(t *testing.T) {
	base := []float64{61, 70, 64, 66, 72, 68, 63, 69, 65, 71}
	cand := []float64{75, 78, 73, 80, 76, 79, 74, 77, 81, 72}
	res, err := regression.CompareScores(regression.Config{Mode: regression.ModeSequential}, base, cand)
	if err != nil || res.Verdict != regression.VerdictBetter || res.Baseline.Runs >= 10 || res.Seed != 0 {
		t.Errorf("sequential: %v, %v; want better before the 10th pair", res, err)
	}
	// Fixed mode accepts arms of different lengths; pairs are then not counted.
	res, err = regression.CompareScores(regression.Config{}, base, cand[:7])
	if err != nil || res.Verdict != regression.VerdictBetter || res.Candidate.Runs != 7 || res.Wins+res.Ties+res.Losses != 0 {
		t.Errorf("fixed, unequal: %v, %v", res, err)
	}
	for _, c := range []struct {
		cfg        regression.Config
		base, cand []float64
		want       string
	}{
		{regression.Config{}, base[:1], cand, "regression: baseline: need at least 2 scores, got 1"},
		{regression.Config{}, base, []float64{1, math.NaN()}, "regression: candidate[1]: score NaN is not a finite number"},
		{regression.Config{Mode: regression.ModeSequential}, base, cand[:5], "regression: sequential mode needs paired scores, got 10 baseline and 5 candidate"},
	} {
		if _, err := regression.CompareScores(c.cfg, c.base, c.cand); err == nil || err.Error() != c.want {
			t.Errorf("CompareScores error = %v, want %q", err, c.want)
		}
	}
}

func TestRegressionRecordsEvent(t *testing.T) {
	store := events.NewMemoryStore()
	defer store.Close()
	svc := engine.NewService(fault.NewInjector(nil, nil), store, nil)
	res, err := regression.NewTester(svc, gauss(50, 60, 5)).Run(context.Background(), regression.Config{Runs: 10, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := store.Read(context.Background(), events.Filter{Types: []string{regression.EventCompleted}}, 0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events = %v, %v; want one %s", evs, err, regression.EventCompleted)
	}
	var got struct {
		Verdict regression.Verdict `json:"verdict"`
		Runs    [2]int             `json:"runs"`
		Seed    uint64             `json:"seed"`
	}
	if err := json.Unmarshal(evs[0].Data, &got); err != nil || got.Verdict != res.Verdict || got.Runs != [2]int{10, 10} || got.Seed != 8 {
		t.Errorf("event payload %s", evs[0].Data)
	}
}

// Issue 14 (8a): a scorer that fails from run n on, after constant scores
// 90 vs 95 have already decided at n (constantsAnswer), with one early run
// slow. Runs
// before the failure are still collected, so Parallelism 8 answers as
// Parallelism 1 does.
func TestRegressionFailureAfterTheAnswerIsParallelismIndependent(t *testing.T) {
	boom := errors.New("boom")
	answer := constantsAnswer(t)
	results := map[int]string{}
	for _, par := range []int{1, 8} {
		failed := make(chan struct{})
		var once sync.Once
		s := regression.ContextScorerFunc(func(ctx context.Context, in any) (float64, error) {
			tr := in.(regression.Trial)
			if tr.Index >= answer {
				once.Do(func() { close(failed) })
				return 0, boom
			}
			if par > 1 && tr.Arm == regression.ArmBaseline && tr.Index == 2 {
				// Slow: still running when the failure comes in (a
				// collector that cancels everything then ends it here).
				<-failed
				select {
				case <-ctx.Done():
					return 0, ctx.Err()
				case <-time.After(50 * time.Millisecond):
				}
			}
			if tr.Arm == regression.ArmCandidate {
				return 95, nil
			}
			return 90, nil
		})
		res, err := regression.NewTester(nil, s).Run(context.Background(),
			regression.Config{Mode: regression.ModeSequential, MinRuns: answer, MaxRuns: 20, Parallelism: par, Seed: 5})
		if err != nil {
			t.Fatalf("Parallelism %d: %v, want the answer of the first %d pairs", par, err, answer)
		}
		res.WallTime = 0
		b, _ := json.Marshal(res)
		results[par] = string(b)
		if res.Verdict != regression.VerdictBetter || res.Baseline.Runs != answer {
			t.Errorf("Parallelism %d: %s after %d runs, want better after %d", par, res.Verdict, res.Baseline.Runs, answer)
		}
	}
	if results[1] != results[8] {
		t.Errorf("results differ:\nParallelism 1: %s\nParallelism 8: %s", results[1], results[8])
	}
}

// TestRegressionHoldsService: an A/B test on a service holds it as a run
// would. Its own trials' runs (started with the scorer's context) are
// admitted; a run or an action from anywhere else is refused, naming the
// test, so nothing lands between two trials; the service is free after.
func TestRegressionHoldsService(t *testing.T) {
	svc, err := fakes.Strategy{Name: "no healing", Options: []fakes.Option{fakes.WithoutHealing()}}.NewService(1)
	if err != nil {
		t.Fatal(err)
	}
	step := engine.Step{At: time.Second, Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1",
		Metadata: map[string]any{"duration": "2s"}}}
	outside := func(t *testing.T, what string, err error) {
		t.Helper()
		var ra *engine.RunActiveError
		if !errors.As(err, &ra) || ra.Origin != engine.OriginRegression || !strings.Contains(err.Error(), "an A/B test (run-") {
			t.Errorf("%s during the A/B test: %v, want a RunActiveError naming the A/B test", what, err)
		}
	}
	var trials atomic.Int64
	scorer := regression.ContextScorerFunc(func(ctx context.Context, in any) (float64, error) {
		tr := in.(regression.Trial)
		if trials.Add(1) == 1 {
			outside(t, "Execute", svc.Execute(context.Background(), step.Action).Err)
			outside(t, "Admit", svc.Admit(step.Action))
			_, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: 5 * time.Second}, step)
			outside(t, "a run with another context", err)
			_, err = regression.NewTester(svc, regression.ScorerFunc(func(any) (float64, error) { return 1, nil })).
				Run(context.Background(), regression.Config{Runs: 2, Parallelism: 1})
			outside(t, "a second A/B test", err)
		}
		rep, err := engine.RunSchedule(ctx, tr.Service, engine.RunOptions{Seed: tr.Seed, Duration: 5 * time.Second}, step)
		if err != nil {
			return 0, err
		}
		if len(rep.Faults) != 1 || rep.Faults[0].Lifted == nil {
			return 0, fmt.Errorf("trial run: faults %+v, want the pause, lifted", rep.Faults)
		}
		return rep.Score.Total, nil
	})
	if _, err := regression.NewTester(svc, scorer).Run(context.Background(),
		regression.Config{Runs: 2, Parallelism: 1, Seed: 1}); err != nil {
		t.Fatalf("A/B test whose trials run on its service: %v", err)
	}
	if trials.Load() != 4 {
		t.Errorf("%d trials, want 4", trials.Load())
	}
	if err := svc.RunActive(); err != nil {
		t.Errorf("RunActive() after the A/B test = %v, want nil", err)
	}
	if res := svc.Execute(context.Background(), fault.Action{Type: fault.KillAgent, TargetID: "worker-2"}); !res.Success {
		t.Errorf("Execute after the A/B test = %+v", res)
	}

	// A plain Scorer has no context to start its runs with: they are
	// refused, and the test says so.
	plain := regression.ScorerFunc(func(in any) (float64, error) {
		_, err := engine.RunSchedule(context.Background(), in.(regression.Trial).Service, engine.RunOptions{Seed: 1, Duration: 5 * time.Second}, step)
		return 0, err
	})
	_, err = regression.NewTester(svc, plain).Run(context.Background(), regression.Config{Runs: 2, Parallelism: 1})
	var re *regression.Error
	if !errors.As(err, &re) || !errors.Is(err, engine.ErrRunActive) {
		t.Errorf("A/B test of a plain Scorer running on Trial.Service = %v, want a RegressionError wrapping ErrRunActive", err)
	}
}
