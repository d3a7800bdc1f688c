package arenatest

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ares-arena/arena/wasmhost"
)

// TestDetRerunIsTheChildsCommandLine: the command a deterministic
// failure prints, once go test has passed it to the binary (it prints
// its own flags, then those after -args, as given) and the host has
// parsed it, gives the program the arguments it ran with, less the
// sweep's size, and the seed.
func TestDetRerunIsTheChildsCommandLine(t *testing.T) {
	args := os.Args
	t.Cleanup(func() { os.Args = args })
	os.Args = []string{"test.wasm", "-test.paniconexit0", "-test.run=^TestA$/^seed=7$", "-test.v=true", "-test.count=1", "-raftsim.planted", "-arena.seeds=8", "-x=a b"}
	for _, kv := range os.Environ() { // CI's ARENA_REQUIRE_* and the like
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ARENA_") {
			os.Unsetenv(k)
			t.Cleanup(func() { os.Setenv(k, v) })
		}
	}
	t.Setenv("ARENA_WASM_BUILD", "0123456789abcdef")
	t.Setenv("ARENA_FOO", "1")
	t.Setenv("ARENA_WASM_VERBOSE", "1")

	// A sweep's parent prints seed 7's command: its child's inputs.
	cmds := detCommands(selectorPattern("TestA/seed=7"), 7, true, nil, []string{SeedsFlag, ShardFlag})
	want := "ARENA_FOO=1 arena-wasm test -v -count=1 -run '^TestA$/^seed=7$' . -args -arena.seed=7 -arena.build=0123456789abcdef -raftsim.planted '-x=a b'"
	if cmds[0] != want {
		t.Errorf("detCommands:\n got %s\nwant %s", cmds[0], want)
	}
	if !strings.HasPrefix(cmds[1], "ARENA_FOO=1 ARENA_SEED=7 arena-wasm test -v -count=1 -run ") || strings.Contains(cmds[1], "-arena.seed=") {
		t.Errorf("the environment form: %s", cmds[1])
	}
	// An instance that asked for its simulation's seed: the host's seed
	// only, in the instance's own test.
	if got := detCommands(ownRun(), 9, false, nil, nil)[0]; !strings.Contains(got, "-run '^TestA$/^seed=7$' . -args -arena.wasmseed=9 -arena.build=") {
		t.Errorf("an instance under its first simulation's seed: %s", got)
	}

	// What go test hands the binary for that command, as it orders it.
	binary := []string{"-test.paniconexit0", "-test.timeout=10m0s", "-test.v=true", "-test.count=1", "-test.run=^TestA$/^seed=7$",
		"-arena.seed=7", "-arena.build=0123456789abcdef", "-raftsim.planted", "-x=a b"}
	a, err := wasmhost.ParseArgs(binary)
	if err != nil {
		t.Fatal(err)
	}
	child := []string{"-test.v=true", "-test.count=1", "-raftsim.planted", "-x=a b"} // the parent's, less -arena.seeds
	if !slices.Equal(a.Keep, child) || a.Seed != 7 || a.Run != "^TestA$/^seed=7$" || a.Build != "0123456789abcdef" {
		t.Errorf("the replay's program arguments %q, seed %d, run %q, build %q; the child's were %q, 7, ^TestA$/^seed=7$",
			a.Keep, a.Seed, a.Run, a.Build, child)
	}
}

// namedT is t under another test's name.
type namedT struct {
	*testing.T
	name string
}

func (n namedT) Name() string { return n.name }
