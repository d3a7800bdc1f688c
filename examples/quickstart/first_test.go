package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// TestLeaderFailover is the first test of the README: kill the leader of a
// fake cluster and one of its workers, a minute of chaos in virtual time, and require
// that it heals fast. (README.md shows this function; keep them in step.)
func TestLeaderFailover(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(1))
	svc := engine.NewService(fault.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(cluster.Probe), engine.WithChecks(cluster.Checks()...))

	rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: time.Minute},
		engine.Step{At: 10 * time.Second, Action: fault.Action{Type: fault.KillLeader}},
		engine.Step{At: 30 * time.Second, Action: fault.Action{Type: fault.KillAgent, TargetID: "type:worker"}})
	require.NoError(t, err)

	require.Truef(t, rep.Score.Grade.AtLeast(engine.GradeB), "resilience dropped:\n%s", rep)
	require.LessOrEqual(t, rep.MaxTTR.D(), 2*time.Second, "slowest recovery")
}
