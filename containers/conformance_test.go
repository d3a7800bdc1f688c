package containers_test

import (
	"testing"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/containers"
)

// TestConformance runs arenatest's conformance suite for RuntimeProviders
// against the container runtime: every subtest gets a fresh cluster of three
// containers (leader, orchestrator, one worker), removed when it ends.
func TestConformance(t *testing.T) {
	t.Parallel()
	containers.RequireDocker(t)
	arenatest.TestRuntime(t, func(t *testing.T) arena.RuntimeProvider {
		return containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(1))
	})
}
