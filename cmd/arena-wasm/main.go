// Command arena-wasm runs Go test binaries built for GOOS=wasip1
// GOARCH=wasm deterministically: on one thread under an embedded
// WebAssembly runtime (wazero), every random bit and clock reading the
// program gets derived from its arguments and its seed (-arena.seed,
// ARENA_SEED). The same command line then runs the same execution,
// goroutine interleavings included, on any machine with the same build.
//
//	arena-wasm test ./...                          # go test, deterministic
//	arena-wasm test -run '^TestRaft$' -arena.seed=7 .
//	GOOS=wasip1 GOARCH=wasm go test -exec arena-wasm ./...   # the same, by hand
//
// As go test's -exec program it gets the test binary and its arguments;
// "arena-wasm test" runs go test so, and when a package does not build
// for wasip1 it names the import that stops it and the fix.
//
// Compiled binaries are kept in the user's cache directory
// (ARENA_WASM_CACHE, default $XDG_CACHE_HOME/arena/wazero): a binary
// already run loads in about a second instead of compiling for a minute.
// ARENA_WASM_PROCS bounds the instances that run at once (default: the
// cores).
//
// Exit codes: the test binary's (0 passed, 1 failed), 2 bad arguments or a
// timeout, 3 the host's trouble (a binary it cannot load or run).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

func run(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(os.Stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "test" {
		return goTest(ctx, args[1:], "", os.Stdout, os.Stderr)
	}
	if strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(os.Stderr, "arena-wasm: %s: want a test binary (or \"test\") first\n%s", args[0], usage)
		return 2
	}
	return execBinary(ctx, args[0], args[1:])
}

const usage = `usage: arena-wasm test [go test flags] [packages]
       arena-wasm <test binary built for wasip1/wasm> [test flags]   (go test -exec)
`
