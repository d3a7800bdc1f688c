package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shellSplit splits a command printed by rerunCommand: words, single quotes.
func shellSplit(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	var b strings.Builder
	quoted, word := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			quoted, word = !quoted, true
		case c == ' ' && !quoted:
			if word {
				out = append(out, b.String())
				b.Reset()
			}
			word = false
		default:
			b.WriteByte(c)
			word = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if word {
		out = append(out, b.String())
	}
	return out
}

var rerunLine = regexp.MustCompile(`rerun with: (arena .*)\n`)

// Rerun means rerun: the command printed with a failure, run as it is,
// gives the same report. Before issue 26 survive's dropped --workers,
// --max-active, the observe flags and the gate (a run scoring 94.2 "reran"
// as 97.5), and run's the system's flags.
func TestRerunMeansRerun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "my scenario.yaml")
	if err := os.WriteFile(file, []byte(`name: rerun
config: {warmup: 1s, cooldown: 10s}
actions:
  - action: {type: kill_leader}
  - delay: 2s
    action: {type: network_latency, target_id: type:worker, metadata: {latency: 2s, jitter: 1s, duration: 5s}}
expect: {min_score: 100}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"survive", "--duration", "20m", "--interval", "7s", "--workers", "5", "--max-active", "2",
			"--probe-interval", "250ms", "--settle-time", "3s", "--stable-samples", "2", "--recovery-deadline", "20s",
			"--mix", "kill_agent=2, slow_agent=1,network_latency", "--min-score", "100", "--seed", "11", "--json"},
		{"run", file, "--workers", "4", "--probe-interval", "200ms", "--settle-time", "2s", "--seed", "5", "--json"},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, first, errOut := cli(t, args...)
			m := rerunLine.FindStringSubmatch(errOut)
			if code != exitGateFailed || m == nil {
				t.Fatalf("arena %s = exit %d, stderr %q; want a failed gate and a rerun command", args[0], code, errOut)
			}
			rerun := shellSplit(t, m[1])
			t.Logf("rerun with: %s", m[1])
			code2, again, errOut2 := cli(t, append(rerun[1:], "--json")...)
			if code2 != code || rerunLine.FindStringSubmatch(errOut2)[1] != m[1] {
				t.Errorf("the rerun = exit %d, stderr %q; want exit %d and the same rerun command", code2, errOut2, code)
			}
			first, again = wallTime.ReplaceAllString(first, ""), wallTime.ReplaceAllString(again, "")
			if first != again {
				t.Errorf("the rerun's report differs from the run's:\nrun:   %.600s\nrerun: %.600s", first, again)
			}
		})
	}
}

// The flags that cannot be rerun in virtual time are kept too: a run in
// real time is rerun in real time.
func TestRerunKeepsRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs in real time")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	code, _, errOut := cliCtx(t, ctx, "survive", "--virtual=false", "--duration", "1s", "--interval", "500ms", "--min-score", "100", "--workers", "2", "--progress", "never")
	m := rerunLine.FindStringSubmatch(errOut)
	if code != exitInfra || m == nil {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"--virtual=false", "--workers=2", "--min-score=100", "--duration=1s", "--interval=500ms"} {
		if !strings.Contains(m[1], want) {
			t.Errorf("rerun %q lacks %s", m[1], want)
		}
	}
	if strings.Contains(m[1], "--progress") {
		t.Errorf("rerun %q keeps an output flag", m[1])
	}
}
