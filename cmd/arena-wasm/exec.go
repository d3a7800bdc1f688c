package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/ares-arena/arena/wasmhost"
)

// execBinary is the -exec form: load the binary (from the cache when it
// was compiled before), then run its command line.
func execBinary(ctx context.Context, path string, args []string) int {
	a, err := wasmhost.ParseArgs(args)
	if err == nil {
		err = a.SeedFromEnv(os.Getenv("ARENA_SEED"))
	}
	if v := os.Getenv("ARENA_WASM_SEED"); err == nil && v != "" && a.Seed == 0 {
		// The environment form of -arena.wasmseed.
		a.Seed, err = strconv.ParseUint(v, 10, 64)
		if err != nil {
			err = fmt.Errorf("ARENA_WASM_SEED: %q is not a seed (want a non-negative integer)", v)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "arena-wasm: %v\n", err)
		return 2
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "arena-wasm: %v\n", err)
		return 3
	}
	if len(wasm) < 4 || string(wasm[:4]) != "\x00asm" {
		fmt.Fprintf(os.Stderr, "arena-wasm: %s is no WebAssembly module: build it with GOOS=wasip1 GOARCH=wasm (arena-wasm test does)\n", path)
		return 2
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "arena-wasm: %v\n", err)
		return 3
	}
	cfg := wasmhost.Config{Dir: dir, Env: os.Environ(), CacheDir: cacheDir()}
	if os.Getenv("ARENA_WASM_VERBOSE") != "" {
		cfg.Trace = os.Stderr
	}
	if v := os.Getenv("ARENA_WASM_PROCS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "arena-wasm: ARENA_WASM_PROCS: %q is not a number of instances (want at least 1)\n", v)
			return 2
		}
		cfg.Procs = n
	}
	if path := os.Getenv("ARENA_WASM_CPUPROFILE"); path != "" {
		stop, err := cpuProfile(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "arena-wasm: ARENA_WASM_CPUPROFILE: %v\n", err)
			return 2
		}
		defer stop()
	}
	start := time.Now()
	h, err := wasmhost.New(ctx, wasm, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "arena-wasm: %s: %v\n", path, err)
		return 3
	}
	defer h.Close(context.Background())
	if os.Getenv("ARENA_WASM_VERBOSE") != "" {
		fmt.Fprintf(os.Stderr, "arena-wasm: %s (build %s) loaded in %s\n", filepath.Base(path), h.Build()[:16], time.Since(start).Round(time.Millisecond))
	}
	if a.Timeout > 0 {
		// An instance stops at its next clock reading once its time is
		// up; one that spins without reading it (Go on wasm has no
		// preemption) is ended with the process.
		hard := time.AfterFunc(a.Timeout+10*time.Second, func() {
			fmt.Fprintf(os.Stderr, "panic: test timed out after %s (arena-wasm: -test.timeout, on the host's clock; the program did not stop at a clock reading)\n", a.Timeout)
			os.Exit(2)
		})
		defer hard.Stop()
	}
	return h.Exec(ctx, a, os.Stdout, os.Stderr)
}

// cacheDir is where compiled modules are kept: ARENA_WASM_CACHE, else
// arena/wazero under the user's cache directory, else none.
func cacheDir() string {
	if d := os.Getenv("ARENA_WASM_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "arena", "wazero")
}

// cpuProfile profiles the host (ARENA_WASM_CPUPROFILE): where its time
// goes between the compiled program, the host's calls and the runtime.
func cpuProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
