package arenatest

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ares-arena/arena"
)

// SeedsFlag, ShardFlag and their environment variables set a seed sweep
// (Sweep) from the command line, to spend simulated time's speed on many
// seeds and to spread them over CI machines:
//
//	go test -run '^TestRaftChaos$' -arena.seeds=1000 -arena.shard=3/8
//	ARENA_SEEDS=1000 ARENA_SHARD=3/8 go test -run '^TestRaftChaos$'
const (
	SeedsFlag = "arena.seeds"
	SeedsEnv  = "ARENA_SEEDS"
	ShardFlag = "arena.shard"
	ShardEnv  = "ARENA_SHARD"
)

var (
	seedsFlag = registerFlag(SeedsFlag, "`number` of seeds of every Sweep, overriding the count in code (also ARENA_SEEDS)")
	shardFlag = registerFlag(ShardFlag, "`i/n`: run the i-th of n shares of every Sweep's seeds, i from 1 (also ARENA_SHARD)")
)

// registerFlag registers a string flag unless the binary has one by that
// name already, which is then read the same way.
func registerFlag(name, usage string) *flag.Flag {
	if f := flag.Lookup(name); f != nil {
		return f
	}
	flag.String(name, "", usage)
	return flag.Lookup(name)
}

// sweepPlan is which seeds a Sweep runs: 1 to count, the shard's share.
type sweepPlan struct {
	count        int
	shard, parts int // 1-based shard of parts
}

// planSweep reads the flags, then the environment, over the count in code.
func planSweep(count int) (sweepPlan, error) {
	p := sweepPlan{count: count, shard: 1, parts: 1}
	if v, where := setting(seedsFlag, SeedsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1_000_000_000 {
			return p, fmt.Errorf("%s: %q is not a number of seeds (want 1 to 1000000000)", where, v)
		}
		p.count = n
	}
	if v, where := setting(shardFlag, ShardEnv); v != "" {
		i, n, ok := strings.Cut(v, "/")
		a, err1 := strconv.Atoi(i)
		b, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
			return p, fmt.Errorf("%s: %q is not a shard (want i/n with 1 ≤ i ≤ n, such as 3/8)", where, v)
		}
		p.shard, p.parts = a, b
	}
	if p.count < 1 {
		return p, fmt.Errorf("Sweep: %d seeds (want at least 1)", p.count)
	}
	return p, nil
}

// setting returns a flag's value, else the environment variable's, and
// which of the two it came from.
func setting(f *flag.Flag, env string) (string, string) {
	if v := f.Value.String(); v != "" {
		return v, "-" + f.Name
	}
	return os.Getenv(env), env
}

// seeds returns the shard's seeds: those of 1..count whose rank falls to
// it when dealt round robin over the parts.
func (p sweepPlan) seeds() []uint64 {
	var out []uint64
	for s := p.shard; s <= p.count; s += p.parts {
		out = append(out, uint64(s))
	}
	return out
}

// Sweep runs run once per seed, each in a subtest named "seed=N": seeds 1
// to count (-arena.seeds or ARENA_SEEDS override count), or the share of
// them that -arena.shard (ARENA_SHARD) i/n gives this machine, dealt round
// robin so that n machines together run each seed once. run returns the
// run's report (nil when it has none) for the summary; it fails its t as
// any test does, and the arenatest helpers it calls print each failure's
// seed and the command that replays it:
//
//	go test -run '^TestRaftChaos$/^seed=17$' -arena.seed=17
//
// With -arena.seed (or ARENA_SEED) set, Sweep runs that seed alone: the
// replay. At the end it logs a summary, the seeds run, those that failed
// and the worst grade, and fails t if any seed failed:
//
//	arena: sweep: 125 seeds run (shard 3/8 of 1000), 2 failed: 17, 403; worst grade D (seed 17)
//
// Inside run, give the seed to the helpers (WithSeed for Simulate, Run
// and Survive) so that the subtest's seed is the run's.
func Sweep(t *testing.T, count int, run func(t *testing.T, seed uint64) *arena.Report) {
	t.Helper()
	plan, err := planSweep(count)
	if err != nil {
		t.Fatalf("arenatest.Sweep: %v", err)
	}
	seeds := plan.seeds()
	if seed, ok, err := SeedOverride(); err != nil {
		t.Fatalf("arenatest.Sweep: %v", err)
	} else if ok {
		seeds, plan = []uint64{seed}, sweepPlan{count: 1, shard: 1, parts: 1}
	}
	var (
		mu     sync.Mutex
		failed []uint64
		worst  *arena.Report
	)
	for _, seed := range seeds {
		ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rep := run(t, seed)
			if rep == nil || !rep.Score.Measured {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if worst == nil || rep.Score.Total < worst.Score.Total {
				worst = rep
			}
		})
		if !ok {
			failed = append(failed, seed)
		}
	}
	summary := sweepSummary(plan, len(seeds), failed, worst)
	if len(failed) > 0 {
		t.Errorf("%s", summary)
		return
	}
	t.Logf("%s", summary)
}

// sweepSummary is the line Sweep ends with.
func sweepSummary(p sweepPlan, ran int, failed []uint64, worst *arena.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "arena: sweep: %d seeds run", ran)
	if p.parts > 1 {
		fmt.Fprintf(&b, " (shard %d/%d of %d)", p.shard, p.parts, p.count)
	}
	if len(failed) == 0 {
		b.WriteString(", none failed")
	} else {
		list := make([]string, 0, min(len(failed), 20))
		for _, s := range failed[:min(len(failed), 20)] {
			list = append(list, strconv.FormatUint(s, 10))
		}
		if len(failed) > 20 {
			list = append(list, fmt.Sprintf("… %d more", len(failed)-20))
		}
		fmt.Fprintf(&b, ", %d failed: %s", len(failed), strings.Join(list, ", "))
	}
	if worst != nil {
		fmt.Fprintf(&b, "; worst grade %s, score %.1f (seed %d)", worst.Score.Grade, worst.Score.Total, worst.Seed)
	}
	return b.String()
}
