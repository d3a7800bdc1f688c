package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ares-arena/arena/scenario"
)

// decoys hides a kill of the orchestrator (the fake cluster elects a new
// one after 1s to 1.5s) among faults the cluster shrugs off; its gate
// wants every fault recovered within 1s.
const decoys = `name: decoys
config:
  seed: 3
  cooldown: 5s
  observe: {recovery_deadline: 1s}
actions:
  - action: {type: llm_failure, target_id: worker-1, metadata: {duration: 2s, error_type: overloaded}}
  - delay: 1s
    action: {type: mcp_disconnect, target_id: worker-2}
  - delay: 1s
    action: {type: kill_orchestrator}
  - delay: 3s
    action: {type: tool_timeout, target_id: worker-1, metadata: {duration: 2s, timeout: 1s}}
expect:
  all_recovered: true
`

func TestShrinkScenarioFile(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "decoys.yaml"), filepath.Join(dir, "min.yaml")
	if err := os.WriteFile(in, []byte(decoys), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, "shrink", in, "--out", out)
	if code != exitPass || stdout != "" {
		t.Fatalf("arena shrink = %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"shrunk decoys from 4 faults (10s) to 1 (1s): fails 10/10 replays, virtual clock\n",
		"  failure: all_recovered\n",
		"  at 0s  kill_orchestrator  -\n",
		"wrote " + out + "; replay with: arena run " + out + "\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	sc, err := scenario.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Config.Seed != 3 || !sc.Expect.AllRecovered || len(sc.Actions) != 1 {
		t.Errorf("shrunk scenario: seed %d, gate %+v, %d steps", sc.Config.Seed, sc.Expect, len(sc.Actions))
	}
	if code, _, stderr := cli(t, "run", out); code != exitGateFailed {
		t.Errorf("arena run %s = %d, want 1 (the gate fails): %s", out, code, stderr)
	}

	code, stdout, _ = cli(t, "shrink", in)
	if code != exitPass || !strings.HasPrefix(stdout, "# Shrunk by arena from decoys (4 faults, 10s) to 1 fault (1s):\n") {
		t.Errorf("without --out: %d, stdout:\n%s", code, stdout)
	}
	if _, err := scenario.Load([]byte(stdout), "stdout"); err != nil {
		t.Errorf("the scenario on stdout does not load: %v", err)
	}
	if code, _, stderr := cli(t, "shrink", in, "--progress", "always"); code != exitPass || !strings.Contains(stderr, "shrink: 1 runs, 0 faults") {
		t.Errorf("--progress always: %d, stderr without the progress line:\n%q", code, stderr)
	}
}

// TestShrinkSurvivalReport: the JSON report of `arena survive` lists its
// first 1,000 actions of 3,124: the run is replayed in full, then shrunk,
// as the README shows.
func TestShrinkSurvivalReport(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	report, out := "survival.json", "min.yaml"
	// A mix of its own: the default mix is every type the runtime lands, so
	// a fault type added to arena would change the run, and the README.
	code, stdout, stderr := cli(t, "survive", "--duration", "2h", "--interval", "2s", "--seed", "2", "--mix", "kill_agent,kill_orchestrator,memory_corrupt,pause_agent,slow_agent,tool_timeout", "--json")
	if code != exitPass {
		t.Fatalf("survive = %d: %s", code, stderr)
	}
	if err := os.WriteFile(report, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, "shrink", report, "--consistent", "--out", out)
	if code != exitPass {
		t.Fatalf("shrink = %d:\n%s", code, stderr)
	}
	readmeBlock(t, string(readme), "`shrink` prints, on standard error,", stderr)
	sc, err := scenario.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Actions) != 2 || sc.Config.Seed != 2 || !sc.Expect.Consistent {
		t.Errorf("shrunk to %d steps, seed %d, gate %+v; want 2, seed 2, consistent", len(sc.Actions), sc.Config.Seed, sc.Expect)
	}
	if code, _, _ := cli(t, "run", out); code != exitGateFailed {
		t.Errorf("arena run of the shrunk file = %d, want 1", code)
	}
	if code, _, stderr := cli(t, "shrink", report, "--consistent", "--workers", "4"); code != exitBadInput || !strings.Contains(stderr, "is the system the one the report ran on?") {
		t.Errorf("another system: %d, %s", code, stderr)
	}
	if code, _, stderr := cli(t, "shrink", report); code != exitBadInput || !strings.Contains(stderr, "a survival report has no gate: give --min-grade") {
		t.Errorf("no gate: %d, %s", code, stderr)
	}
	if code, _, stderr := cli(t, "shrink", report, "--consistent", "--seed", "6"); code != exitBadInput || !strings.Contains(stderr, "--seed: 6 is not the report's seed 2") {
		t.Errorf("another seed: %d, %s", code, stderr)
	}
}

