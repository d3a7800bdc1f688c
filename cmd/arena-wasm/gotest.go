package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
)

// goTest runs go test for wasip1/wasm with this program as -exec, and
// explains a package that does not build there.
func goTest(ctx context.Context, args []string, dir string, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "arena-wasm: %v\n", err)
		return 3
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-exec", self}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	// go test's two streams, copied by two goroutines, into one buffer.
	seen := &lockedBuffer{}
	cmd.Stdout = io.MultiWriter(stdout, seen)
	cmd.Stderr = io.MultiWriter(stderr, seen)
	err = cmd.Run()
	if why := unbuildable(seen.String()); why != "" {
		fmt.Fprint(stderr, why)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(stderr, "arena-wasm: go test: %v\n", err)
		return 3
	}
	return 0
}

var (
	excluded = regexp.MustCompile(`(?m)imports ([^\s:]+): build constraints exclude all Go files`)
	cgo      = regexp.MustCompile(`(?m)(imports|import) "?C"?|requires cgo|cgo: `)
	undef    = regexp.MustCompile(`(?m)^([^\s:]+\.go):\d+:\d+: undefined: (syscall|unix)\.(\w+)`)
)

// unbuildable explains why go test could not build a package for
// wasip1, from its output: the import that stops it, and what to do.
func unbuildable(out string) string {
	var why string
	switch {
	case excluded.MatchString(out):
		why = fmt.Sprintf("it imports %s, which has no code for wasip1", excluded.FindStringSubmatch(out)[1])
	case undef.MatchString(out):
		m := undef.FindStringSubmatch(out)
		why = fmt.Sprintf("%s uses %s.%s, which wasip1 does not have", m[1], m[2], m[3])
	case cgo.MatchString(out) && strings.Contains(out, "wasip1"):
		why = "it needs cgo, which wasip1 cannot have"
	default:
		return ""
	}
	return "arena-wasm: the package does not build for GOOS=wasip1 GOARCH=wasm: " + why + ".\n" +
		"  fix: run it in the native simulated mode (go test, arenatest.Simulate: fast, not exact), or put that dependency\n" +
		"  behind an interface the test gives an in-memory implementation of (mmap-backed stores, x/sys/unix, cgo cannot run there)\n"
}

// lockedBuffer is a buffer two goroutines write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
