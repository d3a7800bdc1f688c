//go:build !wasip1

package raftsim

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
)

var (
	det          = flag.Bool("raftsim.det", false, "run TestDeterministic: this package's tests under arena-wasm (make raftsim-det)")
	detRepro     = flag.Int("raftsim.det.repro", 2, "TestDeterministic: runs of each scenario and mode in deterministic TestReproducibility (the README's figure: 10)")
	detProcesses = flag.Int("raftsim.det.processes", 3, "TestDeterministic: separate processes that run TestReproducibility")
	detExplore   = flag.Int("raftsim.det.explore", 8, "TestDeterministic: seeds of TestExploration (the README's figure: 100)")
	detReplays   = flag.Int("raftsim.det.replays", 3, "TestDeterministic: replays of the shrunk schedule (the README's figure: 10)")
)

// TestDeterministic runs this package's tests as a user runs them in
// deterministic mode, with arena-wasm test, and checks what the mode
// promises from outside, by their output:
//
//   - reproducibility: TestReproducibility gives byte-identical reports
//     for every scenario and mode, seeded and unseeded, and separate
//     processes print the same output;
//   - exploration: other seeds reach other outcomes;
//   - the planted bug (TestAckUncommitted): a sweep finds failing seeds,
//     the command it prints for one replays that seed exactly (the same
//     output, twice), and the schedule the shrinker found, judging each
//     candidate by one run, fails every deterministic replay.
//
// It builds cmd/arena-wasm from this checkout; go test builds this
// package for wasip1 and arena-wasm keeps the compiled module in its cache.
func TestDeterministic(t *testing.T) {
	if !*det {
		t.Skip("builds and runs the package under arena-wasm: make raftsim-det (go test -run TestDeterministic -args -raftsim.det)")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin, "./cmd/arena-wasm")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building arena-wasm: %v\n%s", err, out)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	t.Run("reproducibility", func(t *testing.T) {
		var first string
		for p := range *detProcesses {
			out, code := shell(t, "arena-wasm test -v -run '^TestReproducibility$' . -args -raftsim.repro="+strconv.Itoa(*detRepro))
			if code != 0 {
				t.Fatalf("process %d: exit %d:\n%s", p, code, out)
			}
			if p == 0 {
				first = out
				rows := regexp.MustCompile(`(?m)^\s+\S+\s+(un)?seeded\s+(\d+)/(\d+) identical.*$`).FindAllStringSubmatch(out, -1)
				if len(rows) != 2*len(scenarios) {
					t.Fatalf("%d rows in the table, want %d:\n%s", len(rows), 2*len(scenarios), out)
				}
				for _, r := range rows {
					if r[2] != r[3] || r[3] != strconv.Itoa(*detRepro) {
						t.Errorf("not every report identical: %s", strings.TrimSpace(r[0]))
					}
				}
				t.Logf("deterministic TestReproducibility:\n%s", table(out))
				continue
			}
			if out != first {
				t.Errorf("process %d printed other output than process 0:\n%s\nvs\n%s", p, out, first)
			}
		}
		t.Logf("%d processes printed byte-identical output (%d bytes)", *detProcesses, len(first))
	})

	t.Run("exploration", func(t *testing.T) {
		out, code := shell(t, "arena-wasm test -v -run '^TestExploration$' . -args -raftsim.explore="+strconv.Itoa(*detExplore))
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		t.Logf("%s", regexp.MustCompile(`\d+ seeds \(deterministic.*`).FindString(out))
	})

	t.Run("planted", func(t *testing.T) {
		t.Cleanup(func() {
			files, _ := filepath.Glob(filepath.Join(arenatest.ShrunkDir, "TestAckUncommitted_seed_*.yaml"))
			for _, f := range files {
				os.Remove(f)
			}
			os.Remove(arenatest.ShrunkDir) // if empty
		})
		sweep, code := shell(t, "arena-wasm test -run '^TestAckUncommitted$' . -args -raftsim.planted -raftsim.planted.seeds=8")
		if code == 0 {
			t.Fatalf("the sweep over the planted bug passed:\n%s", sweep)
		}
		m := regexp.MustCompile(`(?m)^\s+seed (\d+): (grade \S+, score [\d.]+); replay: (.*arena-wasm test .*)$`).FindStringSubmatch(sweep)
		if m == nil {
			t.Fatalf("no failing seed with its replay command in:\n%s", sweep)
		}
		seed, grade, replay := m[1], m[2], m[3]
		t.Logf("the sweep: %s", regexp.MustCompile(`arena: sweep: 8 seeds run.*`).FindString(sweep))
		first, code := shell(t, replay)
		again, _ := shell(t, replay)
		if code == 0 || !strings.Contains(first, grade) {
			t.Fatalf("seed %s's replay: exit %d, want the failure with %s:\n%s", seed, code, grade, first)
		}
		if first != again {
			t.Errorf("two replays of seed %s differ:\n%s\nvs\n%s", seed, first, again)
		}
		// The seed's instance in the sweep printed what its replay prints.
		for _, l := range []string{"failed its gate", "shrunk leader-failover from", "replay exactly:"} {
			if a, b := lineWith(sweep, "seed "+seed, l), lineWith(first, "", l); a == "" || a != b {
				t.Errorf("the sweep's %q line for seed %s is %q, the replay's %q", l, seed, a, b)
			}
		}
		shrunk := regexp.MustCompile(`replay exactly: (.*arena-wasm test .*)`).FindStringSubmatch(first)
		if shrunk == nil {
			t.Fatalf("no shrunk schedule in seed %s's replay:\n%s", seed, first)
		}
		t.Logf("seed %s: %s; %s", seed, grade, strings.TrimSpace(lineWith(first, "", "shrunk leader-failover from")))
		var out0 string
		for i := range *detReplays {
			out, code := shell(t, shrunk[1])
			if code == 0 || !strings.Contains(out, "failed its gate") {
				t.Fatalf("replay %d of the shrunk schedule: exit %d, want its failure:\n%s", i, code, out)
			}
			if i == 0 {
				out0 = out
			} else if out != out0 {
				t.Errorf("replay %d of the shrunk schedule differs from replay 0:\n%s\nvs\n%s", i, out, out0)
			}
		}
		t.Logf("the shrunk schedule failed %d/%d deterministic replays, each a process of its own: %s", *detReplays, *detReplays, shrunk[1])
	})
}

// shell runs cmd in this package's directory and returns its output,
// without go test's last line (its wall time), and its exit code.
func shell(t *testing.T, cmd string) (string, int) {
	t.Helper()
	start := time.Now()
	c := exec.Command("sh", "-c", cmd)
	out, err := c.CombinedOutput()
	t.Logf("%s (%s)", cmd, time.Since(start).Round(time.Millisecond))
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	s := regexp.MustCompile(`(?m)^(ok|FAIL)\s+\S+\s+[\d.]+s\n?$`).ReplaceAllString(string(out), "")
	return s, code
}

// lineWith is the first line of out that contains what, after the first
// line that contains after ("" for none), trimmed.
func lineWith(out, after, what string) string {
	if i := strings.Index(out, after); after != "" && i >= 0 {
		out = out[i:]
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, what) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// table is TestReproducibility's table, from its output.
func table(out string) string {
	i := strings.Index(out, "scenario         mode")
	if i < 0 {
		return ""
	}
	j := strings.Index(out[i:], "--- ")
	if j < 0 {
		return out[i:]
	}
	return out[i : i+j]
}
