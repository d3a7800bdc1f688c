package arenatest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ares-arena/arena/internal/wasmguest"
)

// Replays calls f once for each of seeds (a seed given n times replays it
// n times) and returns what each call returned, in order: a test that
// asks whether its runs are functions of their seeds, or how many
// outcomes other seeds reach, compares them.
//
//	digests := arenatest.Replays(t, []uint64{7, 7, 7}, func(t *testing.T, seed uint64) []byte {
//		rep := arenatest.SimulateRun(t, system, "leader-failover", arenatest.WithSeed(seed))
//		b, _ := json.Marshal(rep)
//		return b
//	})
//
// In native simulated time f runs here, one call after another; the
// calls share the process (math/rand's global source, the heap, the Go
// scheduler), which no seed fixes, so one seed may give other results.
// In deterministic mode (arena-wasm) each call runs in an instance of the
// test binary of its own, which runs t alone under the call's seed with
// t's command line, as many at once as the host has cores: equal seeds
// then give equal results, unless something the seed does not fix
// reaches the program. A call that fails fails t, with its instance's
// output; its result is nil.
func Replays(t *testing.T, seeds []uint64, f func(t *testing.T, seed uint64) []byte) [][]byte {
	t.Helper()
	out := make([][]byte, len(seeds))
	if !deterministic() {
		for i, s := range seeds {
			out[i] = f(t, s)
		}
		return out
	}
	as := callTag(t, "Replays")
	if wasmguest.ChildAs() == as {
		// This instance is one call: its seed is the instance's. What
		// follows Replays in t is the parent's to run.
		seed, _ := wasmguest.InstanceSeed()
		wasmguest.Hand(f(t, seed))
		t.SkipNow()
	}
	replayInstances(t, as, seeds, out)
	return out
}

// calls counts each test's calls of Replays and Sweep, for callTag.
var calls sync.Map // "Replays TestA" → *atomic.Int64

// callTag names this call of fn in t, the k-th of t's: what a child
// instance spawned for it is to be (ARENA_WASM_CHILD), so that a child
// acts for that call only.
func callTag(t *testing.T, fn string) string {
	key := fn + " " + t.Name()
	n, _ := calls.LoadOrStore(key, new(atomic.Int64))
	return fmt.Sprintf("%s #%d", key, n.(*atomic.Int64).Add(1))
}

// replayInstances runs each seed's call in a child instance that runs t.
func replayInstances(t *testing.T, as string, seeds []uint64, out [][]byte) {
	t.Helper()
	run := selectorPattern(t.Name())
	children := make([]wasmguest.Child, len(seeds))
	errs := make([]error, len(seeds))
	started := 0
	for i, seed := range seeds {
		for ; started < min(i+spawnAhead, len(seeds)); started++ {
			children[started], errs[started] = wasmguest.Spawn(run, seeds[started], as)
		}
		if errs[i] != nil {
			t.Errorf("arena: Replays: seed %d: %v", seed, errs[i])
			continue
		}
		o, err := children[i].Wait()
		switch {
		case err != nil:
			t.Errorf("arena: Replays: seed %d: %v", seed, err)
		case o.Err != "":
			t.Errorf("arena: Replays: call %d (seed %d): the host could not run it: %s\n%s", i, seed, o.Err, childLines(o.Output))
		case o.Exit != 0:
			t.Errorf("arena: Replays: call %d (seed %d) failed in its instance (exit %d):\n%s", i, seed, o.Exit, childLines(o.Output))
		default:
			out[i] = []byte(o.Result)
		}
	}
}
