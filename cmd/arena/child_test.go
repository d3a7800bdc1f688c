package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary re-runs itself as the arena command, to test what only a
// process has: signals, descriptor limits, FIFOs on stdin.
const (
	childEnv    = "ARENA_TEST_CHILD"  // the arguments, separated by \x1f
	childNOFILE = "ARENA_TEST_NOFILE" // RLIMIT_NOFILE of the child, when set
	// childReadyFD: the child closes this descriptor (its ExtraFiles[0])
	// once it handles signals, so a test signals it only then.
	childReadyFD = 3
)

func childMain() int {
	if s := os.Getenv(childNOFILE); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			return 99
		}
		lim := syscall.Rlimit{Cur: n, Max: n}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			fmt.Fprintln(os.Stderr, "child: setrlimit:", err)
			return 99
		}
	}
	signalsHandled = func() {
		if f := os.NewFile(childReadyFD, "ready"); f != nil {
			f.Close()
		}
	}
	return mainCode(strings.Split(os.Getenv(childEnv), "\x1f"))
}

// child is the arena command in a process of its own.
type child struct {
	cmd    *exec.Cmd
	stdout *bufio.Reader
	waited chan error
	ready  *os.File // reads EOF once the child handles signals
}

// waitReady blocks until the child handles signals (or has exited).
func (c *child) waitReady(t *testing.T) {
	t.Helper()
	_, _ = io.Copy(io.Discard, c.ready)
}

func startChild(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	return startChildIn(t, env, nil, args...)
}

// startChildIn is startChild with stdin.
func startChildIn(t *testing.T, env []string, stdin io.Reader, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Stdin = stdin
	cmd.Env = append(append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f")), env...)
	cmd.Stderr = os.Stderr
	// Not StdoutPipe: Wait closes that pipe when the process exits, and
	// output not yet read is lost (Wait runs on its own goroutine here). The
	// child writes to this pipe's other end itself; we read to its EOF.
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	ready, readyW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{readyW} // the child's descriptor childReadyFD
	err = cmd.Start()
	w.Close()
	readyW.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stdout: bufio.NewReader(out), waited: make(chan error, 1), ready: ready}
	go func() { c.waited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.waited
		out.Close()
		ready.Close()
	})
	return c
}

// servingURL reads the child serve's first line and returns its URL.
func (c *child) servingURL(t *testing.T) string {
	t.Helper()
	line, err := c.stdout.ReadString('\n')
	if err != nil {
		t.Fatalf("arena serve printed nothing: %v", err)
	}
	m := regexp.MustCompile(`serving on (http://\S+) `).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q does not say where it serves", line)
	}
	go func() { _, _ = c.stdout.WriteTo(io.Discard) }()
	return m[1]
}

// signalAndWait sends sig and returns how long the child took to exit, and
// its exit code; it fails the test beyond limit.
func (c *child) signalAndWait(t *testing.T, sig os.Signal, limit time.Duration) (time.Duration, int) {
	t.Helper()
	c.waitReady(t)
	start := time.Now()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.waited:
		c.waited <- nil // for the cleanup
		if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("killed by %v: the signal was not handled", ws.Signal())
		}
		return time.Since(start), c.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("the command did not end within %s of %v", limit, sig)
		return 0, -1
	}
}
