package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/scenarios"
)

func TestValidate(t *testing.T) {
	var files []string
	for _, name := range scenarios.Names() {
		files = append(files, filepath.Join("..", "..", "scenarios", name+".yaml"))
	}
	code, out, errOut := cli(t, append([]string{"validate", "leader-failover"}, files...)...)
	if code != exitPass || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(files)+1 || lines[0] != "ok  leader-failover: leader-failover, 2 steps, planned 50s" {
		t.Errorf("stdout:\n%s", out)
	}

	dir := t.TempDir()
	tabs := filepath.Join(dir, "tabs.yaml")
	if err := os.WriteFile(tabs, []byte("name: x\n\tactions: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cli(t, "validate", "mcp-flap", filepath.Join("testdata", "invalid.yaml"), tabs, "missing.yaml")
	if code != exitBadInput {
		t.Errorf("exit %d, want 2", code)
	}
	if out != "ok  mcp-flap: mcp-flap, 5 steps, planned 47s\n" {
		t.Errorf("stdout = %q", out)
	}
	for _, want := range []string{
		"testdata/invalid.yaml:3:3: config.paralel_actions: unknown key",
		"testdata/invalid.yaml:6:18: actions[0].depends_on[0]: unknown label \"b\"",
		tabs + ":2: invalid YAML: found a tab character that violates indentation\n",
		`"missing.yaml" is neither a built-in scenario`,
		"arena: 3 of 4 scenarios invalid\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// Issue 14: one step with 20 unknown keys, aliased 10,000 times (70 KB),
// prints little.
func TestValidateAliasAmplification(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: amp\nactions:\n  - &a\n    action: {type: kill_agent, target_id: worker-1}\n")
	for i := range 20 {
		fmt.Fprintf(&b, "    bogus%02d: 1\n", i)
	}
	for range 9_999 {
		b.WriteString("  - *a\n")
	}
	file := filepath.Join(t.TempDir(), "amp.yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, out, errOut := cli(t, "validate", file)
	t.Logf("%d bytes in: %d bytes out in %s", b.Len(), len(out)+len(errOut), time.Since(start))
	if code != exitBadInput || len(out)+len(errOut) >= 64<<10 || !strings.Contains(errOut, "YAML nodes") {
		t.Errorf("validate(amp) = exit %d, %d bytes, want exit 2 and under 64 KiB:\n%.500s", code, len(out)+len(errOut), errOut)
	}
}

// validate accepts exactly what run can run: the jitter that passed
// validate and then wedged run (issue 26) is refused by both, with the
// field and the range; the largest jitter accepted runs to the end.
func TestValidateAcceptsWhatRunRuns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, jitter string) string {
		path := filepath.Join(dir, name)
		sc := "name: " + name + "\nconfig: {cooldown: 5s}\nactions:\n" +
			"  - action: {type: network_latency, target_id: worker-1, metadata: {latency: 1h, jitter: " + jitter + ", duration: 2s}}\n"
		if err := os.WriteFile(path, []byte(sc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bad, good := write("bad.yaml", "1281024h"), write("good.yaml", "1h")
	want := "bad.yaml:4:82: actions[0].action.metadata.jitter: 1281024h is out of range (want 0 to 1h)"
	for _, cmd := range []string{"validate", "run"} {
		code, _, errOut := cli(t, cmd, bad)
		if code != exitBadInput || !strings.Contains(errOut, want) {
			t.Errorf("arena %s bad.yaml = %d, %q; want 2 and %q", cmd, code, errOut, want)
		}
	}
	if code, _, errOut := cli(t, "validate", good); code != exitPass {
		t.Fatalf("arena validate good.yaml = %d, %q", code, errOut)
	}
	done := make(chan int, 1)
	go func() { code, _, _ := cli(t, "run", good, "--seed", "1"); done <- code }()
	select {
	case code := <-done:
		if code != exitPass && code != exitGateFailed {
			t.Errorf("arena run good.yaml = %d, want it to run to its end", code)
		}
	case <-time.After(time.Minute):
		t.Fatal("arena run good.yaml never ended")
	}
}

// A valid scenario whose tags repeat a 1 MB description made `run --json`
// write 1.0 GB (4.0 GB of memory) before issue 26; it is refused now, by
// validate and run alike, in a few bytes.
func TestRunRefusesAnAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: bomb\ndescription: &v " + strings.Repeat("x", 1_000_000) + "\ntags:\n")
	for range 1_000 {
		b.WriteString("  - *v\n")
	}
	b.WriteString("actions:\n  - action: {type: kill_leader}\n")
	file := filepath.Join(t.TempDir(), "bomb.yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"validate", file}, {"run", file, "--json"}} {
		code, out, errOut := cli(t, args...)
		if code != exitBadInput || len(out)+len(errOut) > 1<<10 || !strings.Contains(errOut, "bytes of text after expanding aliases") {
			t.Errorf("arena %s = exit %d, %d bytes out, want exit 2 and a short message:\n%.300s", args[0], code, len(out)+len(errOut), errOut)
		}
	}
}
