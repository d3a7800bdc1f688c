package main

import (
	"strings"
	"testing"

	"github.com/ares-arena/arena/scenarios"
)

func TestList(t *testing.T) {
	code, out, errOut := cli(t, "list")
	if code != exitPass || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(scenarios.Names())+1 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("stdout:\n%s", out)
	}
	for i, name := range scenarios.Names() {
		if !strings.HasPrefix(lines[i+1], name+" ") {
			t.Errorf("line %d = %q, want %s", i+1, lines[i+1], name)
		}
	}
	if !strings.Contains(out, "leader-failover     2      50s     grade ≥ A, MTTR ≤ 2s  failover,leader,kill\n") {
		t.Errorf("leader-failover row missing or changed:\n%s", out)
	}
}
