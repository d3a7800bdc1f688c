package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
)

// Limits of the command line: a value beyond them is bad input naming the
// limit, not a run that takes the machine down.
const (
	maxWorkers   = 10_000                     // --workers
	maxDuration  = engine.MaxSurvivalDuration // --duration and the like: survival's longest
	maxStreams   = 10_000                     // serve --max-streams
	maxBodyLimit = 64 << 20                   // serve --body-limit, bytes
	maxRetention = 10_000_000                 // serve --retention
)

// interruptGrace is how long a command has to end after SIGINT or SIGTERM
// before the process exits anyway: a read from a terminal or a FIFO cannot
// be cancelled, and a command must never need SIGKILL.
const interruptGrace = 1500 * time.Millisecond

// stdinArg is the scenario argument that reads standard input.
const stdinArg = "-"

// readStdinScenario loads a scenario from standard input (the argument
// "-"), at most scenario.MaxSize bytes of it.
func readStdinScenario() (*scenario.Scenario, error) {
	data, err := io.ReadAll(io.LimitReader(os.Stdin, scenario.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	return scenario.Load(data, "<stdin>")
}

// checkWorkers bounds --workers.
func checkWorkers(n int) error {
	if n < 1 || n > maxWorkers {
		return badInput(fmt.Errorf("--workers: want 1 to %d, got %d", maxWorkers, n))
	}
	return nil
}

// checkDuration bounds a duration flag: positive and at most maxDuration.
func checkDuration(flag string, d time.Duration) error {
	if d <= 0 || d > maxDuration {
		return badInput(fmt.Errorf("--%s: want a duration above 0 and at most %s, got %s", flag, maxDuration, d))
	}
	return nil
}

// exitAfterGrace makes sure an interrupted command ends: once ctx is done
// (a signal), the command has grace to return before exit is called with
// the infrastructure code. The returned stop ends the watch.
func exitAfterGrace(ctx context.Context, grace time.Duration, stderr io.Writer, exit func(int)) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			fmt.Fprintf(stderr, "arena: interrupted; still busy after %s, exiting\n", grace)
			exit(exitInfra)
		}
	}()
	return func() { close(done) }
}

// checkOutputs refuses output files (by flag) that are the input file or
// one another, by any path to them (a symbolic or hard link too): --junit
// scenario.yaml would overwrite the scenario it runs, shrink's --out the
// scenario it shrinks.
func checkOutputs(input string, outputs map[string]string) error {
	same := func(a, b string) bool {
		if filepath.Clean(a) == filepath.Clean(b) {
			return true
		}
		fa, errA := os.Stat(a)
		fb, errB := os.Stat(b)
		return errA == nil && errB == nil && os.SameFile(fa, fb)
	}
	flags := slices.Sorted(maps.Keys(outputs))
	for i, flag := range flags {
		out := outputs[flag]
		if out == "" {
			continue
		}
		if input != stdinArg && same(input, out) {
			return badInput(fmt.Errorf("--%s: %s is the input; write it elsewhere", flag, out))
		}
		for _, other := range flags[i+1:] {
			if outputs[other] != "" && same(out, outputs[other]) {
				return badInput(fmt.Errorf("--%s and --%s: both write %s", flag, other, out))
			}
		}
	}
	return nil
}

// capReader reads r and fails once it has given more than limit bytes: a
// decoder that streams its input stops there with a *tooLargeError, not on
// a document cut short.
type capReader struct {
	r     io.Reader
	limit int64
	read  int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.read > c.limit {
		return 0, &tooLargeError{c.limit}
	}
	if rest := c.limit + 1 - c.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	if c.read > c.limit {
		return n, &tooLargeError{c.limit}
	}
	return n, err
}

// tooLargeError: an input beyond its limit, in bytes.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string { return fmt.Sprintf("larger than %d bytes", e.limit) }
