package containers_test

import (
	"testing"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/containers"
	"github.com/stretchr/testify/require"
)

// TestLeaderFailoverInDocker is the README's example of a test against real
// containers (section "Real containers"), with this package's project label
// added so that TestMain's sweep covers it: keep the two in step. The
// built-in leader-failover scenario, unchanged, must pass its own gate
// against five containers in real time.
func TestLeaderFailoverInDocker(t *testing.T) {
	t.Parallel()
	rt := containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(3)) // skips without a Docker daemon
	rep := arenatest.Run(t, "leader-failover", arenatest.WithRuntime(rt))
	require.True(t, rep.Score.Grade.AtLeast(arena.GradeA))
	t.Logf("%s", rep)
}
