package containers_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/engine"
)

// survivalLength is how long TestSurvival runs: two minutes of real time by
// default (ARENA_SURVIVAL_LENGTH=10m for a longer one).
func survivalLength(t *testing.T) time.Duration {
	if v := os.Getenv("ARENA_SURVIVAL_LENGTH"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("ARENA_SURVIVAL_LENGTH: %v", err)
		}
		return d
	}
	return 2 * time.Minute
}

// TestSurvival runs seeded random chaos of every type against a reference
// cluster in real time and scores it: the same engine as against the fakes,
// with every fault real.
func TestSurvival(t *testing.T) {
	if testing.Short() {
		t.Skip("survival takes minutes of real time")
	}
	t.Parallel()
	rt := containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(3))
	waitHealthy(t, rt, 10*time.Second)
	svc := service(rt)
	length := survivalLength(t)
	ctx, cancel := context.WithTimeout(context.Background(), length+2*time.Minute)
	defer cancel()
	rep, err := svc.RunSurvival(ctx, engine.SurvivalConfig{Duration: length, Interval: 4 * time.Second, Seed: 8})
	if err != nil {
		t.Fatalf("RunSurvival: %v", err)
	}
	t.Logf("%s", rep)
	if rep.Score.Grade == engine.GradeNone {
		t.Fatal("survival measured nothing")
	}
	if rep.Landed < 10 {
		t.Errorf("%d faults landed in %s, want at least 10", rep.Landed, length)
	}
	if rep.Virtual {
		t.Error("a container run must be in real time")
	}
}
