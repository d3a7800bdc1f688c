package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
)

// planted is each planted bug, the scenario that shows it, and the check
// that must catch it.
var planted = map[string]struct {
	flaws Flaws
	scen  string
	check string
}{
	"non-idempotent-retry": {Flaws{NewKeyPerAttempt: true}, "slow-tools", "tool effects at most once"},
	"fabricated-result":    {Flaws{TrustTools: true}, "testdata/agent-wire.yaml", "no result a tool never gave"},
	"retry-storm":          {Flaws{RetryForever: true}, "llm-brownout", "at most 36 model calls per task"},
}

// TestPlanted fails on purpose, when asked (AGENTS_PLANTED=<bug>): the
// workers carry the bug, arena's check catches it and the shrinker cuts the
// scenario to the faults that still show it.
func TestPlanted(t *testing.T) {
	name := os.Getenv("AGENTS_PLANTED")
	p, ok := planted[name]
	if !ok {
		t.Skip("fails on purpose: AGENTS_PLANTED=<non-idempotent-retry|fabricated-result|retry-storm> go test -run TestPlanted")
	}
	arenatest.SimulateRun(t, Harness(DefaultConfig().With(p.flaws), nil), p.scen,
		arenatest.WithSeed(1), arenatest.WithShrinkOnFailure(time.Minute))
}

// TestPlantedCaught runs TestPlanted for each bug in a test binary of its
// own: it fails, its failure names the bug's check, and the shrinker's
// schedule is smaller than the scenario's.
func TestPlantedCaught(t *testing.T) {
	if os.Getenv("AGENTS_PLANTED") != "" {
		t.Skip("the child runs TestPlanted alone")
	}
	if arenatest.Deterministic() {
		t.Skip("starts the test binary again (os/exec), which wasip1 cannot")
	}
	if raceEnabled {
		t.Skip("three shrinks of a minute's budget each, five times slower under the race detector: make test runs them without it")
	}
	shrunk := regexp.MustCompile(`shrunk \S+ from (\d+) faults \([^)]*\) to (\d+) \(`)
	for name, p := range planted {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			cmd := exec.Command(os.Args[0], "-test.run=^TestPlanted$", "-test.v")
			cmd.Env = append(os.Environ(), "AGENTS_PLANTED="+name)
			out, err := cmd.CombinedOutput()
			t.Cleanup(func() {
				os.Remove(filepath.Join(arenatest.ShrunkDir, "TestPlanted.yaml"))
				os.Remove(arenatest.ShrunkDir)
			})
			if err == nil {
				t.Fatalf("TestPlanted passed with %s; it fails on purpose:\n%s", name, out)
			}
			if !regexp.MustCompile(`consistent:` + regexp.QuoteMeta(p.check)).Match(out) {
				t.Errorf("the failure does not name the check %q:\n%s", p.check, out)
			}
			m := shrunk.FindSubmatch(out)
			if m == nil {
				t.Fatalf("no shrunk schedule:\n%s", out)
			}
			t.Logf("%s: caught by %q, shrunk from %s faults to %s, in %v:\n%s", name, p.check, m[1], m[2], time.Since(start).Round(time.Millisecond), summaryLines(out))
			if string(m[1]) == string(m[2]) && string(m[1]) != "1" {
				t.Errorf("the shrinker kept all %s faults", m[1])
			}
		})
	}
}

// summaryLines picks, from a failed run's output, the lines that say what
// failed and what the shrinker found.
func summaryLines(out []byte) string {
	re := regexp.MustCompile(`(?m)^\s*(- \d+ of \d+ checks failed.*|shrunk .*|failure: .*|search: .*|at \S+\s+\S+.*)$`)
	var s string
	for _, m := range re.FindAll(out, -1) {
		s += string(m) + "\n"
	}
	return s
}
