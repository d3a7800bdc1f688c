package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestDemo runs the quickstart as `go run ./examples/quickstart` does and
// checks the report a user reads: a grade, the three dimensions and every
// scheduled fault.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, 7); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"seed 7, virtual time, 2m0s observed", "grade ", "availability", "recovery", "consistency",
		"kill_leader", "kill_agent", "llm_failure", "network_partition"} {
		if !strings.Contains(text, want) {
			t.Errorf("demo report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "injection errors") {
		t.Errorf("a demo fault did not land:\n%s", text)
	}
	var again bytes.Buffer
	if err := run(context.Background(), &again, 7); err != nil {
		t.Fatal(err)
	}
	if again.String() != text {
		t.Errorf("the demo is not reproducible:\n%s\n---\n%s", text, again.String())
	}
}
