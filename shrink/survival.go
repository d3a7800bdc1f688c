package shrink

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
	"github.com/ares-arena/arena/scenario"
)

// ErrIncompleteSurvival: a survival report lists only the first
// TimelineCap of its actions, so it cannot become a scenario as it is
// (CompleteSurvival replays a virtual one in full).
var ErrIncompleteSurvival = errors.New("the survival report does not list every action")

// FromSurvival turns a survival run into the scenario that replays
// it: every action that landed, in order, at the time it landed, with its
// resolved target and its metadata (the lifetime and what survival drew),
// on the run's seed and against gate. The warmup is the survival's
// interval, when its first tick was due (and the system's health checked),
// and the cooldown runs to the survival's end. Actions that did not land
// are left out: they did nothing. A fault on a role (kill_leader) stays
// one: on the same system it hits the same holder.
//
// The report must list every action (ErrIncompleteSurvival otherwise) and
// fit in a scenario (scenario.MaxSteps landed faults, scenario.MaxLength).
// Observation settings come from the report's config (SurvivalConfig.Observe,
// which its JSON form does not carry).
func FromSurvival(rep *engine.SurvivalReport, gate scenario.Gate) (*scenario.Scenario, error) {
	if rep == nil || rep.Report == nil {
		return nil, errors.New("survival report: missing")
	}
	if rep.Dropped > 0 {
		return nil, fmt.Errorf("%w: %d of %d actions listed (timeline_cap %d)", ErrIncompleteSurvival, len(rep.Events), rep.Actions, rep.Config.TimelineCap)
	}
	cfg := rep.Config
	length := rep.End.Sub(rep.Start)
	if err := fitsScenario(length); err != nil {
		return nil, err
	}
	sc := &scenario.Scenario{
		Name: fmt.Sprintf("survival-seed-%d", cfg.Seed),
		Description: fmt.Sprintf("The faults that landed in a survival run of %s (seed %d, one every %s at most), at the times they landed.",
			bound.FormatDuration(length), cfg.Seed, bound.FormatDuration(cfg.Interval)),
		Config: scenario.Config{Seed: cfg.Seed, Warmup: clock.Duration(cfg.Interval), AbortWhen: cfg.AbortWhen, AllowUnhealthyStart: cfg.AllowUnhealthyStart},
		Expect: gate,
	}
	if o := cfg.Observe; o.ProbeInterval != 0 || o.ProbeTimeout != 0 || o.SettleTime != 0 || o.StableSamples != 0 || o.RecoveryDeadline != 0 {
		sc.Config.Observe = &scenario.Observe{ProbeInterval: clock.Duration(o.ProbeInterval), ProbeTimeout: clock.Duration(o.ProbeTimeout),
			SettleTime: clock.Duration(o.SettleTime), StableSamples: o.StableSamples, RecoveryDeadline: clock.Duration(o.RecoveryDeadline)}
	}
	prev := cfg.Interval
	for _, ev := range rep.Events {
		if !ev.Success {
			continue
		}
		a := fault.Action{Type: ev.Type, TargetID: ev.TargetID, SourceID: ev.SourceID, Metadata: maps.Clone(ev.Metadata)}
		if spec, ok := fault.Lookup(ev.Type); ok && spec.Target == fault.TargetRole {
			a.TargetID = ""
		}
		if ev.Lifetime > 0 {
			if a.Metadata == nil {
				a.Metadata = map[string]any{}
			}
			a.Metadata[fault.MetaDuration] = bound.FormatDuration(ev.Lifetime.D())
		}
		at := max(ev.At.D(), prev)
		sc.Actions = append(sc.Actions, scenario.Step{Delay: clock.Duration(at - prev), Action: a})
		prev = at
	}
	if len(sc.Actions) == 0 {
		return nil, errors.New("survival report: no fault landed")
	}
	if len(sc.Actions) > scenario.MaxSteps {
		return nil, fmt.Errorf("survival report: %d faults landed, more than a scenario may have (%d)", len(sc.Actions), scenario.MaxSteps)
	}
	sc.Config.Cooldown = clock.Duration(max(length-prev, 0))
	return sc, nil
}

// CompleteSurvival returns rep with every action listed: rep itself when
// it lists them all, else the same survival run replayed in full on a
// fresh system from system. Only a virtual run can be replayed (the same
// seed and config give the same run); the replay must list the same first
// actions as rep, or the system is not the one rep ran on, which is an
// error. A run that FromSurvival would refuse (longer than a scenario, more
// actions than it may have) is refused before it is replayed.
//
// The replay is a run of the original, as long as it: bound it by ctx as
// the search is bounded by its budget (see Config.Started).
func CompleteSurvival(ctx context.Context, rep *engine.SurvivalReport, system SystemFactory) (*engine.SurvivalReport, error) {
	if rep == nil || rep.Report == nil {
		return nil, errors.New("survival report: missing")
	}
	if rep.Dropped == 0 {
		return rep, nil
	}
	length := rep.End.Sub(rep.Start)
	if err := fitsScenario(length); err != nil {
		return nil, err
	}
	switch {
	case !rep.Virtual:
		return nil, fmt.Errorf("%w, and a real-time run cannot be replayed to list them: run it with a timeline_cap of at least %d", ErrIncompleteSurvival, rep.Actions)
	case rep.Actions > scenario.MaxSteps:
		return nil, fmt.Errorf("survival report: %d actions, more than a scenario may have (%d)", rep.Actions, scenario.MaxSteps)
	}
	svc, err := system(ctx, rep.Config.Seed)
	if err != nil {
		return nil, fmt.Errorf("system: %w", err)
	}
	cfg := rep.Config
	cfg.TimelineCap = max(rep.Actions, 1)
	cfg.Duration = length // a run that was stopped early ends where it ended
	full, err := svc.RunSurvival(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("survival replay: %w", err)
	}
	for i, ev := range rep.Events {
		var got engine.SurvivalEvent
		if i < len(full.Events) {
			got = full.Events[i]
		}
		if got.At != ev.At || got.Type != ev.Type || got.TargetID != ev.TargetID || got.Success != ev.Success {
			return nil, fmt.Errorf("survival replay: action %d differs from the report (%s %s at %s, not %s %s at %s): is the system the one the report ran on?",
				i, got.Type, got.TargetID, got.At, ev.Type, ev.TargetID, ev.At)
		}
	}
	return full, nil
}

// fitsScenario refuses a survival run longer than a scenario may be.
func fitsScenario(length time.Duration) error {
	if length > scenario.MaxLength {
		return fmt.Errorf("survival report: a run of %s is longer than a scenario may be (%s)", bound.FormatDuration(length), bound.FormatDuration(scenario.MaxLength))
	}
	return nil
}
