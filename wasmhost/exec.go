package wasmhost

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/ares-arena/arena/internal/wasmguest"
)

// Exec runs a test binary's command line as go test gives it (-exec):
// each top-level test that -test.run selects in an instance of its own,
// as many at once as the host has slots, their output in the order of
// the tests, and one PASS or FAIL at the end. An instance's execution is a
// function of the test, the arguments and the seed: a test run alone with
// the same arguments does exactly what it did among the others. A command
// line that lists, benchmarks or fuzzes runs in one instance, as given.
// Exec returns the exit code.
func (h *Host) Exec(ctx context.Context, a Args, stdout, stderr io.Writer) int {
	if a.Build != "" && !strings.HasPrefix(h.build, a.Build) {
		fmt.Fprintf(stderr, "arena-wasm: this test binary is build %s, the run to replay was build %s: "+
			"another toolchain, program or module version may make the replay differ\n", h.build[:16], a.Build)
	}
	if a.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, a.Timeout, fmt.Errorf("test timed out after %s", a.Timeout))
		defer cancel()
	}
	if a.Single {
		o := h.run(ctx, spec{keep: a.Keep, run: a.Run, seed: a.Seed, override: a.Override})
		stdout.Write(o.output)
		return h.exitOf(o, stderr, a, "")
	}
	names, code := h.list(ctx, a, stdout, stderr)
	if names == nil {
		return code
	}
	_, rest := splitRun(a.Run)
	done := make([]chan outcome, len(names))
	for i, name := range names {
		done[i] = make(chan outcome, 1)
		run := "^" + regexp.QuoteMeta(name) + "$" + rest
		go func() { done[i] <- h.run(ctx, spec{keep: a.Keep, run: run, seed: a.Seed, override: a.Override}) }()
	}
	failed := false
	code = 0
	for i, name := range names {
		o := <-done[i]
		out, verdict := trimVerdict(o.output)
		stdout.Write(out)
		if c := h.exitOf(o, stderr, a, name); c != 0 || verdict == "FAIL" {
			failed = true
			if code == 0 || c > code {
				code = max(c, 1)
			}
		}
	}
	if failed {
		fmt.Fprintln(stdout, "FAIL")
		return code
	}
	fmt.Fprintln(stdout, "PASS")
	return 0
}

// list runs the instance that lists the tests -test.run selects: their
// names, without the benchmarks (they run only under -test.bench, in one
// instance). No name at all runs the command line in one instance, which
// says so as go test would; names is nil then.
func (h *Host) list(ctx context.Context, a Args, stdout, stderr io.Writer) (names []string, code int) {
	top, _ := splitRun(a.Run)
	if top == "" {
		top = "."
	}
	o := h.run(ctx, spec{keep: append([]string{"-test.list=" + top}, a.Keep...)})
	if o.err != nil || o.code != 0 {
		stdout.Write(o.output)
		return nil, h.exitOf(o, stderr, a, "")
	}
	sc := bufio.NewScanner(bytes.NewReader(o.output))
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "Benchmark") || strings.ContainsAny(name, " \t:") {
			continue
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		o := h.run(ctx, spec{keep: a.Keep, run: a.Run, seed: a.Seed, override: a.Override})
		stdout.Write(o.output)
		return nil, h.exitOf(o, stderr, a, "")
	}
	return names, 0
}

// exitOf is the exit code for o, with the host's trouble said on stderr.
func (h *Host) exitOf(o outcome, stderr io.Writer, a Args, test string) int {
	if o.err == nil {
		return int(o.code)
	}
	if a.Timeout > 0 && strings.Contains(o.err.Error(), "timed out") {
		fmt.Fprintf(stderr, "panic: test timed out after %s (arena-wasm: -test.timeout, on the host's clock)\nrunning tests:\n\t%s\n", a.Timeout, test)
		return 2
	}
	fmt.Fprintf(stderr, "arena-wasm: %s: %v\n", orAll(test), o.err)
	return 3
}

func orAll(test string) string {
	if test == "" {
		return "the test binary"
	}
	return test
}

// splitRun splits -test.run into its top-level pattern and the rest,
// which keeps its leading slash ("^TestA$/^seed=7$" → "^TestA$",
// "/^seed=7$"), as the testing package splits it.
func splitRun(run string) (top, rest string) {
	parts := wasmguest.SplitRun(run)
	if len(parts) == 0 {
		return "", ""
	}
	return parts[0], run[len(parts[0]):]
}

// trimVerdict takes the testing package's last line, PASS or FAIL, off
// an instance's output: Exec prints one for them all.
func trimVerdict(out []byte) ([]byte, string) {
	s := bytes.TrimRight(out, "\n")
	i := bytes.LastIndexByte(s, '\n')
	last := string(bytes.TrimPrefix(s[i+1:], []byte{0x16}))
	if last == "PASS" || last == "FAIL" {
		return out[:i+1], last
	}
	return out, ""
}
