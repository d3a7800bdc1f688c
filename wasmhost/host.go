package wasmhost

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ares-arena/arena/internal/wasmguest"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// Config is what a Host is made from.
type Config struct {
	// Dir is the package directory: the program's working directory, and
	// with its subdirectories the only part of the host's file system it
	// sees besides a scratch /tmp of its own.
	Dir string
	// Env is the host's environment (os.Environ()). The program gets only
	// the ARENA_* variables (but the host's own, ARENA_WASM_*) and those
	// that steer the Go runtime (GODEBUG, GOGC, GOMEMLIMIT, GOTRACEBACK),
	// in a fixed order.
	Env []string
	// CacheDir keeps compiled modules between runs (wazero's compilation
	// cache); "" compiles every time.
	CacheDir string
	// Procs bounds the instances that run at once (default: the host's
	// cores).
	Procs int
	// Trace, when set, gets a line per instance with its inputs: its
	// seed, command line and environment.
	Trace io.Writer
}

// Host runs instances of one compiled test binary, each on one thread,
// every input it reads derived from its arguments and its seed.
type Host struct {
	rt    wazero.Runtime
	mod   wazero.CompiledModule
	build string // the binary's sha256, hex
	dir   string
	env   [][2]string
	slots chan struct{}
	trace io.Writer // each instance's inputs, when set

	names     atomic.Int64
	instances sync.Map // module name → *instance
}

// New compiles wasm (a test binary built with GOOS=wasip1 GOARCH=wasm),
// or loads it from the cache.
func New(ctx context.Context, wasm []byte, cfg Config) (*Host, error) {
	procs := cfg.Procs
	if procs <= 0 {
		procs = runtime.NumCPU()
	}
	// No WithCloseOnContextDone: the checks it compiles into every loop
	// and call made raft-sim's tests 2.8 times slower. An instance stops
	// at its next clock reading instead (clocks.stop).
	rc := wazero.NewRuntimeConfig()
	if cfg.CacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("compilation cache %s: %w", cfg.CacheDir, err)
		}
		rc = rc.WithCompilationCache(cache)
	}
	sum := sha256.Sum256(wasm)
	h := &Host{
		rt:    wazero.NewRuntimeWithConfig(ctx, rc),
		build: hex.EncodeToString(sum[:]),
		dir:   cfg.Dir,
		env:   programEnv(cfg.Env),
		slots: make(chan struct{}, procs),
		trace: cfg.Trace,
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, h.rt); err != nil {
		h.rt.Close(ctx)
		return nil, err
	}
	if err := h.exportArena(ctx); err != nil {
		h.rt.Close(ctx)
		return nil, err
	}
	// A binary not in the cache compiles on every core (16s on one for
	// raft-sim's 38 MB test binary).
	mod, err := h.rt.CompileModule(experimental.WithCompilationWorkers(ctx, procs), wasm)
	if err != nil {
		h.rt.Close(ctx)
		return nil, fmt.Errorf("compiling the test binary: %w", err)
	}
	h.mod = mod
	return h, nil
}

// Close frees the compiled module and the runtime.
func (h *Host) Close(ctx context.Context) error { return h.rt.Close(ctx) }

// Build is the test binary's identity: the sha256 of its bytes, which
// pin the Go toolchain, the program and every module version it was
// built from.
func (h *Host) Build() string { return h.build }

