package fault_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// killPause is a runtime with three capabilities: it lists agents, kills
// and pauses them. It implements nothing else of RuntimeProvider.
type killPause struct{ c *fakes.Cluster }

var (
	_ fault.AgentLister  = killPause{}
	_ fault.AgentStopper = killPause{}
	_ fault.Pauser       = killPause{}
)

func (k killPause) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	return k.c.ListAgents(ctx)
}
func (k killPause) StopAgent(ctx context.Context, id string) error { return k.c.StopAgent(ctx, id) }
func (k killPause) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	return k.c.PauseAgent(ctx, id)
}
func (k killPause) ResumeAgent(ctx context.Context, id string) error { return k.c.ResumeAgent(ctx, id) }

func killPauseService() *engine.Service {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3))
	return engine.NewService(fault.NewInjectorFor(killPause{c}), nil, nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
}

func TestPartialRuntimeRunsWhatItSupports(t *testing.T) {
	svc := killPauseService()
	sc, err := scenario.Load([]byte(`name: kills and pauses
actions:
  - action: {type: kill_leader}
    delay: 1s
  - action: {type: pause_agent, target_id: worker-1}
    delay: 5s
  - action: {type: resume_agent, target_id: worker-1}
    delay: 2s
  - action: {type: kill_agent, target_id: random}
    delay: 1s
config: {cooldown: 20s}
`), "kp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := scenario.Run(context.Background(), svc, sc)
	if err != nil {
		t.Fatalf("RunScenarioReport = %v", err)
	}
	if rep.Passed != 4 {
		t.Errorf("%d of 4 steps passed:\n%s", rep.Passed, rep)
	}
	for _, typ := range []fault.Type{fault.KillAgent, fault.PauseAgent, fault.ResumeAgent, fault.KillLeader} {
		if !svc.Injector().Supports(typ) {
			t.Errorf("Supports(%s) = false, want true", typ)
		}
	}
	if svc.Injector().Runtime() != nil {
		t.Errorf("Runtime() = %v, want nil: the runtime is not a whole RuntimeProvider", svc.Injector().Runtime())
	}
}

func TestPartialRuntimeRejectsWhatItCannotLand(t *testing.T) {
	svc := killPauseService()
	const yaml = `name: mcp
actions:
  - action: {type: kill_agent, target_id: worker-1}
  - action:
      type: mcp_disconnect
      target_id: worker-2
`
	sc, err := scenario.Load([]byte(yaml), "mcp.yaml")
	if err != nil {
		t.Fatalf("LoadScenario: %v (the file is valid: it is the runtime that cannot land it)", err)
	}
	const want = "mcp.yaml:5:7: actions[1].action.type: mcp_disconnect is not supported by this runtime (it does not implement fault.MCPDisconnecter)"
	if err := scenario.ValidateFor(svc, sc); err == nil || err.Error() != want {
		t.Errorf("ValidateScenario = %v, want %q", err, want)
	}
	if err := scenario.Validate(sc); err != nil {
		t.Errorf("ValidateScenario without a service = %v, want nil", err)
	}
	rep, err := scenario.Run(context.Background(), svc, sc)
	if rep != nil || !errors.Is(err, scenario.ErrInvalid) || err.Error() != want {
		t.Errorf("RunScenarioReport = %v, %v; want no report and %q", rep, err, want)
	}
	_, err = engine.RunSchedule(context.Background(), svc, engine.RunOptions{Duration: time.Minute},
		engine.Step{At: time.Second, Action: fault.Action{Type: fault.SlowAgent, TargetID: "worker-1"}})
	if !errors.Is(err, fault.ErrUnsupported) || !strings.HasPrefix(err.Error(), "steps[0].action.type: slow_agent is not supported") {
		t.Errorf("RunSchedule(slow_agent) = %v, want steps[0].action.type: … ErrUnsupported", err)
	}
	res := svc.Execute(context.Background(), fault.Action{Type: fault.LLMFailure, TargetID: "worker-1"})
	if res.Success || !errors.Is(res.Err, fault.ErrUnsupported) {
		t.Errorf("Execute(llm_failure) = %+v, want ErrUnsupported", res)
	}
}

func TestSurvivalLeavesOutWhatTheRuntimeCannotLand(t *testing.T) {
	svc := killPauseService()
	rep, err := svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 10 * time.Minute, Interval: 10 * time.Second, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for typ := range rep.Config.Mix {
		if !svc.Injector().Supports(typ) {
			t.Errorf("mix has %s, which the runtime cannot land", typ)
		}
	}
	for typ := range rep.ByType {
		if !svc.Injector().Supports(typ) {
			t.Errorf("survival injected %s, which the runtime cannot land", typ)
		}
	}
	if rep.Actions == 0 {
		t.Errorf("no actions: %+v", rep)
	}
	// A warning for each agent fault it lacks; the DAG types are left out
	// silently, as before: the injector was given no DAG at all.
	lacks := 0
	for _, typ := range fault.Types() {
		if !typ.NeedsDAG() && !svc.Injector().Supports(typ) {
			lacks++
		}
	}
	if len(rep.Warnings) != lacks || !strings.Contains(strings.Join(rep.Warnings, "\n"), "mix: mcp_disconnect is not supported by this runtime (it does not implement fault.MCPDisconnecter): left out") {
		t.Errorf("warnings = %q, want one per unsupported agent fault (%d)", rep.Warnings, lacks)
	}

	rep, err = svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Minute, Interval: 10 * time.Second, Seed: 5,
		Mix: map[fault.Type]float64{fault.KillAgent: 1, fault.SlowAgent: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Config.Mix) != 1 || len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], "mix.slow_agent: slow_agent is not supported") {
		t.Errorf("mix %v, warnings %q; want kill_agent alone and a warning for slow_agent", rep.Config.Mix, rep.Warnings)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "warning: mix.slow_agent: slow_agent is not supported") {
		t.Errorf("WriteText = %v, text has no warning:\n%s", err, text.String())
	}

	_, err = svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Minute, Seed: 5,
		Mix: map[fault.Type]float64{fault.SlowAgent: 1}})
	if err == nil || !strings.Contains(err.Error(), "survival: mix: no type this runtime can land") {
		t.Errorf("RunSurvival(mix of slow_agent only) = %v, want an error", err)
	}
}
