package arenatest_test

import (
	"strings"
	"testing"

	. "github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
)

// A sweep of six seeds in which seeds 3 and 6 fail their gate (no
// healing: the leader's kill is not healed): each failure prints its
// seed and replay command, and the summary names them and the worst grade.
func TestSweep(t *testing.T) {
	if isChild(t.Name()) {
		Sweep(t, 6, func(t *testing.T, seed uint64) *engine.Report {
			opts := []Option{WithSeed(seed)}
			if seed%3 == 0 {
				opts = append(opts, WithCluster(fakes.WithoutHealing()))
			}
			return Run(t, "leader-failover", opts...).Report
		})
		return
	}
	out := child(t, t.Name())
	for _, want := range []string{
		"--- PASS: TestSweep/seed=1 ",
		"--- FAIL: TestSweep/seed=3 ",
		"rerun: go test -run '^TestSweep$/^seed=3$' -arena.seed=3",
		"--- FAIL: TestSweep/seed=6 ",
		"arena: sweep: 6 seeds run, 2 failed: 3, 6; worst grade F",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
