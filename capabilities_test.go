package arena_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/fakes"
)

// killPause is a runtime with three capabilities: it lists agents, kills
// and pauses them. It implements nothing else of RuntimeProvider.
type killPause struct{ c *fakes.Cluster }

var (
	_ arena.AgentLister  = killPause{}
	_ arena.AgentStopper = killPause{}
	_ arena.Pauser       = killPause{}
)

func (k killPause) ListAgents(ctx context.Context) ([]arena.AgentInfo, error) {
	return k.c.ListAgents(ctx)
}
func (k killPause) StopAgent(ctx context.Context, id string) error { return k.c.StopAgent(ctx, id) }
func (k killPause) PauseAgent(ctx context.Context, id string) (arena.Lift, error) {
	return k.c.PauseAgent(ctx, id)
}
func (k killPause) ResumeAgent(ctx context.Context, id string) error { return k.c.ResumeAgent(ctx, id) }

func killPauseService() *arena.Service {
	clock := arena.NewVirtualClock(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clock), fakes.WithSeed(3))
	return arena.NewService(arena.NewInjectorFor(killPause{c}), nil, nil,
		arena.WithClock(clock), arena.WithProbe(c.Probe), arena.WithChecks(c.Checks()...))
}

func TestPartialRuntimeRunsWhatItSupports(t *testing.T) {
	svc := killPauseService()
	sc, err := arena.LoadScenario([]byte(`name: kills and pauses
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
	rep, err := arena.RunScenarioReport(context.Background(), svc, sc)
	if err != nil {
		t.Fatalf("RunScenarioReport = %v", err)
	}
	if rep.Passed != 4 {
		t.Errorf("%d of 4 steps passed:\n%s", rep.Passed, rep)
	}
	for _, typ := range []arena.ActionType{arena.ActionKillAgent, arena.ActionPauseAgent, arena.ActionResumeAgent, arena.ActionKillLeader} {
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
	sc, err := arena.LoadScenario([]byte(yaml), "mcp.yaml")
	if err != nil {
		t.Fatalf("LoadScenario: %v (the file is valid: it is the runtime that cannot land it)", err)
	}
	const want = "mcp.yaml:5:7: actions[1].action.type: mcp_disconnect is not supported by this runtime (it does not implement arena.MCPDisconnecter)"
	if err := svc.ValidateScenario(sc); err == nil || err.Error() != want {
		t.Errorf("ValidateScenario = %v, want %q", err, want)
	}
	if err := arena.ValidateScenario(sc); err != nil {
		t.Errorf("ValidateScenario without a service = %v, want nil", err)
	}
	rep, err := arena.RunScenarioReport(context.Background(), svc, sc)
	if rep != nil || !errors.Is(err, arena.ErrInvalidScenario) || err.Error() != want {
		t.Errorf("RunScenarioReport = %v, %v; want no report and %q", rep, err, want)
	}
	_, err = arena.RunSchedule(context.Background(), svc, arena.RunOptions{Duration: time.Minute},
		arena.Step{At: time.Second, Action: arena.Action{Type: arena.ActionSlowAgent, TargetID: "worker-1"}})
	if !errors.Is(err, arena.ErrUnsupported) || !strings.HasPrefix(err.Error(), "steps[0].action.type: slow_agent is not supported") {
		t.Errorf("RunSchedule(slow_agent) = %v, want steps[0].action.type: … ErrUnsupported", err)
	}
	res := svc.Execute(context.Background(), arena.Action{Type: arena.ActionLLMFailure, TargetID: "worker-1"})
	if res.Success || !errors.Is(res.Err, arena.ErrUnsupported) {
		t.Errorf("Execute(llm_failure) = %+v, want ErrUnsupported", res)
	}
}

func TestSurvivalLeavesOutWhatTheRuntimeCannotLand(t *testing.T) {
	svc := killPauseService()
	rep, err := svc.RunSurvival(context.Background(), arena.SurvivalConfig{Duration: 10 * time.Minute, Interval: 10 * time.Second, Seed: 5})
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
	for _, typ := range arena.ActionTypes() {
		if !typ.NeedsDAG() && !svc.Injector().Supports(typ) {
			lacks++
		}
	}
	if len(rep.Warnings) != lacks || !strings.Contains(strings.Join(rep.Warnings, "\n"), "mix: mcp_disconnect is not supported by this runtime (it does not implement arena.MCPDisconnecter): left out") {
		t.Errorf("warnings = %q, want one per unsupported agent fault (%d)", rep.Warnings, lacks)
	}

	rep, err = svc.RunSurvival(context.Background(), arena.SurvivalConfig{Duration: time.Minute, Interval: 10 * time.Second, Seed: 5,
		Mix: map[arena.ActionType]float64{arena.ActionKillAgent: 1, arena.ActionSlowAgent: 2}})
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

	_, err = svc.RunSurvival(context.Background(), arena.SurvivalConfig{Duration: time.Minute, Seed: 5,
		Mix: map[arena.ActionType]float64{arena.ActionSlowAgent: 1}})
	if err == nil || !strings.Contains(err.Error(), "survival: mix: no type this runtime can land") {
		t.Errorf("RunSurvival(mix of slow_agent only) = %v, want an error", err)
	}
}
