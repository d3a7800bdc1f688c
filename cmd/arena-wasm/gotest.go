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
)

// goTest runs go test for wasip1/wasm with this program as -exec, and
// explains a package that does not build there.
func goTest(ctx context.Context, args []string) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "arena-wasm: %v\n", err)
		return 3
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"test", "-exec", self}, args...)...)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	var seen bytes.Buffer
	cmd.Stdout = io.MultiWriter(os.Stdout, &seen)
	cmd.Stderr = io.MultiWriter(os.Stderr, &seen)
	err = cmd.Run()
	if why := unbuildable(seen.String()); why != "" {
		fmt.Fprint(os.Stderr, why)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "arena-wasm: go test: %v\n", err)
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
