package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain()) // this binary re-run as the arena command (child_test.go)
	}
	goleak.VerifyTestMain(m)
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// cli runs the CLI in-process and returns its exit code and output.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliCtx(t, context.Background(), args...)
}

func cliCtx(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

// wallTime matches the one wall-clock field of a JSON report.
var wallTime = regexp.MustCompile(`"wall_time": "[^"]*"`)

func TestHelpAndUsageErrors(t *testing.T) {
	code, out, _ := cli(t, "--help")
	if code != exitPass || !bytes.Contains([]byte(out), []byte("Exit codes: 0 passed, 1 gate failed, 2 bad input, 3 infrastructure error.")) {
		t.Errorf("arena --help = %d:\n%s", code, out)
	}
	for _, args := range [][]string{{"bogus"}, {"run"}, {"run", "a", "b"}, {"run", "--bogus", "leader-failover"}, {"list", "x"}, {"validate"}} {
		code, out, errOut := cli(t, args...)
		if code != exitBadInput || out != "" || errOut == "" {
			t.Errorf("arena %q = %d, stdout %q, stderr %q; want 2 and a message", args, code, out, errOut)
		}
	}
	_, _, errOut := cli(t, "run", "--bogus", "x")
	if want := "arena: unknown flag: --bogus\nRun 'arena run --help' for usage.\n"; errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
}
