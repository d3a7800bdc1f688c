package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// survivalReport is the JSON report of an hour of survival (seed 2, a fault
// every 2s): it lists its first 1,000 actions of about 1,800, so shrink
// replays it in full before it can shrink it.
func survivalReport(t *testing.T) map[string]any {
	t.Helper()
	code, stdout, stderr := cli(t, "survive", "--duration", "1h", "--interval", "2s", "--seed", "2", "--json",
		"--mix", "kill_agent,kill_orchestrator,memory_corrupt,pause_agent,slow_agent,tool_timeout")
	if code != exitPass {
		t.Fatalf("survive = %d: %s", code, stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep["events_dropped"].(float64) == 0 {
		t.Fatal("the report lists every action: shrink would not replay it")
	}
	return rep
}

// forge writes rep, changed to claim a run of length with a fault every
// interval, to dir/name.
func forge(t *testing.T, rep map[string]any, dir, name string, length, interval time.Duration) string {
	t.Helper()
	cfg, report := rep["config"].(map[string]any), rep["report"].(map[string]any)
	cfg["duration"], cfg["interval"] = length.String(), interval.String()
	start, err := time.Parse(time.RFC3339, report["start"].(string))
	if err != nil {
		t.Fatal(err)
	}
	report["end"] = start.Add(length).Format(time.RFC3339)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A survival report is replayed in full before the search when it does not
// list every action: that replay is a run like the search's. A report of a
// run longer than a scenario may be is refused before it is replayed (a
// forged 720 h one took 15 to 48 s under --budget 1s), and a replay is
// bounded by --budget: a forged day with a fault every 10ms, whose replay
// ran to its end to find that it differs, ends when the budget is spent.
func TestShrinkSurvivalReplayWithinBudget(t *testing.T) {
	dir := t.TempDir()
	rep := survivalReport(t)
	month := forge(t, rep, dir, "month.json", 720*time.Hour, 2*time.Second)
	day := forge(t, rep, dir, "day.json", 24*time.Hour, 10*time.Millisecond)

	code, _, stderr := cli(t, "shrink", month, "--consistent", "--budget", "1s")
	if want := "a run of 720h is longer than a scenario may be (24h)"; code != exitBadInput || !strings.Contains(stderr, want) {
		t.Errorf("shrink of a 720 h report = %d, %q; want 2 and %q", code, stderr, want)
	}
	code, _, stderr = cli(t, "shrink", day, "--consistent", "--budget", "100ms")
	if want := "survival replay: time budget spent (--budget 100ms)"; code != exitInfra || !strings.Contains(stderr, want) {
		t.Errorf("shrink of a forged day = %d, %q; want 3 and %q", code, stderr, want)
	}
}

// SIGINT ends a shrink with exit 3, also while it replays a survival run.
func TestShrinkInterruptedExits3(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	day := forge(t, survivalReport(t), dir, "day.json", 24*time.Hour, 10*time.Millisecond)
	long := filepath.Join(dir, "long.yaml")
	var sc strings.Builder
	sc.WriteString("name: long\nconfig: {seed: 3}\nactions:\n")
	for range 5000 {
		sc.WriteString("  - {delay: 17s, action: {type: slow_agent, target_id: worker-1, metadata: {duration: 2s}}}\n")
	}
	sc.WriteString("expect: {all_recovered: true}\n")
	if err := os.WriteFile(long, []byte(sc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"shrink", day, "--consistent", "--budget", "10m", "--progress", "never"},
		{"shrink", long, "--budget", "10m", "--progress", "never"},
	} {
		c := startChild(t, nil, args...)
		go func() { _, _ = c.stdout.WriteTo(io.Discard) }() // the best schedule so far, written when interrupted
		took, code := c.signalAndWait(t, os.Interrupt, 10*time.Second)
		if code != exitInfra {
			t.Errorf("arena %s: exit %d after SIGINT (%s), want 3", strings.Join(args, " "), code, took)
		}
	}
}

// Every bad flag is bad input (exit 2), naming the flag, before anything
// runs: counts beyond shrink's bounds, the system's flags, a --min-score
// that is not a number from 0 to 100 (NaN would switch the gate off), and
// an --out that is the input, by any path.
func TestShrinkBadFlagsExit2(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "decoys.yaml")
	if err := os.WriteFile(in, []byte(decoys), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.yaml")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	report := forge(t, survivalReport(t), dir, "survival.json", time.Hour, 2*time.Second)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{in, "--runs", "5000"}, "--runs: want 0 to 1000, got 5000"},
		{[]string{in, "--replays", "5000"}, "--replays: want 1 to 1000, got 5000"},
		{[]string{in, "--replays", "0"}, "--replays: want 1 to 1000, got 0"},
		{[]string{in, "--workers", "0"}, "--workers: want 1 to 10000, got 0"},
		{[]string{in, "--probe-interval", "2h"}, "--probe-interval: 2h is out of range"},
		{[]string{in, "--min-score", "NaN"}, "--min-score: NaN is not between 0 and 100"},
		{[]string{in, "--min-score", "+Inf"}, "--min-score: +Inf is not between 0 and 100"},
		{[]string{in, "--min-score", "-Inf"}, "--min-score: -Inf is not between 0 and 100"},
		{[]string{report, "--min-score", "NaN"}, "--min-score: NaN is not between 0 and 100"},
		{[]string{in, "--out", in}, "--out: " + in + " is the input; write it elsewhere"},
		{[]string{in, "--out", dir + "/./x/../decoys.yaml"}, "is the input"},
		{[]string{in, "--out", link}, "--out: " + link + " is the input"},
		{[]string{in, "--out", hard}, "--out: " + hard + " is the input"},
		{[]string{link, "--out", in}, "--out: " + in + " is the input"},
	} {
		args := append([]string{"shrink"}, tc.args...)
		code, stdout, stderr := cli(t, args...)
		if code != exitBadInput || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("arena %q = %d, stderr %q; want 2 and %q", args, code, stderr, tc.want)
		}
	}
	if b, err := os.ReadFile(in); err != nil || string(b) != decoys {
		t.Errorf("the input changed (%v):\n%s", err, b)
	}
}
