package downstream_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"

	"example.com/arena-downstream"
)

// Our runtime keeps arena's RuntimeProvider contract. Its probe shows the
// faults that its agents' status does not: a faulted agent is named in
// Healthy's error.
func TestAgentsConform(t *testing.T) {
	sick := func(ctx context.Context, agents *downstream.Agents, a arena.Action) (bool, error) {
		err := agents.Healthy(ctx)
		return err != nil && slices.Contains(strings.Split(strings.TrimPrefix(err.Error(), "unhealthy: "), ", "), a.TargetID), nil
	}
	var effects []arenatest.Effect[*downstream.Agents]
	for _, typ := range []arena.ActionType{arena.ActionSlowAgent, arena.ActionNetworkPartition, arena.ActionToolTimeout,
		arena.ActionMemoryCorrupt, arena.ActionMCPDisconnect, arena.ActionLLMFailure} {
		effects = append(effects, arenatest.Observe(typ, sick))
	}
	arenatest.TestRuntime(t, func(t *testing.T) *downstream.Agents {
		return downstream.NewAgents("lead", "w1", "w2", "w3")
	}, effects...)
}

// A scenario of our own against our runtime, in real time (a second): the
// supervisor restarts the killed worker, and the lifted timeout heals.
func TestAgentsRecover(t *testing.T) {
	agents := downstream.NewAgents("lead", "w1", "w2")
	sc := &arena.Scenario{
		Name: "kill-and-timeout",
		Config: arena.ScenarioConfig{
			Cooldown:         arena.Duration(600 * time.Millisecond),
			ProbeInterval:    arena.Duration(20 * time.Millisecond),
			RecoveryDeadline: arena.Duration(500 * time.Millisecond),
		},
		Actions: []arena.ScenarioStep{
			{Delay: arena.Duration(50 * time.Millisecond), Action: arena.Action{Type: arena.ActionKillAgent, TargetID: "w1"}},
			{Delay: arena.Duration(50 * time.Millisecond), Action: arena.Action{Type: arena.ActionToolTimeout, TargetID: "w2",
				Metadata: map[string]any{"duration": "100ms"}}},
		},
		Expect: arena.Gate{AllRecovered: true},
	}
	rep := arenatest.Run(t, sc, arenatest.WithRuntime(agents), arenatest.WithProbe(agents.Healthy))
	assert.False(t, rep.Virtual, "a runtime of our own runs in real time")
	assert.Equal(t, 2, rep.Recovered)
}
