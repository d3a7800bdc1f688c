package scenario_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// FuzzLoadScenario's seeds are small on purpose: the fuzzer minimises
// every input that finds new coverage, and large seeds (the built-in
// scenarios, 1.4 KB) spent its whole time in minimisation (27 executions in
// 90 s). The Makefile bounds minimisation too (-fuzzminimizetime).
func FuzzLoadScenario(f *testing.F) {
	for _, s := range []string{
		chaosScenario,
		"",
		"name: x\nactions:\n  - action: {type: kill_leader}\n",
		"name: x\nconfig: {parallel_actions: true}\nactions:\n  - {label: a, depends_on: [b], action: {type: kill_leader}}\n  - {label: b, depends_on: [a], action: {type: kill_leader}}\n",
		"name: x\nactions:\n  - &a {action: {type: kill_agent, target_id: w}}\n  - *a\n",
		"name: x\nactions: [\n",
		"- a\n- b\n",
		"name: x\n---\nname: y\n",
		"{\"name\": \"j\", \"actions\": [{\"action\": {\"type\": \"remove_edge\", \"source_id\": \"a\", \"target_id\": \"b\"}}]}",
		"name: x\nactions:\n  - action: {type: slow_agent, target_id: w, metadata: {delay: 0x10, duration: 1e3}}\nexpect: {min_score: .nan, min_grade: a+}\n",
		"name: x\nconfig: {seed: 18446744073709551615, warmup: 2562047h}\nactions:\n  - delay: -0\n    action: {type: kill_leader}\n",
		"name: x\nactions:\n  - action: {<<: {type: kill_leader}}\n",
		"name: x\nconfig: {abort_when: {unhealthy_for: 30s, checks_failed: [tasks, ''], score_below: .nan}, allow_unhealthy_start: true}\nactions:\n  - action: {type: kill_leader}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Load(data, "fuzz.yaml")
		if err != nil {
			var list scenario.Errors
			if sc != nil || !errors.As(err, &list) || len(list) == 0 || !errors.Is(err, scenario.ErrInvalid) {
				t.Fatalf("LoadScenario() = %v, %v: want nil and ScenarioErrors", sc, err)
			}
			for i, e := range list {
				if e.File != "fuzz.yaml" || e.Line < 0 || e.Column < 0 || e.Msg == "" {
					t.Errorf("problem %+v lacks its file or message", e)
				}
				if i > 0 && (e.Line < list[i-1].Line || (e.Line == list[i-1].Line && e.Column < list[i-1].Column)) {
					t.Errorf("problems not in file order: %v", err)
				}
			}
			return
		}
		if err := scenario.Validate(sc); err != nil {
			t.Fatalf("loaded, but ValidateScenario() = %v", err)
		}
		if plan := sc.PlannedLength(); plan < 0 || plan > scenario.MaxLength {
			t.Errorf("PlannedLength() = %s", plan)
		}
		// What loads survives the way back to YAML (WriteYAML) unchanged
		// (compared as JSON), unless yaml.v3 cannot write one of its strings.
		a, err := json.Marshal(sc)
		if err != nil {
			t.Fatalf("json.Marshal(loaded) = %v", err)
		}
		if !yamlKeepsStrings(t, a) {
			return
		}
		var buf bytes.Buffer
		if err := sc.WriteYAML(&buf); err != nil {
			t.Fatalf("WriteYAML(loaded) = %v", err)
		}
		out := buf.Bytes()
		again, err := scenario.Load(out, "again.yaml")
		if err != nil {
			t.Fatalf("reloading\n%s\nfailed: %v", out, err)
		}
		if b, _ := json.Marshal(again); !bytes.Equal(a, b) {
			t.Errorf("round trip changed the scenario:\n%s\n%s", a, b)
		}
	})
}

