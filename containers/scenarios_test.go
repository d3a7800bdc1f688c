package containers_test

import (
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/scenarios"
)

// TestBuiltinScenarios plays built-in scenarios, unchanged, in real time
// against reference clusters of five containers, through arenatest.Run as a
// user would: it fails the test when a scenario misses its own gate. Each
// scenario has its own cluster; they run in parallel (leader-failover is
// TestLeaderFailoverInDocker, the README's example).
func TestBuiltinScenarios(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"network-split"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenarios.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			rt := containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(3))
			waitHealthy(t, rt, 10*time.Second)
			rep := arenatest.Run(t, sc, arenatest.WithRuntime(rt))
			t.Logf("%s", rep)
			if rep.Virtual {
				t.Error("a container run must be in real time")
			}
			if rep.Report.Landed != len(sc.Actions) {
				t.Errorf("%d faults landed, want %d", rep.Report.Landed, len(sc.Actions))
			}
		})
	}
}
