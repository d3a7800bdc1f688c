package arenatest

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ares-arena/arena/internal/wasmguest"
)

// Deterministic mode: the test binary built for GOOS=wasip1 GOARCH=wasm
// and run by arena-wasm (arena-wasm test ./...). Each simulation then
// runs on the deterministic clock: the host gives the program every
// random bit and clock reading from the seed, on one thread, so the seed
// fixes the whole execution. What the helpers do differently:
//
//   - A simulation tells the host its seed (fixSeed) before it starts:
//     an instance that runs under none yet runs again from the start
//     under it, so that it is what its replay command runs.
//   - Replay commands are arena-wasm's, with the build they hold for
//     and the arguments that steer the program (detRerun).
//   - A Sweep runs its seeds as child instances, as many at once as the
//     host has cores (sweepInstances).
//   - The shrinker judges a candidate by one run, as on the virtual clock.
//   - The watchdog is off: nothing outside the program can block it.

// Deterministic reports whether the test binary runs in deterministic
// mode: built for GOOS=wasip1 GOARCH=wasm and run by arena-wasm, each
// simulation on the deterministic clock.
func Deterministic() bool { return wasmguest.Active() }

func deterministic() bool { return wasmguest.Active() }

// fixSeed tells the host the seed of the simulation about to start; it
// logs when the instance runs under another seed, whose replay only is
// exact then.
func fixSeed(t TB, seed uint64) {
	if !deterministic() || wasmguest.Seed(seed) {
		return
	}
	t.Logf("arena: deterministic: this simulation's seed is %d but the test runs under seed %s (its command line): "+
		"a replay is exact for the test as a whole, under that seed", seed, os.Getenv(SeedEnv))
}

// detRerun returns the two commands that replay t's simulation exactly in
// deterministic mode: t alone, the seed, the build, the environment and
// the arguments the program ran with (keptArgs), which are all of its
// inputs.
func detRerun(t TB, seed uint64, drop ...string) [2]string {
	seedArg := fmt.Sprintf("-%s=%d", SeedFlag, seed)
	return [2]string{
		detCommand(t, "", []string{seedArg}, drop),
		detCommand(t, fmt.Sprintf("%s=%d ", SeedEnv, seed), nil, drop),
	}
}

// detReplayFile is the command that replays file (-arena.replay) on the
// deterministic clock: its seed is the file's.
func detReplayFile(t TB, file string) string {
	return detCommand(t, "", []string{"-" + ReplayFlag + "=" + file}, []string{ReplayFlag})
}

// detCommand is a deterministic replay command: the environment, t's
// selector, then after -args (go test passes them on as they are) the
// flags first, the build, and the program's other arguments (keptArgs,
// less drop).
//
//	ARENA_X=1 arena-wasm test -run '^TestA$' . -args -arena.seed=7 -arena.build=0d741133029b233d -test.v=true
func detCommand(t TB, env string, first, drop []string) string {
	args := first
	if id := os.Getenv("ARENA_WASM_BUILD"); id != "" {
		args = append(args, "-arena.build="+id)
	}
	// go test's own flags (-test.v=true from -v) come first on the
	// program's command line: they go before the package, as go test
	// takes them, so that go test shows what the program prints.
	kept := keptArgs(drop...)
	var goFlags []string
	for len(kept) > 0 && strings.HasPrefix(kept[0], "-test.") {
		flag := "-" + strings.TrimPrefix(kept[0], "-test.")
		switch flag {
		case "-v=true":
			flag = "-v"
		case "-v=test2json":
			flag = "-json" // go test -json passes -test.v=test2json
		}
		goFlags = append(goFlags, quoteArg(flag))
		kept = kept[1:]
	}
	args = append(args, kept...)
	for i, a := range args {
		args[i] = quoteArg(a)
	}
	sel := selector(t)
	if len(goFlags) > 0 {
		sel = strings.Join(goFlags, " ") + " " + sel
	}
	return fmt.Sprintf("%s%sarena-wasm test %s . -args %s", keptEnv(), env, sel, strings.Join(args, " "))
}

// keptArgs are the program's arguments that the host passed on as given
// (those that steer the test: -test.v, -test.short, the test's own
// flags), less the flags named in drop.
func keptArgs(drop ...string) []string {
	var out []string
	for _, a := range os.Args[1:] {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "test.paniconexit0" || name == "test.run" || slices.Contains(drop, name) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// keptEnv is the environment the host passed on from its own that a
// replay needs again (ARENA_* and the Go runtime's), as a command prefix.
func keptEnv() string {
	var b strings.Builder
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == SeedEnv, strings.HasPrefix(k, "ARENA_WASM_"):
		case strings.HasPrefix(k, "ARENA_"), k == "GODEBUG", k == "GOGC", k == "GOMEMLIMIT", k == "GOTRACEBACK":
			fmt.Fprintf(&b, "%s=%s ", k, quoteArg(v))
		}
	}
	return b.String()
}

// quoteArg quotes a for a shell when it needs it.
func quoteArg(a string) string {
	if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-") == "" {
		return a
	}
	return shellQuote(a)
}
