package arenatest

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ares-arena/arena/engine"
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
// A seed whose run stopped its test (a failed Simulate stops the test
// that called it) is still counted: the reports of Run and Survive made
// under the seed's t, inside a simulation too, stand for the one run did
// not return.
//
// With -arena.seed (or ARENA_SEED) set, Sweep runs that seed alone: the
// replay. At the end it logs a summary, the seeds run, those that failed
// and the worst grade of all, then each failed seed with its grade and the
// command that replays it, and fails t if any seed failed:
//
//	arena: sweep: 125 seeds run (shard 3/8 of 1000), 2 failed: 17, 403; worst grade D, score 69.4 (seed 17)
//	  seed 17: grade D, score 69.4; replay: go test -run '^TestRaftChaos$/^seed=17$' -arena.seed=17
//	  seed 403: grade B, score 85.0; replay: go test -run '^TestRaftChaos$/^seed=403$' -arena.seed=403
//
// Inside run, give the seed to the helpers (WithSeed for Simulate,
// SimulateRun, Run and Survive) so that the subtest's seed is the run's.
func Sweep(t *testing.T, count int, run func(t *testing.T, seed uint64) *engine.Report) {
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
	} else if deterministic() {
		sweepInstances(t, plan, seeds)
		return
	}
	var failed []sweptSeed
	var worst *engine.Report
	for _, seed := range seeds {
		noted := &seedReports{}
		var rep *engine.Report
		var cmd string
		ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			sweepSeeds.Store(t, noted)
			defer sweepSeeds.Delete(t)
			cmd = replayCommands(t, seed)[0]
			rep = run(t, seed)
		})
		if rep == nil {
			rep = noted.worst()
		}
		handReport(rep)
		if worse(rep, worst) {
			worst = rep
		}
		if !ok {
			failed = append(failed, sweptSeed{seed: seed, rep: rep, cmd: cmd})
		}
	}
	summary := sweepSummary(plan, len(seeds), failed, worst)
	if len(failed) > 0 {
		t.Errorf("%s", summary)
		return
	}
	t.Logf("%s", summary)
}

// sweptSeed is a failed seed of a sweep: its report (nil if none) and the
// command that replays it.
type sweptSeed struct {
	seed uint64
	rep  *engine.Report
	cmd  string
}

// sweepSeeds maps a sweep's seed subtest to the reports made under it.
var sweepSeeds sync.Map

// seedReports are the reports of Run and Survive made under one seed.
type seedReports struct {
	mu      sync.Mutex
	reports []*engine.Report
}

// worst is the worst of the reports (see worse), the first of equals.
func (s *seedReports) worst() *engine.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	var w *engine.Report
	for _, r := range s.reports {
		if worse(r, w) {
			w = r
		}
	}
	return w
}

// worse reports whether r is worse than w (nil when there is none yet): a
// run with no grade (nothing measured, or no planned fault landed) is
// below every graded one, and graded ones go by score.
func worse(r, w *engine.Report) bool {
	switch {
	case r == nil:
		return false
	case w == nil:
		return true
	case r.Score.Measured != w.Score.Measured:
		return !r.Score.Measured
	}
	return r.Score.Measured && r.Score.Total < w.Score.Total
}

// noteReport gives a run's report to the sweep seed it was made under:
// t's, or, inside a simulation, that of the test that called Simulate.
func noteReport(t TB, rep *engine.Report) {
	if rep == nil {
		return
	}
	key := any(t)
	if s := simulationOf(t); s != nil && s.outer != nil {
		key = s.outer
	}
	if v, ok := sweepSeeds.Load(key); ok {
		n := v.(*seedReports)
		n.mu.Lock()
		n.reports = append(n.reports, rep)
		n.mu.Unlock()
	}
}

// sweepSummary is what Sweep ends with.
func sweepSummary(p sweepPlan, ran int, failed []sweptSeed, worst *engine.Report) string {
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
			list = append(list, strconv.FormatUint(s.seed, 10))
		}
		if len(failed) > 20 {
			list = append(list, fmt.Sprintf("… %d more", len(failed)-20))
		}
		fmt.Fprintf(&b, ", %d failed: %s", len(failed), strings.Join(list, ", "))
	}
	switch {
	case worst == nil:
	case worst.Score.Measured:
		fmt.Fprintf(&b, "; worst grade %s, score %.1f (seed %d)", worst.Score.Grade, worst.Score.Total, worst.Seed)
	default:
		fmt.Fprintf(&b, "; worst: %s (seed %d)", scoreText(worst.Score), worst.Seed)
	}
	for _, s := range failed[:min(len(failed), 20)] {
		grade := "no report"
		if s.rep != nil {
			grade = scoreText(s.rep.Score)
			if s.rep.Score.Measured {
				grade = fmt.Sprintf("grade %s, score %.1f", s.rep.Score.Grade, s.rep.Score.Total)
			}
		}
		fmt.Fprintf(&b, "\n  seed %d: %s; replay: %s", s.seed, grade, s.cmd)
	}
	return b.String()
}
