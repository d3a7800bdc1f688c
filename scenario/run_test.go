package scenario_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// chaosScenario uses selectors, so its targets depend on the seed.
const chaosScenario = `
name: chaos
config:
  warmup: 5s
  cooldown: 20s
  seed: 42
actions:
  - label: leader
    delay: 5s
    action: {type: kill_leader}
  - label: worker
    delay: 12s
    action: {type: kill_agent, target_id: random}
  - label: llm
    delay: 12s
    action:
      type: llm_failure
      target_id: type:worker
      metadata: {duration: 5s}
expect:
  min_grade: B
  max_mttr: 3s
  all_recovered: true
  consistent: true
`

func loadChaos(t *testing.T) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Load([]byte(chaosScenario), "chaos.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func scenarioJSON(t *testing.T, seed uint64, opts ...fakes.Option) ([]byte, *scenario.Report) {
	t.Helper()
	e := newRig(t, seed, opts...)
	sc := loadChaos(t)
	sc.Config.Seed = seed
	rep := runScenario(t, e.svc, sc)
	rep.Report.WallTime = 0
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b, rep
}

func TestRunScenarioReportIsReproducible(t *testing.T) {
	a, ra := scenarioJSON(t, 42)
	b, _ := scenarioJSON(t, 42)
	if !bytes.Equal(a, b) {
		t.Fatalf("same seed, different reports:\n%s\n---\n%s", a, b)
	}
	if ra.Seed != 42 || ra.Report.Seed != 42 {
		t.Errorf("seed %d (report %d), want 42", ra.Seed, ra.Report.Seed)
	}
	if !ra.OK() {
		t.Errorf("chaos scenario failed its gate on the default fakes:\n%s", ra)
	}
	// Another seed picks other targets.
	var targets []string
	for _, seed := range []uint64{42, 1, 2, 3, 4} {
		_, r := scenarioJSON(t, seed)
		targets = append(targets, r.Steps[1].Result.Action.TargetID+","+r.Steps[2].Result.Action.TargetID)
	}
	if distinct := slices.Compact(slices.Sorted(slices.Values(targets))); len(distinct) < 2 {
		t.Errorf("five seeds chose the same targets: %v", targets)
	}
}

func TestRunScenarioReportDrawsASeed(t *testing.T) {
	e := newRig(t, fakes.DefaultSeed)
	sc := loadChaos(t)
	sc.Config.Seed = 0
	rep := runScenario(t, e.svc, sc)
	if rep.Seed == 0 || rep.Seed != rep.Report.Seed {
		t.Errorf("seed = %d (report %d), want a drawn, reported seed", rep.Seed, rep.Report.Seed)
	}
}

// The report is this run's: a second scenario on the same service reports
// its own faults and steps only.
func TestRunScenarioReportCoversThisRunOnly(t *testing.T) {
	e := newRig(t, fakes.DefaultSeed)
	first := runScenario(t, e.svc, loadChaos(t))
	small := &scenario.Scenario{Name: "small", Config: scenario.Config{Cooldown: clock.Duration(15 * time.Second)},
		Actions: []scenario.Step{{Delay: clock.Duration(time.Second), Action: fault.Action{Type: fault.KillLeader}}}}
	second := runScenario(t, e.svc, small)
	if first.Report.Landed != 3 || second.Report.Landed != 1 || len(second.Steps) != 1 || second.Passed != 1 {
		t.Errorf("landed %d then %d, second steps %d passed %d; want 3, 1, 1, 1", first.Report.Landed, second.Report.Landed, len(second.Steps), second.Passed)
	}
	if got := second.End.Sub(second.Start); got != 16*time.Second {
		t.Errorf("second run lasted %s, want 16s", got)
	}
	if st := e.svc.Stats(); st.Total != 4 {
		t.Errorf("service stats total = %d, want 4 (they are cumulative; reports are not)", st.Total)
	}
}

