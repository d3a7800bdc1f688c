package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