// yamlKeepsStrings reports whether every string of the scenario (as its
// JSON) survives yaml.v3 on its own. yaml.v3 writes a string that starts
// with a line break as a block literal with an indentation indicator
// ("|4\n    0\n") and reads it back without that line break: Marshal("\n0\n")
// unmarshals to "0\n". That is yaml.v3's bug, not the loader's; the YAML
// round trip is checked for every other input.
func yamlKeepsStrings(t *testing.T, scJSON []byte) bool {
	var v any
	if err := json.Unmarshal(scJSON, &v); err != nil {
		t.Fatal(err)
	}
	keeps := true
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			keeps = keeps && yamlKeeps(v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				keeps = keeps && yamlKeeps(k)
				walk(e)
			}
		}
	}
	walk(v)
	return keeps
}

func yamlKeeps(s string) bool {
	b, err := yaml.Marshal(s)
	if err != nil {
		return false
	}
	var back string
	return yaml.Unmarshal(b, &back) == nil && back == s
}

// The yaml.v3 behaviour FuzzLoadScenario works around, pinned: if a new
// yaml.v3 fixes it, this fails and the workaround can go.
func TestYAMLv3LosesALeadingLineBreak(t *testing.T) {
	if yamlKeeps("\n0\n") {
		t.Error("yaml.v3 now round-trips \"\\n0\\n\": remove yamlKeepsStrings from FuzzLoadScenario")
	}
	if !yamlKeeps("0\n") || !yamlKeeps(" x") {
		t.Error("yaml.v3 loses strings without a leading line break")
	}
}

// FuzzValidateScenario builds scenarios in code from the fuzzer's bytes.
// Whatever validates must run to the end in virtual time (or be refused
// before its first fault for a target the system does not have) with every step
// accounted for, in an order that respects the dependencies, and take
// exactly the planned length unless a step stopped it.
func FuzzValidateScenario(f *testing.F) {
	f.Add([]byte{0, 3, 1, 2, 3})
	f.Add([]byte{1, 1, 2, 0, 0, 4, 3, 7, 7, 1, 9, 250, 0, 5, 4, 1, 3, 0, 0, 2})
	f.Add([]byte{3, 255, 0, 10, 20, 5, 2, 3, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4})
	f.Add([]byte{5, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{2, 0, 200, 0, 0, 13, 0, 0, 0, 6, 3, 0, 1})
	f.Add([]byte{0, 0, 0, 0, 1, 0, 14, 0, 0}) // network_bandwidth: the recorder cannot land it
	f.Fuzz(func(t *testing.T, data []byte) {
		sc := scenarioFromBytes(data)
		// Validated against the service: its recorder runtime lands
		// no network fault, so such steps must be refused here
		// rather than fail the run.
		svc, rec := virtualRecorder()
		err := scenario.ValidateFor(svc, sc)
		if err != nil {
			var list scenario.Errors
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("ValidateScenario() = %v, want ScenarioErrors", err)
			}
			for _, e := range list {
				if e.File != "" || e.Line != 0 || e.Msg == "" {
					t.Errorf("code-built problem %+v has a position or no message", e)
				}
			}
			return
		}
		rep, err := scenario.Run(context.Background(), svc, sc)
		if errors.Is(err, fault.ErrNoTarget) && rep == nil {
			// Refused before its first fault: a target the system does
			// not list, or a role nobody holds at the end of the warmup
			// (validation is static; targets are resolved against the
			// system when the run starts).
			return
		}
		if err != nil {
			t.Fatalf("RunScenarioReport() = %v", err)
		}
		n := len(sc.Actions)
		if len(rep.Steps) != n || rep.Passed+rep.Failed+rep.Skipped != n {
			t.Fatalf("%d steps reported, %d+%d+%d, want %d", len(rep.Steps), rep.Passed, rep.Failed, rep.Skipped, n)
		}
		if !sc.Config.StopOnError && (rep.Skipped != 0 || rep.Outcome != scenario.OutcomeCompleted) {
			t.Errorf("skipped %d, outcome %s without stop_on_error", rep.Skipped, rep.Outcome)
		}
		labels := map[string]int{}
		for i, st := range sc.Actions {
			if st.Label != "" {
				labels[st.Label] = i
			}
		}
		for i, st := range rep.Steps {
			if st.Started == nil {
				continue
			}
			if !sc.Config.ParallelActions && i > 0 && (rep.Steps[i-1].Started == nil || *rep.Steps[i-1].Started > *st.Started) {
				t.Errorf("step %d started at %s before step %d", i, st.Started, i-1)
			}
			for _, dep := range st.DependsOn {
				d := rep.Steps[labels[dep]]
				if d.Started == nil || *d.Started > *st.Started {
					t.Errorf("step %d started at %s before its dependency %s (%v)", i, st.Started, dep, d.Started)
				}
			}
			if st.Ready == nil || st.Started.D() != st.Ready.D()+sc.Actions[i].Delay.D() {
				t.Errorf("step %d ready %v started %s, want its delay %s after readiness", i, st.Ready, st.Started, sc.Actions[i].Delay)
			}
		}
		length := rep.End.Sub(rep.Start)
		if plan := sc.PlannedLength(); length > plan || (rep.Outcome == scenario.OutcomeCompleted && length != plan) {
			t.Errorf("run lasted %s, planned %s (outcome %s)", length, plan, rep.Outcome)
		}
		if rec.peak > 1 {
			t.Errorf("peak in flight %d in virtual time", rec.peak)
		}
	})
}

