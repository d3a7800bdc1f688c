package arenatest_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/regression"
)

var (
	retries   = fakes.Strategy{Name: "retries", Options: []fakes.Option{fakes.WithRetries(3, 100*time.Millisecond)}}
	noRetries = fakes.Strategy{Name: "no retries", Options: []fakes.Option{fakes.WithoutRetries()}}
)

func TestComparePasses(t *testing.T) {
	r := record("TestRetries", func(t arenatest.TB) {
		res := arenatest.Compare(t, regression.Config{Baseline: noRetries, Candidate: &retries, Mode: regression.ModeSequential},
			arenatest.WithSeed(1))
		if res == nil || res.Verdict != regression.VerdictBetter || res.Seed != 1 {
			t.Errorf("Compare = %v", res)
		}
	})
	if r.failed() {
		t.Fatal(r.errorText())
	}
	want := []string{`arena: A/B test of "retries" against "no retries": better: p=0.015 n=4+4 Δ=+5.7 g=10.16 [4.99, 15.33] (seed 1)`}
	if diff := cmp.Diff(want, r.logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	if want := []string{"arena.verdict=better", "arena.p=0.015", "arena.runs=4+4", "arena.delta=5.7", "arena.seed=1"}; !cmp.Equal(want, r.attrs) {
		t.Errorf("attrs %q, want %q", r.attrs, want)
	}
}

func TestCompareFails(t *testing.T) {
	dir := t.TempDir()
	r := record("TestRetries", func(t arenatest.TB) {
		res := arenatest.Compare(t, regression.Config{Baseline: retries, Candidate: noRetries, Mode: regression.ModeSequential, Seed: 1},
			arenatest.WithReportDir(dir))
		if res == nil || res.Verdict != regression.VerdictWorse {
			t.Errorf("Compare = %v, want the worse result", res)
		}
	})
	want := `arena: A/B test of "no retries" against "retries": verdict worse, want better
  worse: p=0.015 n=4+4 Δ=-5.7 g=-10.16 [-15.33, -4.99]
  baseline  "retries": mean 97.9, sd 0.1 over 4 runs
  candidate "no retries": mean 92.3, sd 0.7 over 4 runs
  pairs: 0 wins, 0 ties, 4 losses
seed: 1
rerun: go test -run '^TestRetries$' -arena.seed=1
   or: ARENA_SEED=1 go test -run '^TestRetries$'
report: ` + filepath.Join(dir, "TestRetries") + `.json (and .xml, .txt)`
	if diff := cmp.Diff([]string{want}, r.errors); diff != "" {
		t.Errorf("Compare's failure (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(filepath.Join(dir, "TestRetries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res regression.Result
	if err := json.Unmarshal(data, &res); err != nil || res.Verdict != regression.VerdictWorse || res.Candidate.Runs != 4 {
		t.Errorf("TestRetries.json: %v, %v", err, res)
	}
	// A regression guard passes what is not worse, and fails what is.
	r = record("TestGuard", func(t arenatest.TB) {
		arenatest.Compare(t, regression.Config{Baseline: retries, Candidate: retries, Runs: 4, Seed: 2}, arenatest.NoRegression())
	})
	if r.failed() {
		t.Errorf("NoRegression on identical strategies: %s", r.errorText())
	}
	r = record("TestGuard", func(t arenatest.TB) {
		arenatest.Compare(t, regression.Config{Baseline: retries, Candidate: noRetries, Runs: 4, Seed: 2}, arenatest.NoRegression())
	})
	if want := `arena: A/B test of "no retries" against "retries": verdict worse, want better, no_difference or inconclusive`; len(r.errors) != 1 || r.errors[0][:len(want)] != want {
		t.Errorf("NoRegression on a regression: %s", r.errorText())
	}
}

// TestCompareWithScorer: strategies of any kind, scored by your scorer.
func TestCompareWithScorer(t *testing.T) {
	scorer := regression.ScorerFunc(func(input any) (float64, error) {
		tr := input.(regression.Trial)
		rng := rand.New(rand.NewPCG(tr.Seed, 1))
		return tr.Strategy.(float64) + rng.NormFloat64(), nil
	})
	r := record("TestScorer", func(t arenatest.TB) {
		arenatest.Compare(t, regression.Config{Baseline: 70.0, Candidate: 75.0, Runs: 10, Seed: 3}, arenatest.WithScorer(scorer))
	})
	if r.failed() {
		t.Error(r.errorText())
	}
}

func TestCompareErrors(t *testing.T) {
	boom := regression.ScorerFunc(func(any) (float64, error) { return 0, errors.New("boom") })
	for _, tc := range []struct {
		name string
		cfg  regression.Config
		opts []arenatest.Option
		want string
	}{
		{"not strategies", regression.Config{Baseline: 1, Candidate: 2}, nil,
			"arenatest.Compare: Baseline is int: without WithScorer both strategies must be regression.System values, such as fakes.Strategy"},
		{"nil strategy", regression.Config{Baseline: retries, Candidate: (*fakes.Strategy)(nil)}, nil,
			"arenatest.Compare: Candidate is a nil *fakes.Strategy"},
		{"option for Run", regression.Config{Baseline: retries, Candidate: retries}, []arenatest.Option{arenatest.WithCluster()},
			"arenatest.Compare: WithCluster does not apply to Compare"},
		{"clock", regression.Config{Baseline: retries, Candidate: retries}, []arenatest.Option{arenatest.Virtual()},
			"arenatest.Compare: Virtual() does not apply to Compare"},
		{"unknown verdict", regression.Config{Baseline: retries, Candidate: retries}, []arenatest.Option{arenatest.WantVerdicts("maybe")},
			`arenatest.Compare: WantVerdicts: unknown verdict "maybe"`},
		{"bad config", regression.Config{Baseline: retries, Candidate: retries, Alpha: 2, Seed: 4}, nil,
			"arena: A/B test of \"retries\" against \"retries\": regression: alpha: want a level in (0, 0.5), got 2\nseed: 4\n" +
				"rerun: go test -run '^TestCompare$' -arena.seed=4\n   or: ARENA_SEED=4 go test -run '^TestCompare$'"},
		{"scorer fails", regression.Config{Baseline: 1, Candidate: 2, Runs: 3, Parallelism: 1, Seed: 4}, []arenatest.Option{arenatest.WithScorer(boom)},
			"arena: A/B test of 2 against 1: regression: scorer failed after 0 of 6 runs: baseline run 0 (seed 3979477524527301989): boom\nseed: 4\n" +
				"rerun: go test -run '^TestCompare$' -arena.seed=4\n   or: ARENA_SEED=4 go test -run '^TestCompare$'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := record("TestCompare", func(t arenatest.TB) {
				if res := arenatest.Compare(t, tc.cfg, tc.opts...); res != nil {
					t.Errorf("Compare returned a result")
				}
			})
			if diff := cmp.Diff([]string{tc.want}, r.errors); diff != "" || !r.stopped {
				t.Errorf("stopped %v, errors (-want +got):\n%s", r.stopped, diff)
			}
		})
	}
}
