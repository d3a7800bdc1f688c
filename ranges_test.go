package arena_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
)

// rangedKey is one numeric metadata key of a fault type, with the values
// at the edges of its range.
type rangedKey struct {
	spec arena.FaultSpec
	key  arena.MetaKey
}

// rangedKeys lists every duration and number key of the given specs.
func rangedKeys(specs []arena.FaultSpec) []rangedKey {
	var out []rangedKey
	for _, s := range specs {
		for _, k := range s.Metadata {
			if k.Kind == arena.MetaKindDuration || k.Kind == arena.MetaKindNumber {
				out = append(out, rangedKey{s, k})
			}
		}
	}
	return out
}

// edges returns the smallest and largest values the key accepts, and the
// nearest values outside its range on each side, in the form a scenario
// file gives them (a duration string, a number).
func (r rangedKey) edges() (lo, hi, below, above any) {
	l, h := r.key.Range()
	if d, ok := l.(time.Duration); ok {
		hd := h.(time.Duration)
		return d.String(), hd.String(), (d - 1).String(), (hd + 1).String()
	}
	lf, hf := l.(float64), h.(float64)
	if lf == math.SmallestNonzeroFloat64 {
		below = 0.0
	} else {
		below = math.Nextafter(lf, math.Inf(-1))
	}
	return lf, hf, below, math.Nextafter(hf, math.Inf(1))
}

// target fills the target fields the spec asks for, on the fake cluster.
func target(s arena.FaultSpec, a arena.Action) arena.Action {
	switch s.Target {
	case arena.TargetAgent, arena.TargetNode:
		a.TargetID = "worker-1"
	case arena.TargetEdge:
		a.SourceID, a.TargetID = "orchestrator-0", "worker-1"
	}
	return a
}

// Every numeric metadata key of every built-in has a range, derived here
// from the specs (a new key is covered without editing the test): the
// smallest and the largest value it accepts validate, land on the fakes and
// run a scenario to its end without a panic, and the nearest values outside
// are refused with an error naming the key and the range. Before issue 26 a
// jitter of 1281024h validated, then overflowed in the fakes and wedged
// the service.
func TestEveryMetadataKeyHasARangeThatRuns(t *testing.T) {
	keys := rangedKeys(arena.FaultSpecs())
	if len(keys) < 8 {
		t.Fatalf("found %d numeric metadata keys among the built-ins, want every one", len(keys))
	}
	for _, rk := range keys {
		lo, hi, below, above := rk.edges()
		name := fmt.Sprintf("%s.%s", rk.spec.Type, rk.key.Name)
		t.Run(name, func(t *testing.T) {
			for _, v := range []any{below, above} {
				a := target(rk.spec, arena.Action{Type: rk.spec.Type, Metadata: map[string]any{rk.key.Name: v}})
				err := a.Validate()
				if err == nil {
					t.Errorf("Validate(%s: %v) = nil, want it refused: outside %s", rk.key.Name, v, rk.key.RangeText())
					continue
				}
				if msg := err.Error(); !strings.HasPrefix(msg, "metadata."+rk.key.Name+": ") || !strings.Contains(msg, rk.key.RangeText()) {
					t.Errorf("Validate(%s: %v) = %q, want the field and the range %q named", rk.key.Name, v, msg, rk.key.RangeText())
				}
			}
			for _, v := range []any{lo, hi} {
				runsOnTheFakes(t, rk.spec, rk.key.Name, v)
			}
		})
	}
}

