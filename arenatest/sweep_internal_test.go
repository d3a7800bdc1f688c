package arenatest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ares-arena/arena/engine"
)

func TestPlanSweep(t *testing.T) {
	defer seedsFlag.Value.Set("")
	defer shardFlag.Value.Set("")
	for _, tc := range []struct {
		seeds, shard, env string
		want              string
	}{
		{"", "", "", "[1 2 3 4 5 6 7 8 9 10]"},
		{"7", "", "", "[1 2 3 4 5 6 7]"},
		{"10", "2/3", "", "[2 5 8]"},
		{"10", "3/3", "", "[3 6 9]"},
		{"", "", "4", "[1 2 3 4]"},
		{"x", "", "", `-arena.seeds: "x" is not a number of seeds (want 1 to 1000000000)`},
		{"0", "", "", `-arena.seeds: "0" is not a number of seeds (want 1 to 1000000000)`},
		{"", "4/3", "", `-arena.shard: "4/3" is not a shard (want i/n with 1 ≤ i ≤ n, such as 3/8)`},
		{"", "0/3", "", `-arena.shard: "0/3" is not a shard (want i/n with 1 ≤ i ≤ n, such as 3/8)`},
		{"", "3", "", `-arena.shard: "3" is not a shard (want i/n with 1 ≤ i ≤ n, such as 3/8)`},
	} {
		seedsFlag.Value.Set(tc.seeds)
		shardFlag.Value.Set(tc.shard)
		t.Setenv(SeedsEnv, tc.env)
		p, err := planSweep(10)
		got := fmt.Sprint(p.seeds())
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("-arena.seeds=%q -arena.shard=%q ARENA_SEEDS=%q: %s, want %s", tc.seeds, tc.shard, tc.env, got, tc.want)
		}
	}
	// n shards together run every seed once.
	seedsFlag.Value.Set("1000")
	var all []uint64
	for i := 1; i <= 8; i++ {
		shardFlag.Value.Set(fmt.Sprintf("%d/8", i))
		p, err := planSweep(1)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p.seeds()...)
	}
	slices.Sort(all)
	if len(all) != 1000 || all[0] != 1 || all[999] != 1000 || len(slices.Compact(all)) != 1000 {
		t.Errorf("8 shards of 1000 seeds ran %d seeds, from %d to %d", len(all), all[0], all[len(all)-1])
	}
}

// FuzzPlanSweep: whatever -arena.seeds and -arena.shard say, planSweep
// refuses them with an error naming the flag, or plans seeds within 1 to
// the count that are the shard's share.
func FuzzPlanSweep(f *testing.F) {
	for _, s := range [][2]string{{"10", "2/3"}, {"", ""}, {"1000", "8/8"}, {"x", "0/1"}, {"5", "3"}, {"99", "1/1/1"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, seeds, shard string) {
		defer seedsFlag.Value.Set("")
		defer shardFlag.Value.Set("")
		seedsFlag.Value.Set(seeds)
		shardFlag.Value.Set(shard)
		p, err := planSweep(10)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "-arena.seeds: ") && !strings.HasPrefix(err.Error(), "-arena.shard: ") {
				t.Errorf("planSweep(%q, %q) = %v, want an error naming the flag", seeds, shard, err)
			}
			return
		}
		if p.count > 1_000_000 {
			return // a valid plan too long to list here
		}
		for _, s := range p.seeds() {
			if s < 1 || int(s) > p.count || (int(s)-p.shard)%p.parts != 0 {
				t.Fatalf("planSweep(%q, %q): seed %d outside the shard %d/%d of %d", seeds, shard, s, p.shard, p.parts, p.count)
			}
		}
	})
}

// TestSweepWorstCountsUngraded: a seed with no grade (no planned fault
// landed) is the worst of a sweep, below any graded one, and the summary
// says so instead of naming a graded seed as the worst.
func TestSweepWorstCountsUngraded(t *testing.T) {
	graded := &engine.Report{Seed: 1, Score: engine.Score{Measured: true, Total: 97.9, Grade: engine.GradeAPlus}}
	low := &engine.Report{Seed: 2, Score: engine.Score{Measured: true, Total: 69.4, Grade: engine.GradeD}}
	none := &engine.Report{Seed: 3, Score: engine.Score{NoneLanded: true}}
	var worst *engine.Report
	for _, r := range []*engine.Report{graded, none, low, nil} {
		if worse(r, worst) {
			worst = r
		}
	}
	if worst != none {
		t.Fatalf("worst is seed %d, want the ungraded seed 3", worst.Seed)
	}
	got := sweepSummary(sweepPlan{count: 3, shard: 1, parts: 1}, 3, []sweptSeed{{seed: 3, rep: none, cmd: "go test"}}, worst)
	if want := "worst: no grade (no planned fault landed) (seed 3)"; !strings.Contains(got, want) {
		t.Errorf("summary lacks %q:\n%s", want, got)
	}
	if worse(graded, low) || !worse(low, graded) || worse(none, none) {
		t.Error("worse does not order graded reports by score")
	}
}