// programEnv keeps what of the host's environment the program sees.
func programEnv(env []string) [][2]string {
	var out [][2]string
	for _, kv := range env {
		// The host sets the seed and its marks for each instance, and its
		// own settings (ARENA_WASM_VERBOSE) are no input of the program.
		if k, v, ok := strings.Cut(kv, "="); ok && wasmguest.Passed(k) {
			out = append(out, [2]string{k, v})
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// spec is what an instance runs: its command line and seed. Two
// instances of one host with equal specs run the same execution.
type spec struct {
	keep []string // arguments, -test.run aside
	run  string   // -test.run
	seed uint64   // the host's random source's seed; 0: none yet
	// override: seed is also every run's seed (ARENA_SEED, as
	// -arena.seed gives it, and a sweep's child has it). An instance
	// that asked for its simulation's seed (arena.seed) runs under it
	// without: its program sees it as ARENA_WASM_SEED, and the seeds in
	// its code stay its runs' seeds.
	override bool
	// child: what spawned the instance asked it to be (a Replays call
	// or a sweep's seed), "" for an instance go test started. The
	// program sees it as ARENA_WASM_CHILD.
	child string
}

// outcome is how an instance ended.
type outcome struct {
	code    uint32 // the program's exit code
	output  []byte // its standard output and error, in the order written
	result  []byte // what it handed the host (arena.result), if anything
	restart uint64 // the seed an instance without one asked to run under
	err     error  // the host's trouble (a trap, a timeout), not the program's
}

// Exit codes of an instance the host stops: to run it again under the
// seed the program asked for, or because the context ended (a timeout).
const (
	exitRestart = 0xa7e4a
	exitStopped = 0xa7e4b
)

// instance is one running instance: what its host functions need.
type instance struct {
	h        *Host
	spec     spec
	out      bytes.Buffer
	result   []byte
	restart  uint64
	children map[int32]*child
	next     int32
}

// run runs s to its end: an instance that asks for a seed (arena.seed)
// runs again from the start under it, so that what it does is what a
// command line with that seed does.
func (h *Host) run(ctx context.Context, s spec) outcome {
	for {
		o := h.once(ctx, s)
		if o.restart == 0 {
			return o
		}
		s.seed = o.restart
	}
}

// once runs one instance of s.
func (h *Host) once(ctx context.Context, s spec) outcome {
	scratch, err := os.MkdirTemp("", "arena-wasm-")
	if err != nil {
		return outcome{err: err}
	}
	defer os.RemoveAll(scratch)
	inst := &instance{h: h, spec: s, children: map[int32]*child{}}
	name := "test-" + strconv.FormatInt(h.names.Add(1), 10)
	h.instances.Store(name, inst)
	defer h.instances.Delete(name)

	c := clocks{stop: new(atomic.Bool)}
	defer context.AfterFunc(ctx, func() { c.stop.Store(true) })()
	fsc := wazero.NewFSConfig().WithDirMount(scratch, "/tmp")
	if h.dir != "" {
		fsc = fsc.WithDirMount(h.dir, h.dir)
	}
	mc := wazero.NewModuleConfig().WithName(name).
		WithArgs(argv(s.keep, s.run)...).
		WithStdout(&inst.out).WithStderr(&inst.out).
		WithRandSource(randomSource(s.seed)).
		WithWalltime(c.walltime, 1).WithNanotime(c.nanotime, 1).WithNanosleep(c.nanosleep).
		WithFSConfig(fsc)
	for _, kv := range h.instanceEnv(s) {
		mc = mc.WithEnv(kv[0], kv[1])
	}
	if h.trace != nil {
		fmt.Fprintf(h.trace, "arena-wasm: instance %s: seed %d, args %q, env %q\n", name, s.seed, argv(s.keep, s.run), h.instanceEnv(s))
	}
	h.acquire()
	mod, err := h.rt.InstantiateModule(ctx, h.mod, mc)
	if mod != nil {
		mod.Close(context.Background())
	}
	h.release()
	inst.abandon()
	o := outcome{output: inst.out.Bytes(), result: inst.result, restart: inst.restart}
	var exit *sys.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == exitRestart:
	case errors.As(err, &exit) && exit.ExitCode() == exitStopped:
		o.err = context.Cause(ctx)
	case errors.As(err, &exit) && ctx.Err() == nil:
		o.code = exit.ExitCode()
	case err != nil && ctx.Err() != nil:
		o.err = context.Cause(ctx)
	case err != nil:
		o.err = err
	}
	return o
}

// instanceEnv is the program's environment: the kept host variables, the
// host's marks and the seed, sorted by name.
func (h *Host) instanceEnv(s spec) [][2]string {
	env := slices.Clone(h.env)
	env = append(env, [2]string{"ARENA_WASM_HOST", "1"}, [2]string{"ARENA_WASM_BUILD", h.build[:16]}, [2]string{"TMPDIR", "/tmp"})
	if s.child != "" {
		env = append(env, [2]string{"ARENA_WASM_CHILD", s.child})
	}
	if h.dir != "" {
		env = append(env, [2]string{"PWD", h.dir})
	}
	switch {
	case s.seed != 0 && s.override:
		env = append(env, [2]string{"ARENA_SEED", strconv.FormatUint(s.seed, 10)})
	case s.seed != 0:
		env = append(env, [2]string{"ARENA_WASM_SEED", strconv.FormatUint(s.seed, 10)})
	}
	slices.SortFunc(env, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return env
}

func (h *Host) acquire() { h.slots <- struct{}{} }
func (h *Host) release() { <-h.slots }

// abandon waits for the children the program started and never waited
// for: they hold slots and would outlive it.
func (inst *instance) abandon() {
	for _, c := range inst.children {
		<-c.done
	}
}
