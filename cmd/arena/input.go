package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ares-arena/arena"
)

// Limits of the command line: a value beyond them is bad input naming the
// limit, not a run that takes the machine down.
const (
	maxWorkers  = 10_000               // --workers
	maxDuration = 366 * 24 * time.Hour // --duration and the like: a year
)

// interruptGrace is how long a command has to end after SIGINT or SIGTERM
// before the process exits anyway: a read from a terminal or a FIFO cannot
// be cancelled, and a command must never need SIGKILL.
const interruptGrace = 1500 * time.Millisecond

// stdinArg is the scenario argument that reads standard input.
const stdinArg = "-"

// readScenarioFile loads a scenario from a regular file, or from standard
// input for "-", refusing at once what is not a regular file (a FIFO or a
// device would block the read, or never end) and what is larger than
// arena.MaxScenarioSize.
func readScenarioFile(arg string) (*arena.Scenario, error) {
	if arg == stdinArg {
		data, err := io.ReadAll(io.LimitReader(os.Stdin, arena.MaxScenarioSize+1))
		if err != nil {
			return nil, fmt.Errorf("standard input: %w", err)
		}
		return arena.LoadScenario(data, "<stdin>")
	}
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(arg, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil { // it may have changed since
		return nil, err
	}
	if err := checkRegular(arg, fi); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, arena.MaxScenarioSize+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	return arena.LoadScenario(b.Bytes(), arg)
}

func checkRegular(name string, fi os.FileInfo) error {
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file (%s); give a scenario file, or - for standard input", name, fileKind(fi.Mode()))
	case fi.Size() > arena.MaxScenarioSize:
		return fmt.Errorf("%s: %d bytes, larger than the limit of %d bytes", name, fi.Size(), arena.MaxScenarioSize)
	}
	return nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	default:
		return "mode " + m.String()
	}
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
