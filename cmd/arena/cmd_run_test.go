package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/ares-arena/arena/scenario"
)

func TestRunBuiltinPasses(t *testing.T) {
	code, out, errOut := cli(t, "run", "leader-failover", "--seed", "7")
	if code != exitPass || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	golden(t, "run-leader-failover.txt.golden", []byte(out))
}

// The JSON report is stable: field names, order, durations as strings. The
// one wall-clock field is blanked.
func TestRunJSONGolden(t *testing.T) {
	code, out, errOut := cli(t, "run", "leader-failover", "--seed", "7", "--json")
	if code != exitPass || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var rep scenario.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Seed != 7 || !rep.OK() {
		t.Fatalf("JSON report does not decode to a passing report with seed 7: %v", err)
	}
	golden(t, "run-leader-failover.json.golden", wallTime.ReplaceAll([]byte(out), []byte(`"wall_time": "0s"`)))
}

func TestRunIsReproducibleFromItsSeed(t *testing.T) {
	_, a, _ := cli(t, "run", "rolling-kills", "--seed", "99", "--json")
	_, b, _ := cli(t, "run", "rolling-kills", "--seed", "99", "--json")
	a, b = wallTime.ReplaceAllString(a, ""), wallTime.ReplaceAllString(b, "")
	if a != b {
		t.Error("the same seed gave different reports")
	}
	// Without --seed one is drawn and reported.
	_, c, _ := cli(t, "run", "rolling-kills", "--json")
	var rep scenario.Report
	if err := json.Unmarshal([]byte(c), &rep); err != nil || rep.Seed == 0 {
		t.Errorf("drawn seed = %d, %v", rep.Seed, err)
	}
}

func TestRunGateFails(t *testing.T) {
	code, out, errOut := cli(t, "run", filepath.Join("testdata", "unmet-gate.yaml"), "--seed", "3")
	if code != exitGateFailed {
		t.Fatalf("exit %d, want 1:\n%s%s", code, out, errOut)
	}
	if want := "arena: unmet-gate failed its gate (seed 3); rerun with: arena run testdata/unmet-gate.yaml --seed=3\n"; errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
	if !strings.Contains(out, "scenario unmet-gate: FAILED (seed 3, completed)\n  - MTTR 1.4s is above the maximum 1ms\n") {
		t.Errorf("report:\n%s", out)
	}
}

// A fault landing at the last step of a scenario without a cooldown is
// watched until it is decided: the default cluster's failover is recovered
// (it used to be UNRECOVERED, graded F, for want of samples).
func TestRunLastStepWithoutCooldown(t *testing.T) {
	code, out, errOut := cli(t, "run", filepath.Join("testdata", "no-cooldown.yaml"), "--seed", "3")
	if code != exitPass {
		t.Fatalf("exit %d, want 0:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"scenario no-cooldown: PASSED (seed 3, completed)\n",
		"arena report: seed 3, virtual time, 6.6s observed (1.6s past the schedule, watching its last faults settle)\n",
		"  recovery      98.7  (1 recovered, 0 unrecovered; MTTR 1.4s, p95 1.4s, max 1.4s)\n",
		"  5s  kill_leader  leader-0  1.4s  recovered\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestRunBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "nope"}, `arena: "nope" is neither a built-in scenario (cascading-failure, dag-surgery,`},
		{[]string{"run", filepath.Join("testdata", "invalid.yaml")}, "testdata/invalid.yaml:3:3: config.paralel_actions: unknown key (want stop_on_error, parallel_actions, max_concurrent, timeout, warmup, cooldown, seed, probe_interval, recovery_deadline, observe, abort_when, allow_unhealthy_start)\n" +
			"testdata/invalid.yaml:6:18: actions[0].depends_on[0]: unknown label \"b\"\n" +
			"testdata/invalid.yaml:7:64: actions[0].action.metadata.delay: \"fast\" is not a duration (want a Go duration such as \"1.5s\" or a number of seconds)\n"},
		{[]string{"run", "leader-failover", "--workers", "0"}, "arena: --workers: want 1 to 10000, got 0\n"},
		{[]string{"run", "leader-failover", "--seed", "-1"}, `arena: invalid argument "-1" for "--seed" flag`},
	}
	for _, tt := range tests {
		code, out, errOut := cli(t, tt.args...)
		if code != exitBadInput || out != "" || !strings.HasPrefix(errOut, tt.want) {
			t.Errorf("arena %q = %d, stdout %q, stderr:\n%s\nwant 2 and stderr starting\n%s", tt.args, code, out, errOut, tt.want)
		}
	}
}

func TestRunJUnit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.xml")
	code, _, errOut := cli(t, "run", "dag-surgery", "--seed", "5", "--junit", path)
	if code != exitPass {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.Suite.Name != "dag-surgery" || doc.Tests != 9 || doc.Failures != 0 {
		t.Errorf("JUnit %+v, %v:\n%s", doc, err, b)
	}

	// A report that cannot be written is the harness's failure, not the gate's.
	code, _, errOut = cli(t, "run", "dag-surgery", "--junit", filepath.Join(t.TempDir(), "no", "such", "dir.xml"))
	if code != exitInfra || !strings.HasPrefix(errOut, "arena: --junit: open ") {
		t.Errorf("unwritable --junit: exit %d, stderr %q; want 3", code, errOut)
	}
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, out, errOut := cliCtx(t, ctx, "run", "leader-failover", "--seed", "1")
	if code != exitInfra {
		t.Errorf("exit %d, want 3", code)
	}
	if !strings.Contains(out, "scenario leader-failover: INCONCLUSIVE (seed 1, cancelled)") ||
		errOut != "arena: leader-failover did not finish: context canceled (seed 1); rerun with: arena run leader-failover --seed=1\n" {
		t.Errorf("stdout:\n%s\nstderr: %q", out, errOut)
	}
}

// --virtual=false runs in real time; under synctest real time is fake, so
// the 50 seconds of the scenario pass at once, and the report says so.
func TestRunRealTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		code, out, errOut := cli(t, "run", "leader-failover", "--seed", "7", "--virtual=false")
		if code != exitPass {
			t.Fatalf("exit %d:\n%s%s", code, out, errOut)
		}
		if !strings.Contains(out, "arena report: seed 7, simulated time (synctest), 50s observed in ") || errOut != "arena: leader-failover runs in real time, about 50s\n" {
			t.Errorf("stdout:\n%s\nstderr: %q", out, errOut)
		}
	})
}

