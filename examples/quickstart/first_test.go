package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
)

// TestLeaderFailover is the first test of the README: kill the leader of a
// fake cluster and one of its workers, a minute of chaos in virtual time, and require
// that it heals fast. (README.md shows this function; keep them in step.)
func TestLeaderFailover(t *testing.T) {
	clock := arena.NewVirtualClock(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clock), fakes.WithSeed(1))
	svc := arena.NewService(arena.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
		arena.WithClock(clock), arena.WithProbe(cluster.Probe), arena.WithChecks(cluster.Checks()...))

	rep, err := arena.RunSchedule(context.Background(), svc, arena.RunOptions{Seed: 1, Duration: time.Minute},
		arena.Step{At: 10 * time.Second, Action: arena.Action{Type: arena.ActionKillLeader}},
		arena.Step{At: 30 * time.Second, Action: arena.Action{Type: arena.ActionKillAgent, TargetID: "type:worker"}})
	require.NoError(t, err)

	require.Truef(t, rep.Score.Grade.AtLeast(arena.GradeB), "resilience dropped:\n%s", rep)
	require.LessOrEqual(t, rep.MaxTTR.D(), 2*time.Second, "slowest recovery")
}
