package cigate

import (
	"os"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/scenario"
)

// minGrade is the gate: ARENA_MIN_GRADE, default B.
func minGrade(t *testing.T) engine.Grade {
	t.Helper()
	v := os.Getenv("ARENA_MIN_GRADE")
	if v == "" {
		return engine.GradeB
	}
	g, err := engine.ParseGrade(v)
	if err != nil {
		t.Fatalf("ARENA_MIN_GRADE: %v", err)
	}
	return g
}

// system is what the gate runs against. Yours would be
// arenatest.WithRuntime(myRuntime) with WithProbe and WithChecks;
// ARENA_CI_GATE_REGRESSION=1 switches the fake cluster's self-healing off,
// which is how TestGateFailsTheBuild makes the gate fail.
func system() []arenatest.Option {
	if os.Getenv("ARENA_CI_GATE_REGRESSION") != "" {
		return []arenatest.Option{arenatest.WithCluster(fakes.WithoutHealing())}
	}
	return nil
}

// TestResilienceGate fails the build when a scenario, or a survival run,
// grades below the gate.
func TestResilienceGate(t *testing.T) {
	gate := arenatest.WithGate(scenario.Gate{MinGrade: minGrade(t)})
	for _, name := range []string{"leader-failover", "orchestrator-loss", "network-split", "llm-brownout", "everything-at-once"} {
		t.Run(name, func(t *testing.T) {
			arenatest.Run(t, name, append(system(), gate)...)
		})
	}
	t.Run("survival", func(t *testing.T) {
		arenatest.Survive(t, engine.SurvivalConfig{Duration: 2 * time.Hour}, append(system(), gate)...)
	})
}
