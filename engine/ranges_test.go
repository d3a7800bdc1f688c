package engine_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// rangedKey is one numeric metadata key of a fault type, with the values
// at the edges of its range.
type rangedKey struct {
	spec fault.Spec
	key  fault.MetaKey
}

// rangedKeys lists every duration and number key of the given specs.
func rangedKeys(specs []fault.Spec) []rangedKey {
	var out []rangedKey
	for _, s := range specs {
		for _, k := range s.Metadata {
			if k.Kind == fault.MetaKindDuration || k.Kind == fault.MetaKindNumber {
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
func target(s fault.Spec, a fault.Action) fault.Action {
	switch s.Target {
	case fault.TargetAgent, fault.TargetNode:
		a.TargetID = "worker-1"
	case fault.TargetEdge:
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
	keys := rangedKeys(fault.Specs())
	if len(keys) < 8 {
		t.Fatalf("found %d numeric metadata keys among the built-ins, want every one", len(keys))
	}
	for _, rk := range keys {
		lo, hi, below, above := rk.edges()
		name := fmt.Sprintf("%s.%s", rk.spec.Type, rk.key.Name)
		t.Run(name, func(t *testing.T) {
			for _, v := range []any{below, above} {
				a := target(rk.spec, fault.Action{Type: rk.spec.Type, Metadata: map[string]any{rk.key.Name: v}})
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
func runsOnTheFakes(t *testing.T, spec fault.Spec, key string, v any) {
	t.Helper()
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(1))
	svc := engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...),
		engine.WithMaxFaultDuration(fault.MaxMetaDuration)) // the spec's range, not the service's bound
	a := target(spec, fault.Action{Type: spec.Type, Metadata: map[string]any{key: v}})
	sc := &scenario.Scenario{Name: "edge", Config: scenario.Config{Cooldown: clock.Duration(10 * time.Second)},
		Actions: []scenario.Step{{Action: a}}}
	if err := scenario.ValidateFor(svc, sc); err != nil {
		t.Errorf("%s: %v: ValidateScenario = %v, want it accepted", key, v, err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := scenario.Run(ctx, svc, sc)
	switch {
	case err != nil || rep == nil:
		t.Errorf("%s: %v: RunScenarioReport = %v", key, v, err)
		return
	case strings.Contains(rep.Steps[0].Result.Error, "panicked"):
		t.Errorf("%s: %v: the step panicked: %s", key, v, rep.Steps[0].Result.Error)
	case !rep.Steps[0].Result.Success && spec.Target != fault.TargetRole:
		t.Errorf("%s: %v: the fault did not land: %s", key, v, rep.Steps[0].Result.Error)
	}
	if res := svc.Execute(ctx, fault.Action{Type: fault.KillAgent, TargetID: "worker-2"}); !res.Success {
		t.Errorf("%s: %v: Execute after the run = %s, want the kill to land", key, v, res.Error)
	}
}

// A scenario's config fields and a survival run's, at the top of their
// ranges, validate and run to their end in virtual time; one step past,
// they are refused with the field and the range named. (The probe samples
// hourly, so that a day of virtual time is a few dozen samples.)
func TestConfigAtItsLimitsRuns(t *testing.T) {
	hourly := &scenario.Observe{ProbeInterval: clock.Duration(engine.MaxProbeInterval)}
	step := scenario.Step{Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-1"}}
	for _, tc := range []struct {
		field string
		set   func(sc *scenario.Scenario, over bool)
	}{
		{"config.warmup", func(sc *scenario.Scenario, over bool) { sc.Config.Warmup = edge(scenario.MaxLength, over) }},
		{"config.cooldown", func(sc *scenario.Scenario, over bool) { sc.Config.Cooldown = edge(scenario.MaxLength, over) }},
		{"actions[0].delay", func(sc *scenario.Scenario, over bool) { sc.Actions[0].Delay = edge(scenario.MaxLength, over) }},
		{"config.timeout", func(sc *scenario.Scenario, over bool) { sc.Config.Timeout = edge(scenario.MaxTimeout, over) }},
		{"config.abort_when.unhealthy_for", func(sc *scenario.Scenario, over bool) {
			sc.Config.AbortWhen.UnhealthyFor = edge(scenario.MaxLength, over)
		}},
		{"config.max_concurrent", func(sc *scenario.Scenario, over bool) {
			sc.Config.ParallelActions, sc.Config.MaxConcurrent = true, scenario.MaxSteps
			if over {
				sc.Config.MaxConcurrent++
			}
		}},
		{"config.observe.recovery_deadline", func(sc *scenario.Scenario, over bool) {
			sc.Config.Observe.RecoveryDeadline = edge(engine.MaxObserveWindow, over)
		}},
		{"config.observe.settle_time", func(sc *scenario.Scenario, over bool) {
			sc.Config.Observe.SettleTime = edge(engine.MaxObserveWindow, over)
		}},
		{"config.observe.stable_samples", func(sc *scenario.Scenario, over bool) {
			sc.Config.Observe.StableSamples = engine.MaxStableSamples
			if over {
				sc.Config.Observe.StableSamples++
			}
		}},
		{"expect.max_mttr", func(sc *scenario.Scenario, over bool) {
			d := edge(engine.MaxObserveWindow, over)
			sc.Expect.MaxMTTR = &d
		}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			for _, over := range []bool{false, true} {
				obs := *hourly
				sc := &scenario.Scenario{Name: "edge", Config: scenario.Config{Observe: &obs}, Actions: []scenario.Step{step}}
				tc.set(sc, over)
				e := newRig()
				err := scenario.ValidateFor(e.svc, sc)
				if over {
					if err == nil || !strings.Contains(err.Error(), tc.field+": ") || !strings.Contains(err.Error(), "want ") {
						t.Errorf("one past its range: ValidateScenario = %v, want %s refused with its range", err, tc.field)
					}
					continue
				}
				if err != nil {
					t.Fatalf("at the top of its range: ValidateScenario = %v", err)
				}
				rep, err := scenario.Run(context.Background(), e.svc, sc)
				if err != nil || rep == nil || rep.Steps[0].Result == nil {
					t.Errorf("at the top of its range: RunScenarioReport = %v, want it run to its end", err)
				}
			}
		})
	}
	t.Run("survival", func(t *testing.T) {
		cfg := engine.SurvivalConfig{Duration: engine.MaxSurvivalDuration, Interval: engine.MaxSurvivalDuration / 4, Seed: 1,
			MaxActiveFaults: engine.MaxSurvivalActiveFaults, MinLifetime: engine.DefaultMaxFaultDuration, MaxLifetime: engine.DefaultMaxFaultDuration,
			TimelineCap: engine.MaxListCap, Mix: map[fault.Type]float64{fault.SlowAgent: engine.MaxWeight},
			Observe: engine.ObserveOptions{ProbeInterval: engine.MaxProbeInterval}}
		e := newRig()
		rep, err := e.svc.RunSurvival(context.Background(), cfg)
		if err != nil || rep == nil || rep.Ticks == 0 {
			t.Fatalf("survival at the top of its ranges = %v", err)
		}
	})
}

// edge is d, or one nanosecond more when over.
func edge(d time.Duration, over bool) clock.Duration {
	if over {
		d++
	}
	return clock.Duration(d)
}
