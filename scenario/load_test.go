package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// Every kind of bad file names the file, the line and column, and the field
// path. The texts are asserted literally: they are the user interface.
func TestLoadScenarioErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"typo'd key", `
name: typo
actions:
  - dealy: 2s
    action: {type: kill_leader}
`, `bad.yaml:4:5: actions[0].dealy: unknown key (want label, delay, action, expect_success, expect_failure, depends_on)`},
		{"typo'd metadata key", `
name: typo
actions:
  - action:
      type: slow_agent
      target_id: worker-1
      metadata: {dealy: 2s}
`, `bad.yaml:7:18: actions[0].action.metadata.dealy: unknown key for slow_agent (want delay, duration)`},
		{"metadata key of another type", `
name: wrong-key
actions:
  - action: {type: kill_leader}
  - action: {type: kill_leader}
  - action:
      type: tool_timeout
      target_id: worker-1
      metadata:
        delay: 2s
`, `bad.yaml:10:9: actions[2].action.metadata.delay: unknown key for tool_timeout (want timeout, duration)`},
		{"cycle", `
name: cycle
config: {parallel_actions: true}
actions:
  - label: a
    depends_on: [c]
    action: {type: kill_leader}
  - label: b
    depends_on: [a]
    action: {type: kill_orchestrator}
  - label: c
    depends_on: [b]
    action: {type: kill_agent, target_id: random}
`, `bad.yaml:6:5: actions[0].depends_on: cycle: a -> c -> b -> a`},
		{"self dependency", `
name: self
config: {parallel_actions: true}
actions:
  - label: a
    depends_on: [a]
    action: {type: kill_leader}
`, `bad.yaml:6:5: actions[0].depends_on: cycle: a -> a`},
		{"unknown label", `
name: unknown-label
config: {parallel_actions: true}
actions:
  - label: a
    action: {type: kill_leader}
  - depends_on: [a, b]
    action: {type: kill_orchestrator}
`, `bad.yaml:7:21: actions[1].depends_on[1]: unknown label "b"`},
		{"later step without parallel_actions", `
name: forward
actions:
  - depends_on: [second]
    action: {type: kill_leader}
  - label: second
    action: {type: kill_orchestrator}
`, `bad.yaml:4:18: actions[0].depends_on[0]: "second" is a later step (actions[1]); without parallel_actions a step may only depend on earlier steps`},
		{"duplicate label", `
name: duplicate
actions:
  - label: kill
    action: {type: kill_leader}
  - label: kill
    action: {type: kill_orchestrator}
`, `bad.yaml:6:5: actions[1].label: duplicate label "kill" (also actions[0])`},
		{"negative delay", `
name: negative
actions:
  - action: {type: kill_leader}
  - delay: -1.5s
    action: {type: kill_orchestrator}
`, `bad.yaml:5:5: actions[1].delay: negative duration -1.5s (want 0 to 24h)`},
		{"negative duration in seconds", `
name: negative
config:
  cooldown: -3
actions:
  - action: {type: kill_leader}
`, `bad.yaml:4:3: config.cooldown: negative duration -3s (want 0 to 24h)`},
		{"both expect flags", `
name: both
actions:
  - expect_success: true
    expect_failure: true
    action: {type: kill_leader}
`, `bad.yaml:5:5: actions[0].expect_failure: both expect_success and expect_failure are set (choose one)`},
		{"missing target", `
name: no-target
actions:
  - label: kill
    action:
      type: kill_agent
`, `bad.yaml:5:5: actions[0].action.target_id: missing`},
		{"missing source of an edge", `
name: no-source
actions:
  - action: {type: remove_edge, target_id: worker-1}
`, `bad.yaml:4:5: actions[0].action.source_id: missing`},
		{"target where none is taken", `
name: target
actions:
  - action: {type: kill_leader, target_id: leader-0}
`, `bad.yaml:4:33: actions[0].action.target_id: kill_leader takes no target_id: it hits the leader`},
		{"wrong metadata type", `
name: meta-type
actions:
  - action:
      type: llm_failure
      target_id: worker-1
      metadata:
        error_type: 429
`, `bad.yaml:8:9: actions[0].action.metadata.error_type: want a string, got int`},
		{"unparsable duration", `
name: meta-duration
actions:
  - action:
      type: pause_agent
      target_id: worker-1
      metadata: {duration: soon}
`, `bad.yaml:7:18: actions[0].action.metadata.duration: "soon" is not a duration (want a Go duration such as "1.5s" or a number of seconds)`},
		{"metadata value not a scalar", `
name: meta-list
actions:
  - action:
      type: pause_agent
      target_id: worker-1
      metadata: {duration: [1, 2]}
`, `bad.yaml:7:28: actions[0].action.metadata.duration: want a scalar value, got a sequence`},
		{"unknown action type", `
name: unknown-type
actions:
  - action: {type: kill_lader}
`, `bad.yaml:4:14: actions[0].action.type: unknown action type "kill_lader" (want one of ` + typeList() + `)`},
		{"missing type", `
name: no-type
actions:
  - action: {target_id: worker-1}
`, `bad.yaml:4:5: actions[0].action.type: missing`},
		{"wrong value type", `
name: wrong-type
config:
  parallel_actions: yes
actions:
  - action: {type: kill_leader}
`, `bad.yaml:4:21: config.parallel_actions: want true or false, got the string "yes"`},
		{"number where a string is wanted", `
name: number
actions:
  - action: {type: kill_agent, target_id: 7}
`, `bad.yaml:4:43: actions[0].action.target_id: want a string, got the integer 7`},
		{"not YAML", `
name: broken
actions: [
  - {type: kill_leader
`, `bad.yaml:3: invalid YAML: did not find expected node content`},
		{"tab indentation", "name: tabs\n\tactions: []\n", `bad.yaml:2: invalid YAML: found a tab character that violates indentation`},
		{"not a mapping", "just some words\n", `bad.yaml:1:1: want a mapping, got the string "just some words"`},
		{"a list", "- name: a\n- name: b\n", `bad.yaml:1:1: want a mapping, got a sequence`},
		{"empty file", "", `bad.yaml: empty (want a scenario: a mapping with name and actions)`},
		{"comments only", "# nothing\n", `bad.yaml: empty (want a scenario: a mapping with name and actions)`},
		{"two documents", "name: a\nactions: []\n---\nname: b\n", `bad.yaml:3: invalid YAML: a second YAML document (a scenario file holds one)`},
		{"duplicate key", `
name: first
name: second
actions:
  - action: {type: kill_leader}
`, `bad.yaml:3:1: name: duplicate key`},
		{"merge key", `
name: merge
base: &base {type: kill_leader}
actions:
  - action: {<<: *base}
`, "bad.yaml:3:1: base: unknown key (want name, description, tags, config, actions, expect)\n" +
			"bad.yaml:5:14: actions[0].action: merge keys (<<) are not supported"},
		{"missing name", `
actions:
  - action: {type: kill_leader}
`, `bad.yaml:2:1: name: missing`},
		{"missing actions", `
name: nothing
`, `bad.yaml:2:1: actions: missing (a scenario needs at least one step)`},
		{"empty actions", `
name: nothing
actions: []
`, `bad.yaml:3:1: actions: empty (a scenario needs at least one step)`},
		{"missing action", `
name: no-action
actions:
  - label: kill
`, `bad.yaml:4:5: actions[0].action: missing`},
		{"max_concurrent without parallel_actions", `
name: sequential
config:
  max_concurrent: 2
actions:
  - action: {type: kill_leader}
`, `bad.yaml:4:3: config.max_concurrent: only applies with parallel_actions: true (steps run one at a time)`},
		{"timeout shorter than the plan", `
name: short
config:
  timeout: 30s
  warmup: 10s
  cooldown: 15s
actions:
  - delay: 10s
    action: {type: kill_leader}
`, `bad.yaml:4:3: config.timeout: 30s is shorter than the planned length 35s (warmup, the longest chain of delays, cooldown)`},
		{"longer than a day", `
name: long
actions:
  - delay: 13h
    action: {type: kill_leader}
  - delay: 12h
    action: {type: kill_orchestrator}
`, `bad.yaml:2:1: planned length 25h exceeds 24h (warmup, the longest chain of delays, cooldown); survival mode is for longer chaos`},
		{"a delay longer than a day", `
name: long
actions:
  - delay: 25h
    action: {type: kill_leader}
`, `bad.yaml:4:5: actions[0].delay: 25h is out of range (want 0 to 24h)`},
		{"bad gate", `
name: gate
actions:
  - action: {type: kill_leader}
expect:
  min_grade: A++
  min_score: 101
  max_mttr: -1s
`, "bad.yaml:6:14: expect.min_grade: unknown grade \"A++\" (want A+, A, B, C, D or F)\n" +
			"bad.yaml:7:3: expect.min_score: want a score from 0 to 100, got 101\n" +
			"bad.yaml:8:3: expect.max_mttr: negative duration -1s (want 0 to 24h)"},
		{"every problem at once, in file order", `
name: many
config:
  parallel_actions: true
  max_concurrent: -1
actions:
  - label: a
    delay: -1s
    depends_on: [ghost]
    action: {type: kill_agent}
  - label: a
    action: {type: slow_agent, target_id: worker-1, metadata: {delay: 0, extra: 1}}
expect: {min_grade: Q}
`, "bad.yaml:5:3: config.max_concurrent: -1 is out of range (want 1 to 10000)\n" +
			"bad.yaml:8:5: actions[0].delay: negative duration -1s (want 0 to 24h)\n" +
			"bad.yaml:9:18: actions[0].depends_on[0]: unknown label \"ghost\"\n" +
			"bad.yaml:10:5: actions[0].action.target_id: missing\n" +
			"bad.yaml:11:5: actions[1].label: duplicate label \"a\" (also actions[0])\n" +
			"bad.yaml:12:64: actions[1].action.metadata.delay: must be positive (want 1ns to 1h)\n" +
			"bad.yaml:12:74: actions[1].action.metadata.extra: unknown key for slow_agent (want delay, duration)\n" +
			"bad.yaml:13:21: expect.min_grade: unknown grade \"Q\" (want A+, A, B, C, D or F)"},
	}
	kinds := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := scenario.Load([]byte(tt.yaml), "bad.yaml") // line 1 is the blank one after the backquote
			if sc != nil || err == nil {
				t.Fatalf("LoadScenario() = %v, %v, want an error", sc, err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("LoadScenario() error:\n got: %s\nwant: %s", got, tt.want)
			}
			if !errors.Is(err, scenario.ErrInvalid) {
				t.Errorf("errors.Is(%v, ErrInvalidScenario) = false", err)
			}
			var list scenario.Errors
			if !errors.As(err, &list) || len(list) == 0 || list[0].File != "bad.yaml" {
				t.Errorf("errors.As(ScenarioErrors) = %v, want problems of bad.yaml", list)
			}
		})
		kinds[tt.name] = true
	}
	if len(kinds) < 10 {
		t.Errorf("only %d kinds of bad file", len(kinds))
	}
}