// runsOnTheFakes lands the spec's fault with key = v in a scenario against
// a fresh fake cluster, runs it to its end, and checks the service still
// lands a fault afterwards.
func runsOnTheFakes(t *testing.T, spec arena.FaultSpec, key string, v any) {
	t.Helper()
	clock := arena.NewVirtualClock(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clock), fakes.WithSeed(1))
	svc := arena.NewService(arena.NewInjector(c, c), events.NewMemoryStore(), nil,
		arena.WithClock(clock), arena.WithProbe(c.Probe), arena.WithChecks(c.Checks()...),
		arena.WithMaxFaultDuration(arena.MaxMetaDuration)) // the spec's range, not the service's bound
	a := target(spec, arena.Action{Type: spec.Type, Metadata: map[string]any{key: v}})
	sc := &arena.Scenario{Name: "edge", Config: arena.ScenarioConfig{Cooldown: arena.Duration(10 * time.Second)},
		Actions: []arena.ScenarioStep{{Action: a}}}
	if err := svc.ValidateScenario(sc); err != nil {
		t.Errorf("%s: %v: ValidateScenario = %v, want it accepted", key, v, err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := arena.RunScenarioReport(ctx, svc, sc)
	switch {
	case err != nil || rep == nil:
		t.Errorf("%s: %v: RunScenarioReport = %v", key, v, err)
		return
	case strings.Contains(rep.Steps[0].Result.Error, "panicked"):
		t.Errorf("%s: %v: the step panicked: %s", key, v, rep.Steps[0].Result.Error)
	case !rep.Steps[0].Result.Success && spec.Target != arena.TargetRole:
		t.Errorf("%s: %v: the fault did not land: %s", key, v, rep.Steps[0].Result.Error)
	}
	if res := svc.Execute(ctx, arena.Action{Type: arena.ActionKillAgent, TargetID: "worker-2"}); !res.Success {
		t.Errorf("%s: %v: Execute after the run = %s, want the kill to land", key, v, res.Error)
	}
}

// A scenario's config fields and a survival run's, at the top of their
// ranges, validate and run to their end in virtual time; one step past,
// they are refused with the field and the range named. (The probe samples
// hourly, so that a day of virtual time is a few dozen samples.)
func TestConfigAtItsLimitsRuns(t *testing.T) {
	hourly := &arena.ScenarioObserve{ProbeInterval: arena.Duration(arena.MaxProbeInterval)}
	step := arena.ScenarioStep{Action: arena.Action{Type: arena.ActionKillAgent, TargetID: "worker-1"}}
	for _, tc := range []struct {
		field string
		set   func(sc *arena.Scenario, over bool)
	}{
		{"config.warmup", func(sc *arena.Scenario, over bool) { sc.Config.Warmup = edge(arena.MaxScenarioLength, over) }},
		{"config.cooldown", func(sc *arena.Scenario, over bool) { sc.Config.Cooldown = edge(arena.MaxScenarioLength, over) }},
		{"actions[0].delay", func(sc *arena.Scenario, over bool) { sc.Actions[0].Delay = edge(arena.MaxScenarioLength, over) }},
		{"config.timeout", func(sc *arena.Scenario, over bool) { sc.Config.Timeout = edge(arena.MaxScenarioTimeout, over) }},
		{"config.abort_when.unhealthy_for", func(sc *arena.Scenario, over bool) {
			sc.Config.AbortWhen.UnhealthyFor = edge(arena.MaxScenarioLength, over)
		}},
		{"config.max_concurrent", func(sc *arena.Scenario, over bool) {
			sc.Config.ParallelActions, sc.Config.MaxConcurrent = true, arena.MaxScenarioSteps
			if over {
				sc.Config.MaxConcurrent++
			}
		}},
		{"config.observe.recovery_deadline", func(sc *arena.Scenario, over bool) {
			sc.Config.Observe.RecoveryDeadline = edge(arena.MaxObserveWindow, over)
		}},
		{"config.observe.settle_time", func(sc *arena.Scenario, over bool) {
			sc.Config.Observe.SettleTime = edge(arena.MaxObserveWindow, over)
		}},
		{"config.observe.stable_samples", func(sc *arena.Scenario, over bool) {
			sc.Config.Observe.StableSamples = arena.MaxStableSamples
			if over {
				sc.Config.Observe.StableSamples++
			}
		}},
		{"expect.max_mttr", func(sc *arena.Scenario, over bool) {
			d := edge(arena.MaxObserveWindow, over)
			sc.Expect.MaxMTTR = &d
		}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			for _, over := range []bool{false, true} {
				obs := *hourly
				sc := &arena.Scenario{Name: "edge", Config: arena.ScenarioConfig{Observe: &obs}, Actions: []arena.ScenarioStep{step}}
				tc.set(sc, over)
				e := newEngine()
				err := e.svc.ValidateScenario(sc)
				if over {
					if err == nil || !strings.Contains(err.Error(), tc.field+": ") || !strings.Contains(err.Error(), "want ") {
						t.Errorf("one past its range: ValidateScenario = %v, want %s refused with its range", err, tc.field)
					}
					continue
				}
				if err != nil {
					t.Fatalf("at the top of its range: ValidateScenario = %v", err)
				}
				rep, err := arena.RunScenarioReport(context.Background(), e.svc, sc)
				if err != nil || rep == nil || rep.Steps[0].Result == nil {
					t.Errorf("at the top of its range: RunScenarioReport = %v, want it run to its end", err)
				}
			}
		})
	}
	t.Run("survival", func(t *testing.T) {
		cfg := arena.SurvivalConfig{Duration: arena.MaxSurvivalDuration, Interval: arena.MaxSurvivalDuration / 4, Seed: 1,
			MaxActiveFaults: arena.MaxSurvivalActiveFaults, MinLifetime: arena.DefaultMaxFaultDuration, MaxLifetime: arena.DefaultMaxFaultDuration,
			TimelineCap: arena.MaxListCap, Mix: map[arena.ActionType]float64{arena.ActionSlowAgent: arena.MaxWeight},
			Observe: arena.ObserveOptions{ProbeInterval: arena.MaxProbeInterval}}
		e := newEngine()
		rep, err := e.svc.RunSurvival(context.Background(), cfg)
		if err != nil || rep == nil || rep.Ticks == 0 {
			t.Fatalf("survival at the top of its ranges = %v", err)
		}
	})
}

// edge is d, or one nanosecond more when over.
func edge(d time.Duration, over bool) arena.Duration {
	if over {
		d++
	}
	return arena.Duration(d)
}
