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
	instance, _ := wasmguest.InstanceSeed()
	t.Logf("arena: deterministic: this simulation's seed is %d, the test's instance runs under seed %d (its first simulation's, or its command line's): "+
		"its replay command runs the whole test again under that one", seed, instance)
}

// detRerun returns the two commands that replay the instance exactly in
// deterministic mode: its own inputs, which are the test it runs (its
// -test.run), its seed, the build, the environment and the arguments the
// program ran with (keptArgs, less drop). The failing run is one of the
// instance's: the command runs the instance again, not that run alone,
// since running less would run something else.
func detRerun(_ TB, _ uint64, drop ...string) [2]string {
	seed, override := wasmguest.InstanceSeed()
	return detCommands(ownRun(), seed, override, nil, drop)
}

// detCommands are the flag and the environment form of the command that
// runs an instance of run under seed (every run's, when override; the host
// random source's only, -arena.wasmseed, otherwise; none when 0).
func detCommands(run string, seed uint64, override bool, extra, drop []string) [2]string {
	flagSeed, envSeed := "", ""
	switch {
	case seed != 0 && override:
		flagSeed, envSeed = fmt.Sprintf("-%s=%d", SeedFlag, seed), fmt.Sprintf("%s=%d ", SeedEnv, seed)
	case seed != 0:
		flagSeed, envSeed = fmt.Sprintf("-arena.wasmseed=%d", seed), fmt.Sprintf("ARENA_WASM_SEED=%d ", seed)
	}
	var first []string
	if flagSeed != "" {
		first = []string{flagSeed}
	}
	return [2]string{
		detCommand(run, "", append(first, extra...), drop),
		detCommand(run, envSeed, extra, drop),
	}
}

// detReplayFile is the command that replays file (-arena.replay) on the
// deterministic clock, in this instance's test and under its seed when
// that is every run's (a sweep's child: else the sweep would run every
// seed again).
func detReplayFile(_ TB, file string) string {
	seed, override := wasmguest.InstanceSeed()
	if !override {
		seed = 0
	}
	return detCommands(ownRun(), seed, true, []string{"-" + ReplayFlag + "=" + file}, []string{ReplayFlag})[0]
}

// ownRun is the instance's -test.run: what the host runs it for.
func ownRun() string {
	for _, a := range os.Args[1:] {
		if v, ok := strings.CutPrefix(a, "-test.run="); ok {
			return v
		}
	}
	return ""
}

// detCommand is a deterministic replay command: the environment, go
// test's flags and the -run pattern, then after -args (go test passes
// them on as they are) first, the build, and the program's other
// arguments (keptArgs, less drop).
//
//	ARENA_X=1 arena-wasm test -v -run '^TestA$' . -args -arena.wasmseed=7 -arena.build=0d741133029b233d -raftsim.planted
func detCommand(run, env string, first, drop []string) string {
	args := slices.Clone(first)
	if id := os.Getenv("ARENA_WASM_BUILD"); id != "" {
		args = append(args, "-arena.build="+id)
	}
	// go test's own flags (-test.v=true from -v) come first on the
	// program's command line, in the form go test gives them: they go
	// before the package, as go test takes them, so that go test shows
	// what the program prints.
	kept := keptArgs(drop...)
	var goFlags []string
	for len(kept) > 0 && strings.HasPrefix(kept[0], "-test.") && strings.Contains(kept[0], "=") {
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
	sel := ""
	if len(goFlags) > 0 {
		sel = strings.Join(goFlags, " ") + " "
	}
	if run != "" {
		sel += "-run " + shellQuote(run) + " "
	}
	return fmt.Sprintf("%s%sarena-wasm test %s. -args %s", keptEnv(), env, sel, strings.Join(args, " "))
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
		if k, v, _ := strings.Cut(kv, "="); wasmguest.Passed(k) {
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
