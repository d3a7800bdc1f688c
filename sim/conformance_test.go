package sim_test

import (
	"context"
	"testing"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/sim"
)

// The world keeps the runtime contract the engine relies on, in real time
// (the conformance suite's subtests cannot run in a synctest bubble): a
// world of three nodes, restarted a moment after a kill.
func TestRuntimeConformance(t *testing.T) {
	arenatest.TestRuntime(t, func(t *testing.T) *sim.World {
		w := sim.New()
		t.Cleanup(func() { w.Close(context.Background()) })
		for _, name := range []string{"node-1", "node-2", "node-3"} {
			if _, err := w.AddNode(name, sim.NodeConfig{Type: "worker", RestartAfter: -1}); err != nil {
				t.Fatal(err)
			}
		}
		return w
	})
}
