package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ares-arena/arena/scenario"
)

// Scenario input is a regular file or standard input: a FIFO (which would
// block the read until a writer comes), a directory or an oversize file is
// refused at once, naming what it is.
func TestScenarioInputMustBeARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, scenario.MaxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ arg, want string }{
		{fifo, "not a regular file (a FIFO); give a scenario file"},
		{dir, "not a regular file (a directory)"},
		{big, "larger than 1048576 bytes"},
	} {
		done := make(chan struct{})
		var code int
		var errOut string
		go func() {
			defer close(done)
			code, _, errOut = cli(t, "validate", tc.arg)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a FIFO open would block forever
			t.Fatalf("validate %s did not return", tc.arg)
		}
		if code != exitBadInput || !strings.Contains(errOut, tc.want) {
			t.Errorf("validate %s = exit %d, %q; want 2 and %q", tc.arg, code, errOut, tc.want)
		}
	}
}

func TestLimitsNameTheLimit(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "leader-failover", "--workers", "1000000"}, "--workers: want 1 to 10000, got 1000000"},
		{[]string{"survive", "--duration", "10000h"}, "--duration: want a duration above 0 and at most 720h0m0s, got 10000h0m0s"},
		{[]string{"survive", "--interval", "-1s"}, "--interval: want a duration above 0"},
		{[]string{"survive", "--max-active", "0"}, "--max-active: want 1 to 10000, got 0"},
		{[]string{"survive", "--min-score", "NaN"}, "--min-score: NaN is not between 0 and 100"},
		{[]string{"survive", "--probe-interval", "2h"}, "--probe-interval: 2h is out of range (want 1ms to 1h)"},
		{[]string{"serve", "--max-survival", "10000h"}, "--max-survival: want a duration above 0 and at most 720h0m0s"},
		{[]string{"serve", "--max-streams", "1000000"}, "--max-streams: want 1 to 10000, got 1000000"},
		{[]string{"serve", "--body-limit", "1000000000000"}, "--body-limit: want 1 to 67108864 bytes, got 1000000000000"},
		{[]string{"serve", "--retention", "1000000000000"}, "--retention: want 1 to 10000000, got 1000000000000"},
		{[]string{"serve", "--api-key", "secret\n"}, "--api-key (or ARENA_API_KEY): API key has leading or trailing white space"},
	} {
		code, _, errOut := cli(t, tc.args...)
		if code != exitBadInput || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v = exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// SIGINT ends a command within 2s, even one blocked reading standard input
// (which nothing can cancel) or running in real time.
func TestInterruptEndsEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, args := range [][]string{
		{"validate", "-"}, // stdin is a pipe nobody writes to
		{"run", "leader-failover", "--virtual=false"},
		{"survive", "--virtual=false", "--duration", "1h", "--progress", "never"},
		{"serve", "--addr", "127.0.0.1:0"},
	} {
		t.Run(args[0], func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			c := startChildIn(t, nil, r, args...)
			r.Close()
			c.waitReady(t)
			took, code := c.signalAndWait(t, os.Interrupt, 10*time.Second)
			t.Logf("arena %s: ended %s after SIGINT, exit %d", strings.Join(args, " "), took, code)
			if took > 5*time.Second { // the target is 2s; generous for loaded machines
				t.Errorf("arena %s took %s to end after SIGINT", strings.Join(args, " "), took)
			}
		})
	}
}

func TestValidateReadsStandardInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	c := startChildIn(t, nil, strings.NewReader("name: piped\nactions:\n  - action: {type: kill_leader}\n"), "validate", "-")
	out, _ := io.ReadAll(c.stdout)
	if err := <-c.waited; err != nil || !strings.Contains(string(out), "ok  -: piped, 1 steps") {
		t.Errorf("validate - = %v, stdout %q", err, out)
	}
	c.waited <- nil
}
