package downstream_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/arenatest"

	"example.com/arena-downstream"
)

// Our runtime keeps arena's RuntimeProvider contract.
func TestAgentsConform(t *testing.T) {
	arenatest.TestRuntime(t, func(t *testing.T) arena.RuntimeProvider {
		return downstream.NewAgents("lead", "w1", "w2", "w3")
	})
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
