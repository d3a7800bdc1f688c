// Package wasmguest is arena's side of the deterministic host
// (cmd/arena-wasm, package wasmhost): whether the program runs under it,
// the build it runs, and the calls a test helper makes to it: the run's
// seed, a child instance per seed of a sweep, a value for the parent.
// Outside that host (any GOOS but wasip1, or another WebAssembly runtime)
// Active is false and the calls return ErrNoHost.
package wasmguest

import (
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// ErrNoHost: the program does not run under arena's deterministic host.
var ErrNoHost = errors.New("not under arena-wasm")

// Active reports whether the program runs under arena's deterministic
// host: every random bit and clock reading it gets comes from its seed.
func Active() bool { return active }

var active = runtime.GOOS == "wasip1" && os.Getenv("ARENA_WASM_HOST") != ""

// Build is what a deterministic execution depends on besides its command
// line and seed: the binary (its sha256, which pins the toolchain, the
// program and every module version) and, to say so to a reader, the Go
// version and the modules it was built from.
type Build struct {
	ID      string   `json:"id"`             // sha256 of the test binary, first 16 hex digits
	Go      string   `json:"go"`             // runtime.Version()
	Modules []string `json:"modules"`        // path@version of the main module and its dependencies
	Host    string   `json:"host,omitempty"` // the host: arena-wasm and wazero
}

// Current is the running program's build, nil outside the host.
func Current() *Build {
	if !active {
		return nil
	}
	b := &Build{ID: os.Getenv("ARENA_WASM_BUILD"), Go: runtime.Version(), Host: "arena-wasm (wazero)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.Modules = append(b.Modules, bi.Main.Path+"@"+orDevel(bi.Main.Version))
		for _, d := range bi.Deps {
			v := d.Version
			if d.Replace != nil {
				v = "=> " + d.Replace.Path + "@" + orDevel(d.Replace.Version)
			}
			b.Modules = append(b.Modules, d.Path+"@"+v)
		}
	}
	return b
}

func orDevel(v string) string {
	if v == "" {
		return "(devel)"
	}
	return v
}

// Outcome is how a child instance ended.
type Outcome struct {
	Exit   int             `json:"exit"`
	Output string          `json:"output"`
	Result json.RawMessage `json:"result,omitempty"` // what it handed on (Hand)
	Err    string          `json:"err,omitempty"`    // the host's trouble running it
}

// ChildAs is what the instance that spawned this one asked it to be
// (Spawn's as), "" in an instance go test started.
func ChildAs() string {
	if !active {
		return ""
	}
	return os.Getenv("ARENA_WASM_CHILD")
}

// InstanceSeed is the seed the instance runs under (its host random
// source's) and whether it is every run's too (ARENA_SEED: -arena.seed,
// or a sweep's child) rather than the seed its first simulation asked for
// (ARENA_WASM_SEED); 0 when it runs under none.
func InstanceSeed() (seed uint64, override bool) {
	if !active {
		return 0, false
	}
	if s, err := strconv.ParseUint(os.Getenv("ARENA_SEED"), 10, 64); err == nil && s != 0 {
		return s, true
	}
	s, _ := strconv.ParseUint(os.Getenv("ARENA_WASM_SEED"), 10, 64)
	return s, false
}

// Passed reports whether the host passes the environment variable k on
// to the program from its own environment: the ARENA_* variables (but
// ARENA_SEED and the host's own ARENA_WASM_*, which it sets per instance)
// and those that steer the Go runtime. A replay command repeats them.
func Passed(k string) bool {
	switch {
	case k == "ARENA_SEED", strings.HasPrefix(k, "ARENA_WASM_"):
		return false
	case strings.HasPrefix(k, "ARENA_"), k == "GODEBUG", k == "GOGC", k == "GOMEMLIMIT", k == "GOTRACEBACK":
		return true
	}
	return false
}

// SplitRun splits a -test.run pattern into its elements, at slashes
// outside brackets and parentheses, as the testing package does.
func SplitRun(run string) []string {
	if run == "" {
		return nil
	}
	var out []string
	depth, from := 0, 0
	for i, r := range run {
		switch r {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '/':
			if depth == 0 {
				out = append(out, run[from:i])
				from = i + 1
			}
		}
	}
	return append(out, run[from:])
}