// The README shows `make demo`'s output, shortened with "…": every line it
// shows must be what the demo prints.
func TestReadmeShowsTheDemo(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "`make demo` (`go run ./cmd/arena run everything-at-once --seed 7`) prints, shortened:\n\n```\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || block == "" {
		t.Fatal("README has no demo output block")
	}
	code, out, _ := cli(t, "run", "everything-at-once", "--seed", "7")
	if code != exitPass {
		t.Fatalf("demo exit %d", code)
	}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		if line != "" && !strings.Contains(line, "…") && !strings.Contains(out, line+"\n") {
			t.Errorf("README demo line not in the output: %q", line)
		}
	}
}

// TestRunObserveFlags: --probe-interval and friends reach the run, and a bad
// value is bad input naming the flag.
func TestRunObserveFlags(t *testing.T) {
	samples := func(args ...string) int {
		t.Helper()
		code, out, errOut := cli(t, append([]string{"run", "leader-failover", "--seed", "7", "--json"}, args...)...)
		if code != exitPass && code != exitGateFailed {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		var rep scenario.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Report.Samples
	}
	def, coarse := samples(), samples("--probe-interval", "500ms", "--settle-time", "2s", "--stable-samples", "1")
	if def != 5*(coarse-1)+1 {
		t.Errorf("samples: default %d, --probe-interval 500ms %d; want 5:1", def, coarse)
	}
	code, _, errOut := cli(t, "run", "leader-failover", "--settle-time", "-1s")
	if code != exitBadInput || !strings.Contains(errOut, "--settle-time") {
		t.Errorf("--settle-time -1s: exit %d, stderr %q; want bad input naming the flag", code, errOut)
	}
}

// --junit (or --html) naming the scenario file overwrote the scenario it
// ran (issue 26): it is bad input now, before anything runs or is written.
func TestRunOutputsAreNotTheInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	data := []byte("name: s\nactions:\n  - action: {type: kill_leader}\n")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", file, "--junit", file},
		{"run", file, "--html", filepath.Join(dir, ".", "s.yaml")},
		{"run", file, "--junit", filepath.Join(dir, "r.xml"), "--html", filepath.Join(dir, "r.xml")},
	} {
		code, _, errOut := cli(t, args...)
		if code != exitBadInput || !strings.Contains(errOut, "--") {
			t.Errorf("arena %v = exit %d, %q; want 2", args, code, errOut)
		}
		if got, _ := os.ReadFile(file); string(got) != string(data) {
			t.Fatalf("arena %v overwrote the scenario file", args)
		}
	}
}