// scenarioFromBytes reads a small scenario from fuzz input: a header (flags,
// max_concurrent, warmup, cooldown) then five bytes per step (label, delay,
// type, target, dependency bits). Values are drawn so that both valid and
// invalid scenarios are common.
func scenarioFromBytes(data []byte) *scenario.Scenario {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	sc := &scenario.Scenario{Name: "fuzz"}
	flags := next()
	sc.Config.ParallelActions = flags&1 != 0
	sc.Config.StopOnError = flags&2 != 0
	if flags&4 != 0 {
		sc.Name = ""
	}
	sc.Config.MaxConcurrent = int(int8(next())) % 5
	sc.Config.Warmup = clock.Duration(time.Duration(int8(next())) * 100 * time.Millisecond)
	sc.Config.Cooldown = clock.Duration(time.Duration(next()) * 100 * time.Millisecond)
	if flags&8 != 0 {
		sc.Config.Timeout = clock.Duration(time.Duration(next()) * time.Second)
	}
	targets := []string{"w1", "w2", "bad", "random", "type:worker", "", "has space", "n1"}
	types := fault.Types()
	for len(data) > 0 && len(sc.Actions) < 8 {
		label, delay, typ, target, deps := next(), next(), next(), next(), next()
		st := scenario.Step{Delay: clock.Duration(time.Duration(int8(delay)) * 250 * time.Millisecond)}
		if label%8 != 0 {
			st.Label = fmt.Sprintf("s%d", label%8)
		}
		if int(typ) < len(types) {
			st.Action.Type = types[typ]
		} else {
			st.Action.Type = fault.Type(fmt.Sprintf("t%d", typ%3))
		}
		st.Action.TargetID = targets[target%8]
		if st.Action.Type == fault.KillLeader || st.Action.Type == fault.KillOrchestrator {
			if target&8 == 0 {
				st.Action.TargetID = ""
			}
		}
		if st.Action.Type == fault.RemoveEdge {
			st.Action.SourceID = "n2"
		}
		st.ExpectFailure = target&16 != 0
		st.ExpectSuccess = target&32 != 0
		for bit := range 8 {
			if deps&(1<<bit) != 0 {
				st.DependsOn = append(st.DependsOn, fmt.Sprintf("s%d", bit))
			}
		}
		sc.Actions = append(sc.Actions, st)
	}
	return sc
}