func TestRunScenarioReportGateFailsWithoutHealing(t *testing.T) {
	_, rep := scenarioJSON(t, 42, fakes.WithoutHealing())
	if rep.OK() || rep.Gate.Verdict != scenario.GateFailed {
		t.Fatalf("verdict %s, want failed:\n%s", rep.Gate.Verdict, rep)
	}
	var failed []string
	for _, c := range rep.Gate.Checks {
		if !c.Passed {
			failed = append(failed, c.Name)
		}
	}
	if diff := cmp.Diff([]string{"min_grade", "all_recovered"}, failed); diff != "" {
		t.Errorf("failed criteria (-want +got):\n%s\n%s", diff, rep)
	}
}

func TestGateCheck(t *testing.T) {
	score := func(total float64) engine.Score {
		return engine.Score{Total: total, Grade: engine.GradeFor(total), Measured: true, Recovery: engine.Dimension{Measured: true}}
	}
	f := func(x float64) *float64 { return &x }
	d := func(x time.Duration) *clock.Duration { v := clock.Duration(x); return &v }
	lost := engine.FaultOutcome{Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-2"}, At: clock.Duration(10 * time.Second)}
	healed := engine.FaultOutcome{Action: fault.Action{Type: fault.KillLeader, TargetID: "leader-0"}, Recovered: true}
	tests := []struct {
		name string
		gate scenario.Gate
		rep  engine.Report
		want []string // name=passed or name:reason
	}{
		{"nothing asked", scenario.Gate{}, engine.Report{}, nil},
		{"all met", scenario.Gate{MinGrade: engine.GradeB, MinScore: f(85), MaxMTTR: d(2 * time.Second), AllRecovered: true, Consistent: true},
			engine.Report{Score: score(90), Landed: 1, Recovered: 1, MTTR: clock.Duration(time.Second), ChecksRun: 3, ChecksPassed: 3, Faults: []engine.FaultOutcome{healed}},
			[]string{"min_grade=ok", "min_score=ok", "max_mttr=ok", "all_recovered=ok", "consistent=ok"}},
		{"boundaries are inclusive", scenario.Gate{MinGrade: engine.GradeA, MinScore: f(90), MaxMTTR: d(time.Second)},
			engine.Report{Score: score(90), MTTR: clock.Duration(time.Second)},
			[]string{"min_grade=ok", "min_score=ok", "max_mttr=ok"}},
		{"all missed", scenario.Gate{MinGrade: engine.GradeA, MinScore: f(95), MaxMTTR: d(time.Second), AllRecovered: true, Consistent: true},
			engine.Report{Score: score(74.25), Landed: 2, Recovered: 1, Unrecovered: 1, MTTR: clock.Duration(1500 * time.Millisecond),
				ChecksRun: 4, ChecksPassed: 3, Faults: []engine.FaultOutcome{healed, lost},
				Checks: []engine.CheckResult{{Name: "tasks", Passed: true}, {Name: "memory", At: clock.Duration(20 * time.Second), Error: "checksum mismatch"}}},
			[]string{
				"min_grade:grade C (74.2) is below the minimum A",
				"min_score:score 74.2 is below the minimum 95.0",
				"max_mttr:MTTR 1.5s is above the maximum 1s",
				"all_recovered:1 of 2 faults unrecovered: kill_agent on worker-2 at 10s",
				"consistent:1 of 4 checks failed, first memory at 20s: checksum mismatch",
			}},
		{"nothing measured", scenario.Gate{MinGrade: engine.GradeF, MinScore: f(0), AllRecovered: true, Consistent: true},
			engine.Report{Landed: 1, Faults: []engine.FaultOutcome{lost}},
			[]string{
				"min_grade:no grade: nothing was measured",
				"min_score:score none is below the minimum 0.0",
				"all_recovered:recovery not measured (no probe)",
				"consistent:no consistency check ran",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range tt.gate.Check(&tt.rep) {
				if c.Passed != (c.Reason == "") {
					t.Errorf("%s: passed %v with reason %q", c.Name, c.Passed, c.Reason)
				}
				if c.Passed {
					got = append(got, c.Name+"=ok")
				} else {
					got = append(got, c.Name+":"+c.Reason)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check() (-want +got):\n%s", diff)
			}
		})
	}
}

// The JSON field names are the documented schema of scenario.Report.
func TestScenarioReportJSONFields(t *testing.T) {
	b, _ := scenarioJSON(t, 7)
	var doc struct {
		Top   map[string]json.RawMessage
		Steps []map[string]json.RawMessage
		Gate  struct {
			Verdict string
			Checks  []map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &doc.Top); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(doc.Top["steps"], &doc.Steps)
	_ = json.Unmarshal(doc.Top["gate"], &doc.Gate)
	keys := func(m map[string]json.RawMessage) []string { return slices.Sorted(maps.Keys(m)) }
	if diff := cmp.Diff([]string{"end", "failed", "gate", "outcome", "passed", "report", "scenario", "seed", "skipped", "source", "start", "steps", "virtual"}, keys(doc.Top)); diff != "" {
		t.Errorf("report keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"expect", "index", "label", "ready", "result", "started", "status", "target", "type"}, keys(doc.Steps[1])); diff != "" {
		t.Errorf("step keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"got", "name", "passed", "want"}, keys(doc.Gate.Checks[0])); diff != "" {
		t.Errorf("gate check keys (-want +got):\n%s", diff)
	}
	for _, want := range []string{`"ready": "10s"`, `"started": "10s"`, `"outcome": "completed"`, `"verdict": "passed"`, `"mttr": "`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}

func TestScenarioReportText(t *testing.T) {
	_, rep := scenarioJSON(t, 42, fakes.WithoutHealing())
	text := rep.String()
	for _, want := range []string{
		"scenario chaos: FAILED (seed 42, completed)\n",
		"  - grade F",
		"steps: 3 passed, 0 failed, 0 skipped\n",
		"  #  label   at   type         target          status\n",
		"  0  leader  10s  kill_leader  leader-0        passed\n",
		"  1  worker  22s  kill_agent   orchestrator-0  passed\n",
		"  FAIL  all_recovered  want every landed fault recovered",
		// The last fault (llm_failure at 34s, lifted at 39s) is watched
		// past the cooldown's end (54s) to its recovery deadline (64s).
		"arena report: seed 42, virtual time, 1m4.1s observed (10.1s past the schedule, watching its last faults settle)\n",
		"  34s  llm_failure  worker-3        -    UNRECOVERED, lifted by arena at 39s\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestScenarioReportJUnit(t *testing.T) {
	_, rep := scenarioJSON(t, 42, fakes.WithoutHealing())
	var buf bytes.Buffer
	if err := rep.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
			Out string `xml:"system-out"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, buf.String())
	}
	s := doc.Suites[0]
	var cases, failed []string
	for _, c := range s.Cases {
		cases = append(cases, c.Name)
		if c.Failure != nil {
			failed = append(failed, c.Name)
		}
	}
	wantCases := []string{"step 0 leader kill_leader", "step 1 worker kill_agent", "step 2 llm llm_failure",
		"gate steps", "gate run", "gate min_grade", "gate max_mttr", "gate all_recovered", "gate consistent"}
	if diff := cmp.Diff(wantCases, cases); diff != "" {
		t.Errorf("testcases (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"gate min_grade", "gate all_recovered"}, failed); diff != "" {
		t.Errorf("failed testcases (-want +got):\n%s", diff)
	}
	if s.Name != "chaos" || doc.Tests != 9 || doc.Failures != 2 || !strings.Contains(s.Out, "arena report: seed 42") {
		t.Errorf("suite %q tests %d failures %d", s.Name, doc.Tests, doc.Failures)
	}
	props := map[string]string{}
	for _, p := range s.Props {
		props[p.Name] = p.Value
	}
	if props["seed"] != "42" || props["verdict"] != "failed" || props["grade"] != "F" {
		t.Errorf("properties = %v", props)
	}
}

// Example-style use of the whole path on the fakes: load, run, gate.
func TestRunScenarioReportOnFakes(t *testing.T) {
	e := newRig(t, 3)
	rep, err := scenario.Run(context.Background(), e.svc, loadChaos(t))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Report.Score.Grade == engine.GradeNone || rep.Outcome != scenario.OutcomeCompleted {
		t.Errorf("report:\n%s", rep)
	}
}

// scenario.Run only reads its scenario: one *Scenario may be played by
// many runs at once (an A/B test does).
func TestRunScenarioReportSharesTheScenario(t *testing.T) {
	sc := loadChaos(t)
	want, _ := json.Marshal(sc)
	done := make(chan *scenario.Report)
	for range 4 {
		go func() {
			rep, err := scenario.Run(context.Background(), newRig(t, 42).svc, sc)
			if err != nil {
				t.Error(err)
			}
			done <- rep
		}()
	}
	var first []byte
	for range 4 {
		rep := <-done
		if rep == nil {
			continue
		}
		rep.Report.WallTime = 0
		b, _ := json.Marshal(rep)
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Error("concurrent runs of one scenario and seed differ")
		}
	}
	if got, _ := json.Marshal(sc); !bytes.Equal(got, want) {
		t.Errorf("the scenario changed:\n%s\n%s", want, got)
	}
}

// TestGatePassedUnderAnFGradeSaysWhy: a gate that asks nothing of the grade
// passes a run graded F, and the report says so instead of leaving the two
// to contradict each other.
func TestGatePassedUnderAnFGradeSaysWhy(t *testing.T) {
	e := newRig(t, 42, fakes.WithoutHealing())
	sc := loadChaos(t)
	sc.Config.Seed, sc.Expect = 42, scenario.Gate{}
	rep := runScenario(t, e.svc, sc)
	if !rep.OK() || rep.Score.Grade != engine.GradeF {
		t.Fatalf("gate %s, grade %s; want passed and F", rep.Gate.Verdict, rep.Score.Grade)
	}
	want := "  note: passed although graded F (36.2): this gate sets no min_grade or min_score, so the grade does not count\n"
	if !strings.Contains(rep.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, rep)
	}
	// With a grade criterion there is nothing to explain.
	sc.Expect = scenario.Gate{MinGrade: engine.GradeF}
	if rep := runScenario(t, newRig(t, 42, fakes.WithoutHealing()).svc, sc); rep.Gate.Note != "" {
		t.Errorf("note %q with min_grade set", rep.Gate.Note)
	}
}

// electing is a runtime with names of its own (a Raft cluster's): three
// followers, one of which the system elects leader at electAt on clk, and
// a client. It records the faults that land.
type electing struct {
	clk     clock.Clock
	start   time.Time
	electAt time.Duration
	landed  []string
}

func (e *electing) ListAgents(context.Context) ([]fault.AgentInfo, error) {
	agents := []fault.AgentInfo{{ID: "raft-1", Type: "follower"}, {ID: "raft-2", Type: "follower"}, {ID: "raft-3", Type: "follower"}}
	if e.clk.Now().Sub(e.start) >= e.electAt {
		agents[1].Type = fault.TypeLeader
	}
	return agents, nil
}

func (e *electing) StopAgent(_ context.Context, id string) error {
	e.landed = append(e.landed, "kill "+id)
	return nil
}

func (e *electing) PartitionNetwork(_ context.Context, id string) (fault.Lift, error) {
	e.landed = append(e.landed, "partition "+id)
	return func(context.Context) error { return nil }, nil
}

func electingService(electAt time.Duration) (*engine.Service, *electing) {
	clk := clock.NewVirtual(time.Time{})
	rt := &electing{clk: clk, start: clk.Now(), electAt: electAt}
	return engine.NewService(fault.NewInjectorFor(rt), nil, nil, engine.WithClock(clk)), rt
}

// TestRunRefusesTargetsTheSystemDoesNotList (issue 35, item 1): a scenario
// written for another system's names is refused before it starts, each
// step named with its target, what the system lists and the fix, and
// nothing lands; it used to run its whole length and fail each step.
func TestRunRefusesTargetsTheSystemDoesNotList(t *testing.T) {
	sc, err := scenario.Load([]byte(`name: split
config: {warmup: 5s, cooldown: 20s}
actions:
  - label: split-worker-1
    delay: 10s
    action: {type: network_partition, target_id: worker-1, metadata: {duration: 5s}}
  - label: split-workers
    delay: 1s
    action: {type: network_partition, target_id: "type:worker", metadata: {duration: 5s}}
  - label: split-leader
    delay: 1s
    action: {type: network_partition, target_id: "type:leader", metadata: {duration: 5s}}
  - label: split-others
    delay: 1s
    action: {type: network_partition, target_id: "not:leader", metadata: {duration: 5s}}
`), "split.yaml")
	if err != nil {
		t.Fatal(err)
	}
	svc, rt := electingService(2 * time.Second)
	rep, err := scenario.Run(context.Background(), svc, sc)
	const listed = "(the runtime lists raft-1 (follower), raft-2 (follower), raft-3 (follower))"
	want := `split.yaml:6:39: actions[0].action.target_id: step "split-worker-1": "worker-1": no agent has that ID ` + listed +
		`; target an agent it lists, or a role or selector that fits any system: type:<type>, not:<type> (not:leader: anyone but the leader) or any` + "\n" +
		`split.yaml:9:39: actions[1].action.target_id: step "split-workers": "type:worker": no agent has type worker ` + listed +
		`; use a type it lists, not:<type> or any`
	if rep != nil || err == nil || err.Error() != want {
		t.Errorf("Run = %v, %v; want no report and\n%s", rep, err, want)
	}
	if len(rt.landed) != 0 {
		t.Errorf("landed %v before refusing the run, want nothing", rt.landed)
	}
	// A caller can tell this refusal from others, and read its parts.
	var te *fault.TargetError
	if !errors.Is(err, fault.ErrNoTarget) || !errors.Is(err, scenario.ErrInvalid) || !errors.As(err, &te) || te.Target != "worker-1" {
		t.Errorf("Run's error: errors.Is ErrNoTarget %v, ErrInvalid %v, As *fault.TargetError %v (%+v); want all, the first for worker-1",
			errors.Is(err, fault.ErrNoTarget), errors.Is(err, scenario.ErrInvalid), errors.As(err, &te), te)
	}
}

// TestRunChecksRolesAtTheEndOfTheWarmup: a role nobody holds before the
// run (no leader elected yet) is accepted if the system elects one during
// the warmup, and refused before the first fault if nobody holds it then.
func TestRunChecksRolesAtTheEndOfTheWarmup(t *testing.T) {
	const doc = `name: roles
config: {warmup: 5s, cooldown: 20s}
actions:
  - label: split-leader
    delay: 1s
    action: {type: network_partition, target_id: "type:leader", metadata: {duration: 5s}}
  - label: kill-leader
    delay: 10s
    action: {type: kill_leader}
`
	sc, err := scenario.Load([]byte(doc), "roles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	svc, rt := electingService(2 * time.Second) // elected within the warmup
	rep, err := scenario.Run(context.Background(), svc, sc)
	if err != nil || rep.Passed != 2 {
		t.Fatalf("Run = %v, %v; want both steps landed on the leader elected during the warmup", rep, err)
	}
	if diff := cmp.Diff([]string{"partition raft-2", "kill raft-2"}, rt.landed); diff != "" {
		t.Errorf("landed (-want +got):\n%s", diff)
	}

	svc, rt = electingService(time.Hour) // never within the run
	rep, err = scenario.Run(context.Background(), svc, sc)
	want := `roles.yaml:6:39: actions[0].action.target_id: step "split-leader": "type:leader": no agent has type leader at the end of the warmup (5s) ` +
		`(the runtime lists raft-1 (follower), raft-2 (follower), raft-3 (follower)); if the system elects its leader later, resolve roles live ` +
		`(fault.WithRoles, sim.World.SetRoles) and give it a warmup; if it has no leader, leave this fault out` + "\n" +
		`roles.yaml:9:14: actions[1].action.type: step "kill-leader": kill_leader hits the leader, and no agent holds that role at the end of the warmup (5s) ` +
		`(the runtime lists raft-1 (follower), raft-2 (follower), raft-3 (follower)); if the system elects its leader later, resolve roles live ` +
		`(fault.WithRoles, sim.World.SetRoles) and give it a warmup; if it has no leader, leave this fault out`
	if rep != nil || err == nil || err.Error() != want {
		t.Errorf("Run = %v, %v; want no report and\n%s", rep, err, want)
	}
	if len(rt.landed) != 0 {
		t.Errorf("landed %v, want nothing", rt.landed)
	}
}