func TestLoadScenarioDecodesEveryField(t *testing.T) {
	sc, err := scenario.Load([]byte(`
# yaml-language-server: $schema=./scenario.schema.json
name: full
description: Every field once.
tags: [a, b]
config:
  stop_on_error: true
  parallel_actions: true
  max_concurrent: 2
  timeout: 5m
  warmup: 2.5
  cooldown: 30s
  seed: 18446744073709551615
  probe_interval: 50ms
  recovery_deadline: 20s
actions:
  - label: slow
    delay: 1s
    action:
      type: slow_agent
      target_id: type:worker
      metadata: {delay: 2, duration: "1.5s"}
    expect_success: true
  - label: cut
    depends_on: [slow]
    expect_failure: true
    action: {type: remove_edge, source_id: a, target_id: b}
  - action:
      type: llm_failure
      target_id: random
      metadata: {error_type: overloaded, duration: 0.5}
expect:
  min_grade: b
  min_score: 85.5
  max_mttr: 2s
  all_recovered: true
  consistent: true
`), "full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	score, mttr := 85.5, clock.Duration(2*time.Second)
	want := &scenario.Scenario{
		Name: "full", Description: "Every field once.", Tags: []string{"a", "b"},
		Config: scenario.Config{StopOnError: true, ParallelActions: true, MaxConcurrent: 2,
			Timeout: clock.Duration(5 * time.Minute), Warmup: clock.Duration(2500 * time.Millisecond),
			Cooldown: clock.Duration(30 * time.Second), Seed: 1<<64 - 1,
			ProbeInterval: clock.Duration(50 * time.Millisecond), RecoveryDeadline: clock.Duration(20 * time.Second)},
		Actions: []scenario.Step{
			{Label: "slow", Delay: clock.Duration(time.Second), ExpectSuccess: true, Action: fault.Action{
				Type: fault.SlowAgent, TargetID: "type:worker", Metadata: map[string]any{"delay": 2, "duration": "1.5s"}}},
			{Label: "cut", DependsOn: []string{"slow"}, ExpectFailure: true,
				Action: fault.Action{Type: fault.RemoveEdge, SourceID: "a", TargetID: "b"}},
			{Action: fault.Action{Type: fault.LLMFailure, TargetID: "random",
				Metadata: map[string]any{"error_type": "overloaded", "duration": 0.5}}},
		},
		Expect: scenario.Gate{MinGrade: engine.GradeB, MinScore: &score, MaxMTTR: &mttr, AllRecovered: true, Consistent: true},
	}
	if diff := cmp.Diff(want, sc, cmpopts.IgnoreUnexported(scenario.Scenario{})); diff != "" {
		t.Errorf("LoadScenario() (-want +got):\n%s", diff)
	}
	if sc.Source() != "full.yaml" {
		t.Errorf("Source() = %q", sc.Source())
	}
	// What was loaded validates again, as built in code.
	if err := scenario.Validate(sc); err != nil {
		t.Errorf("ValidateScenario(loaded) = %v", err)
	}
}

// JSON is YAML: a scenario posted as JSON loads the same way.
func TestLoadScenarioJSON(t *testing.T) {
	sc, err := scenario.Load([]byte(`{"name": "j", "config": {"warmup": 1}, "actions": [{"delay": "2s", "action": {"type": "kill_leader"}}]}`), "j.json")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "j" || sc.Config.Warmup.D() != time.Second || sc.Actions[0].Delay.D() != 2*time.Second {
		t.Errorf("LoadScenario(JSON) = %+v", sc)
	}
}

func TestLoadScenarioAliases(t *testing.T) {
	sc, err := scenario.Load([]byte(`
name: aliases
actions:
  - &kill {action: {type: kill_agent, target_id: worker-1}}
  - *kill
  - {delay: 1s, action: *slow}
`+"x: &slow {type: slow_agent, target_id: worker-2}\n"), "a.yaml")
	// The anchor is defined after its use and x is unknown: both reported.
	if err == nil || sc != nil {
		t.Fatalf("LoadScenario() = %v, %v, want errors", sc, err)
	}
	sc, err = scenario.Load([]byte(`
name: aliases
actions:
  - &kill {action: {type: kill_agent, target_id: worker-1}}
  - *kill
`), "a.yaml")
	if err != nil || len(sc.Actions) != 2 || sc.Actions[1].Action.TargetID != "worker-1" {
		t.Fatalf("LoadScenario() = %+v, %v, want two kills of worker-1", sc, err)
	}
	// A billion laughs: aliases multiply a small file into a huge walk.
	var b strings.Builder
	b.WriteString("name: laughs\nactions:\n  - &s0\n    action: {type: kill_leader}\n    depends_on: [")
	for i := range 400 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("x")
	}
	b.WriteString("]\n")
	for range 1000 {
		b.WriteString("  - *s0\n")
	}
	_, err = scenario.Load([]byte(b.String()), "laughs.yaml")
	if err == nil || !strings.Contains(err.Error(), "more than 200000 YAML nodes (after expanding aliases)") {
		t.Errorf("LoadScenario(alias bomb) error = %.300v, want the node limit", err)
	}
}

func TestLoadScenarioFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("name: good\nactions:\n  - action: {type: kill_leader}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.LoadFile(good)
	if err != nil || sc.Name != "good" || sc.Source() != good {
		t.Errorf("LoadScenarioFile(good) = %+v, %v", sc, err)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nactions:\n  - action: {type: nope}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = scenario.LoadFile(bad)
	if want := bad + ":3:14: actions[0].action.type: unknown action type"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("LoadScenarioFile(bad) error = %v, want prefix %q", err, want)
	}

	_, err = scenario.LoadFile(filepath.Join(dir, "missing.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadScenarioFile(missing) error = %v, want os.ErrNotExist", err)
	}

	huge := filepath.Join(dir, "huge.yaml")
	data := append([]byte("name: huge\ndescription: "), make([]byte, scenario.MaxSize)...)
	if err := os.WriteFile(huge, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = scenario.LoadFile(huge)
	if want := huge + ": larger than 1048576 bytes"; err == nil || err.Error() != want {
		t.Errorf("LoadScenarioFile(huge) error = %v, want %q", err, want)
	}
}

// Scenarios built in code are validated the same way; their problems have
// no position, and come in field order.
func TestValidateScenarioInCode(t *testing.T) {
	neg := -5.0
	sc := &scenario.Scenario{
		Config: scenario.Config{ParallelActions: true, Warmup: clock.Duration(-time.Second)},
		Actions: []scenario.Step{
			{Label: "a", DependsOn: []string{"b"}, Action: fault.Action{Type: fault.KillLeader}},
			{Label: "b", DependsOn: []string{"c"}, Action: fault.Action{Type: fault.PauseAgent, TargetID: "has space"}},
			{Label: "c", DependsOn: []string{"a", "a"}, Action: fault.Action{Type: fault.KillOrchestrator}},
			{Action: fault.Action{Type: "explode"}, ExpectSuccess: true, ExpectFailure: true},
		},
		Expect: scenario.Gate{MinGrade: "Z", MinScore: &neg},
	}
	err := scenario.Validate(sc)
	want := strings.Join([]string{
		`name: missing`,
		`config.warmup: negative duration -1s (want 0 to 24h)`,
		`actions[1].action.target_id: "has space" contains white space or control characters`,
		`actions[3].action.type: unknown action type "explode" (want one of ` + typeList() + `)`,
		`actions[3].expect_failure: both expect_success and expect_failure are set (choose one)`,
		`actions[2].depends_on[1]: duplicate dependency "a"`,
		`actions[0].depends_on: cycle: a -> b -> c -> a`,
		`expect.min_grade: unknown grade "Z" (want A+, A, B, C, D or F)`,
		`expect.min_score: want a score from 0 to 100, got -5`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("ValidateScenario() error:\n%v\nwant:\n%s", err, want)
	}
	if err := scenario.Validate(nil); err == nil || err.Error() != "nil scenario" {
		t.Errorf("ValidateScenario(nil) = %v", err)
	}
	ok := &scenario.Scenario{Name: "ok", Actions: []scenario.Step{{Action: fault.Action{Type: fault.KillLeader}}}}
	if err := scenario.Validate(ok); err != nil {
		t.Errorf("ValidateScenario(ok) = %v", err)
	}
}

func TestPlannedLength(t *testing.T) {
	d := func(x time.Duration) clock.Duration { return clock.Duration(x) }
	steps := []scenario.Step{
		{Label: "a", Delay: d(3 * time.Second), Action: fault.Action{Type: fault.KillLeader}},
		{Label: "b", Delay: d(5 * time.Second), Action: fault.Action{Type: fault.KillLeader}},
		{Label: "c", Delay: d(1 * time.Second), DependsOn: []string{"a"}, Action: fault.Action{Type: fault.KillLeader}},
	}
	cfg := scenario.Config{Warmup: d(10 * time.Second), Cooldown: d(20 * time.Second)}
	seq := &scenario.Scenario{Name: "seq", Config: cfg, Actions: steps}
	if got, want := seq.PlannedLength(), 39*time.Second; got != want {
		t.Errorf("sequential PlannedLength() = %s, want %s (10 + 3+5+1 + 20)", got, want)
	}
	cfg.ParallelActions = true
	par := &scenario.Scenario{Name: "par", Config: cfg, Actions: steps}
	if got, want := par.PlannedLength(), 35*time.Second; got != want {
		t.Errorf("parallel PlannedLength() = %s, want %s (10 + max(3+1, 5) + 20)", got, want)
	}
}

// typeList is the list of built-in types that "want one of …" gives.
func typeList() string {
	var names []string
	for _, typ := range fault.Types() {
		names = append(names, string(typ))
	}
	return strings.Join(names, ", ")
}
