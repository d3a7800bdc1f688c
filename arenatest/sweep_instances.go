package arenatest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/internal/wasmguest"
)

// spawnAhead is how many seeds a deterministic sweep keeps started ahead
// of the one it waits for: enough to keep every core of the host busy.
const spawnAhead = 16

// sweepInstances is Sweep in deterministic mode: each seed runs in a child
// instance of the binary, started with -test.run selecting the seed's
// subtest and the seed as its own (the host runs as many at once as it has
// cores). A child is what the seed's replay command runs: the same
// arguments, environment and seed, so it replays exactly. Each seed's
// subtest here waits for its child, passes or fails as it did, and shows
// its output when it failed (or under -v).
func sweepInstances(t *testing.T, plan sweepPlan, seeds []uint64) {
	t.Helper()
	if as := callTag(t, "Sweep"); !strings.HasSuffix(as, " #1") {
		t.Fatalf("arenatest.Sweep: a second Sweep in %s: in deterministic mode a seed's instance runs the test's subtest seed=N, which the first Sweep names; put each Sweep in a test or subtest of its own", t.Name())
	}
	children := make([]wasmguest.Child, len(seeds))
	errs := make([]error, len(seeds))
	started := 0
	startUpTo := func(n int) {
		for ; started < min(n, len(seeds)); started++ {
			s := seeds[started]
			children[started], errs[started] = wasmguest.Spawn(childRun(t, s), s, "sweep "+t.Name())
		}
	}
	// A -test.run that selects among the seeds (arena-wasm test -run
	// '^TestA$/^seed=7$') would leave children started for seeds no
	// subtest waits for: start each in its subtest then.
	ahead := spawnAhead
	if len(wasmguest.SplitRun(ownRun())) > len(strings.Split(t.Name(), "/")) {
		ahead = 1
	}
	var failed []sweptSeed
	var worst *engine.Report
	for i, seed := range seeds {
		var rep *engine.Report
		cmd := detCommands(childRun(t, seed), seed, true, nil, []string{SeedsFlag, ShardFlag})[0]
		ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			startUpTo(i + ahead)
			if errs[i] != nil {
				t.Fatalf("arena: sweep: seed %d: %v", seed, errs[i])
			}
			o, err := children[i].Wait()
			if err != nil {
				t.Fatalf("arena: sweep: seed %d: %v", seed, err)
			}
			rep = childReport(o)
			switch {
			case o.Err != "":
				t.Errorf("arena: sweep: seed %d: the host could not run it: %s\n%s", seed, o.Err, o.Output)
			case o.Exit != 0:
				t.Errorf("arena: sweep: seed %d failed in its instance (exit %d):\n%s", seed, o.Exit, childLines(o.Output))
			case testing.Verbose():
				t.Logf("seed %d, in its instance:\n%s", seed, childLines(o.Output))
			}
		})
		if worse(rep, worst) {
			worst = rep
		}
		if !ok {
			failed = append(failed, sweptSeed{seed: seed, rep: rep, cmd: cmd})
		}
	}
	summary := sweepSummary(plan, len(seeds), failed, worst) + "\n  (deterministic: each seed ran in an instance of its own; each command replays it exactly)"
	if len(failed) > 0 {
		t.Errorf("%s", summary)
		return
	}
	t.Logf("%s", summary)
}

// childRun is the -test.run of seed's subtest of t.
func childRun(t *testing.T, seed uint64) string {
	return selectorPattern(t.Name() + fmt.Sprintf("/seed=%d", seed))
}

// childReport is the report a child handed on (handReport), if any.
func childReport(o wasmguest.Outcome) *engine.Report {
	if len(o.Result) == 0 {
		return nil
	}
	var rep engine.Report
	if json.Unmarshal(o.Result, &rep) != nil {
		return nil
	}
	return &rep
}

// handReport gives a seed's report to the sweep whose child this instance
// is (a no-op elsewhere).
func handReport(rep *engine.Report) {
	if rep == nil || !deterministic() {
		return
	}
	if b, err := json.Marshal(rep); err == nil {
		wasmguest.Hand(b)
	}
}

// childLines is a child's output without the lines the testing package
// and the sweep wrap its seed in, which repeat the parent's.
func childLines(out string) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		trimmed := strings.TrimSpace(l)
		if trimmed == "PASS" || trimmed == "FAIL" || strings.HasPrefix(trimmed, "arena: sweep: 1 seeds run") {
			continue
		}
		keep = append(keep, "    "+l)
	}
	return strings.Join(keep, "\n")
}
