package shrink_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/shrink"
)

func fakeSystem(opts ...fakes.Option) shrink.SystemFactory {
	return func(_ context.Context, seed uint64) (*engine.Service, error) {
		clk := clock.NewVirtual(time.Time{})
		c := fakes.NewCluster(append([]fakes.Option{fakes.WithClock(clk), fakes.WithSeed(seed)}, opts...)...)
		return engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
			engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...)), nil
	}
}

// TestScenarioFromSurvivalReplaysTheRun: the scenario made of a survival
// run is that run: played on the same system, it lands the same faults at
// the same times and observes the same run, sample for sample.
func TestScenarioFromSurvivalReplaysTheRun(t *testing.T) {
	system := fakeSystem()
	svc, _ := system(t.Context(), 9)
	rep, err := svc.RunSurvival(t.Context(), engine.SurvivalConfig{Duration: time.Hour, Interval: 5 * time.Second, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := shrink.FromSurvival(rep, scenario.Gate{MinGrade: engine.GradeC})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Config.Seed != 9 || sc.Config.Warmup.D() != 5*time.Second || sc.PlannedLength() != rep.End.Sub(rep.Start) || sc.Expect.MinGrade != engine.GradeC {
		t.Errorf("config %+v, planned %s, gate %+v", sc.Config, sc.PlannedLength(), sc.Expect)
	}
	if err := scenario.Validate(sc); err != nil {
		t.Fatal(err)
	}
	llm := 0
	for _, ev := range rep.Events {
		if ev.Type == fault.LLMFailure {
			llm++
			if ev.Metadata["error_type"] == nil || ev.Metadata["duration"] != nil {
				t.Errorf("llm_failure event metadata %v, want its error_type (and its duration as the lifetime)", ev.Metadata)
			}
		}
	}
	if llm == 0 {
		t.Fatal("no llm_failure in an hour of chaos")
	}

	svc2, _ := system(t.Context(), 9)
	replay, err := scenario.Run(t.Context(), svc2, sc)
	if err != nil {
		t.Fatal(err)
	}
	a, b := rep.Report, replay.Report
	if a.Landed != b.Landed || a.Samples != b.Samples || a.HealthySamples != b.HealthySamples || a.Recovered != b.Recovered ||
		a.ChecksRun != b.ChecksRun || a.ChecksPassed != b.ChecksPassed || a.Score != b.Score || a.MTTR != b.MTTR {
		t.Errorf("the replay differs:\nsurvival landed %d samples %d/%d recovered %d checks %d/%d score %+v mttr %s\nscenario landed %d samples %d/%d recovered %d checks %d/%d score %+v mttr %s",
			a.Landed, a.HealthySamples, a.Samples, a.Recovered, a.ChecksPassed, a.ChecksRun, a.Score, a.MTTR,
			b.Landed, b.HealthySamples, b.Samples, b.Recovered, b.ChecksPassed, b.ChecksRun, b.Score, b.MTTR)
	}
}

// TestCompleteSurvival: a report that lists only its first actions cannot
// become a scenario; a virtual one is replayed in full, on the system it
// ran on, and not on another.
func TestCompleteSurvival(t *testing.T) {
	system := fakeSystem()
	svc, _ := system(t.Context(), 4)
	cfg := engine.SurvivalConfig{Duration: 30 * time.Minute, Interval: 2 * time.Second, Seed: 4, TimelineCap: 100}
	rep, err := svc.RunSurvival(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := shrink.FromSurvival(rep, scenario.Gate{}); !errors.Is(err, shrink.ErrIncompleteSurvival) {
		t.Fatalf("ScenarioFromSurvival of a capped report = %v, want ErrIncompleteSurvival", err)
	}
	full, err := shrink.CompleteSurvival(t.Context(), rep, system)
	if err != nil {
		t.Fatal(err)
	}
	if full.Dropped != 0 || len(full.Events) != rep.Actions || full.Score != rep.Score {
		t.Errorf("complete: %d events of %d, dropped %d, score %v (was %v)", len(full.Events), rep.Actions, full.Dropped, full.Score, rep.Score)
	}
	if _, err := shrink.FromSurvival(full, scenario.Gate{}); err != nil {
		t.Error(err)
	}
	if _, err := shrink.CompleteSurvival(t.Context(), rep, fakeSystem(fakes.WithWorkers(7))); err == nil || !strings.Contains(err.Error(), "is the system the one the report ran on?") {
		t.Errorf("a replay on another system: %v, want an error saying it differs", err)
	}
	wallClock := *rep
	wallClock.Report = &engine.Report{Virtual: false}
	if _, err := shrink.CompleteSurvival(t.Context(), &wallClock, system); !errors.Is(err, shrink.ErrIncompleteSurvival) || !strings.Contains(err.Error(), "timeline_cap of at least") {
		t.Errorf("a real-time report: %v, want the fix (a larger timeline_cap)", err)
	}
}

// TestCompleteSurvivalRefusesBeforeReplaying: a report of a run longer than
// a scenario may be (a forged 720 h one took 15 to 48 s to replay) is
// refused before any replay: the system is never made.
func TestCompleteSurvivalRefusesBeforeReplaying(t *testing.T) {
	made := 0
	system := func(ctx context.Context, seed uint64) (*engine.Service, error) {
		made++
		return fakeSystem()(ctx, seed)
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	month := &engine.SurvivalReport{Report: &engine.Report{Virtual: true, Start: start, End: start.Add(720 * time.Hour)},
		Config: engine.SurvivalConfig{Duration: 720 * time.Hour, Interval: time.Hour, Seed: 1}, Actions: 720, Dropped: 1,
		Events: make([]engine.SurvivalEvent, 719)}
	if _, err := shrink.CompleteSurvival(t.Context(), month, system); err == nil || !strings.Contains(err.Error(), "a run of 720h is longer than a scenario may be (24h)") || made != 0 {
		t.Errorf("CompleteSurvival of a 720 h run = %v after making %d systems; want it refused before any", err, made)
	}
}

func TestScenarioFromSurvivalErrors(t *testing.T) {
	if _, err := shrink.FromSurvival(nil, scenario.Gate{}); err == nil {
		t.Error("nil report: no error")
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	long := &engine.SurvivalReport{Report: &engine.Report{Start: start, End: start.Add(25 * time.Hour)}}
	if _, err := shrink.FromSurvival(long, scenario.Gate{}); err == nil || !strings.Contains(err.Error(), "a run of 25h is longer than a scenario may be (24h)") {
		t.Errorf("a 25 h run: %v", err)
	}
	none := &engine.SurvivalReport{Report: &engine.Report{Start: start, End: start.Add(time.Hour)},
		Events: []engine.SurvivalEvent{{At: clock.Duration(time.Second), Type: fault.KillAgent, TargetID: "worker-1", Error: "refused"}}}
	if _, err := shrink.FromSurvival(none, scenario.Gate{}); err == nil || !strings.Contains(err.Error(), "no fault landed") {
		t.Errorf("no fault landed: %v", err)
	}
}