// readmeBlock checks that every line of the README's block after intro,
// but those with "…", is a line of out.
func readmeBlock(t *testing.T, readme, intro, out string) {
	t.Helper()
	_, block, ok := strings.Cut(readme, intro)
	_, block, _ = strings.Cut(block, "```\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || strings.TrimSpace(block) == "" {
		t.Fatalf("README has no block after %q", intro)
	}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		if !strings.Contains(line, "…") && !strings.Contains(out, line+"\n") {
			t.Errorf("README line not in the output: %q\noutput:\n%s", line, out)
		}
	}
}

func TestShrinkErrors(t *testing.T) {
	dir := t.TempDir()
	scenarioReport := filepath.Join(dir, "run.json")
	_, stdout, _ := cli(t, "run", "leader-failover", "--seed", "1", "--json")
	if err := os.WriteFile(scenarioReport, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"shrink", "leader-failover", "--seed", "1"}, exitGateFailed, "arena: nothing to shrink: shrink: scenario \"leader-failover\": the run does not fail when replayed: fails 0/1 (need 1 of 1)"},
		{[]string{"shrink", scenarioReport}, exitBadInput, "a scenario report: shrink the scenario it ran"},
		{[]string{"shrink", "no-such-scenario"}, exitBadInput, "no-such-scenario"},
		{[]string{"shrink", "leader-failover", "--budget", "0s"}, exitBadInput, "--budget: want a duration above 0"},
		{[]string{"shrink", "leader-failover", "--runs", "2", "--need", "3"}, exitBadInput, "--need: 3 is not between 1 and --runs (2)"},
		{[]string{"shrink", "leader-failover", "--min-grade", "E"}, exitBadInput, "--min-grade: unknown grade"},
		{[]string{"shrink", "leader-failover", "--progress", "sometimes"}, exitBadInput, "--progress"},
	}
	for _, tc := range cases {
		code, _, stderr := cli(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("arena %q = %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// FuzzShrinkInput: whatever the bytes, parseShrinkInput returns a valid
// scenario, a survival report with its report, or an error.
func FuzzShrinkInput(f *testing.F) {
	for _, s := range []string{
		decoys,
		`{"name": "j", "actions": [{"action": {"type": "kill_leader"}}]}`,
		`{"config": {"duration": "1h"}, "events": [], "report": {"seed": 1}}`,
		`{"config": {"duration": "1h", "bogus": 1}, "events": [], "report": {}}`,
		`{"config": {}, "events": [{"at": "1s", "type": "kill_agent", "target_id": "w", "success": true}]}`,
		`{"scenario": "x", "steps": []}`,
		`{"events": 1, "config": 2}`,
		`{"config": {"duration": "NaN"}, "events": [{"at": "+Inf", "lifetime": 1e999}], "report": {}}`,
		`{"config": {}, "events": [], "report": {"faults": [{}, []], "timeline": null}, "by_type": {}}`,
		"",
		"[1, 2]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, rep, err := parseShrinkInput(data, "fuzz")
		switch {
		case err != nil:
			if sc != nil || rep != nil {
				t.Fatalf("an error (%v) with a result", err)
			}
		case sc != nil:
			if rep != nil {
				t.Fatal("both a scenario and a report")
			}
			if err := scenario.Validate(sc); err != nil {
				t.Fatalf("parsed an invalid scenario: %v", err)
			}
		case rep == nil || rep.Report == nil:
			t.Fatalf("no scenario, no report, no error: %+v", rep)
		}
	})
}

// TestShrinkNameBeforeFile: a built-in name is the built-in scenario, as
// for run, even when a file has that name.
func TestShrinkNameBeforeFile(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("leader-failover", []byte("not a scenario"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, "shrink", "leader-failover", "--seed", "1")
	if code != exitGateFailed || !strings.Contains(stderr, `scenario "leader-failover": the run does not fail`) {
		t.Errorf("arena shrink leader-failover = %d, %q; want the built-in, which passes", code, stderr)
	}
}
