package engine_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/planted"
)

func refusingService(ids ...string) *engine.Service {
	return engine.NewService(fault.NewInjectorFor(planted.NewRefuser(ids...)), nil, nil,
		engine.WithClock(clock.NewVirtual(time.Time{})), engine.WithProbe(func(context.Context) error { return nil }))
}

func killSurvival(t *testing.T, svc *engine.Service) *engine.SurvivalReport {
	t.Helper()
	rep, err := svc.RunSurvival(context.Background(), engine.SurvivalConfig{
		Duration: time.Minute, Interval: 10 * time.Second, Seed: 5, Mix: map[fault.Type]float64{fault.KillAgent: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A survival run whose faults all failed to land has no grade and says why
// in one line; the live score says so as soon as the first one fails.
func TestSurvivalWithNoFaultLandedHasNoGrade(t *testing.T) {
	rep := killSurvival(t, refusingService("w1", "w2", "w3"))
	s := rep.Score
	why := regexp.MustCompile(`^none of the 5 faults tried landed \(first: kill_agent on w\d at 10s: sim: no node "w\d"\)$`)
	if rep.Actions != 5 || rep.Landed != 0 || s.Measured || s.Grade != engine.GradeNone || !s.NoneLanded || !why.MatchString(s.Ungraded) {
		t.Fatalf("%d actions, %d landed, score %+v; want 5, 0, no grade with %s", rep.Actions, rep.Landed, s, why)
	}
	if text := rep.String(); !strings.Contains(text, "score -  grade none ("+s.Ungraded+")\n") {
		t.Errorf("text lacks the reason:\n%s", text)
	}
}

// Some faults landed: the survival run is graded, the others are listed as
// injection errors.
func TestSurvivalWithSomeFaultsLandedIsGraded(t *testing.T) {
	rep := killSurvival(t, refusingService("w2"))
	if rep.Landed == 0 || rep.InjectionErrorCount == 0 || !rep.Score.Measured || rep.Score.NoneLanded || rep.Score.Ungraded != "" {
		t.Errorf("%d landed, %d refused, score %+v; want some of each and a grade", rep.Landed, rep.InjectionErrorCount, rep.Score)
	}
}

// A code-defined schedule: none of its faults landed, no grade; no faults
// at all (a baseline), graded on what was measured.
func TestScheduleWithNoFaultLandedHasNoGrade(t *testing.T) {
	opts := engine.RunOptions{Seed: 1, Duration: 30 * time.Second}
	kill := func(at time.Duration, id string) engine.Step {
		return engine.Step{At: at, Action: fault.Action{Type: fault.KillAgent, TargetID: id}}
	}
	rep, err := engine.RunSchedule(context.Background(), refusingService("w1"), opts, kill(5*time.Second, "w1"))
	if err != nil {
		t.Fatal(err)
	}
	want := `the one fault tried did not land (kill_agent on w1 at 5s: sim: no node "w1")`
	if rep.Score.Measured || !rep.Score.NoneLanded || rep.Score.Ungraded != want {
		t.Errorf("score %+v, want no grade: %s", rep.Score, want)
	}

	rep, err = engine.RunSchedule(context.Background(), refusingService("w1"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Score.Measured || rep.Score.Grade != engine.GradeAPlus || rep.Score.NoneLanded || rep.Score.Ungraded != "" {
		t.Errorf("baseline score %+v, want A+ on availability", rep.Score)
	}
}
