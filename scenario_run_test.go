package arena_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/fakes"
	"github.com/google/go-cmp/cmp"
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

func loadChaos(t *testing.T) *arena.Scenario {
	t.Helper()
	sc, err := arena.LoadScenario([]byte(chaosScenario), "chaos.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func scenarioJSON(t *testing.T, seed uint64, opts ...fakes.Option) ([]byte, *arena.ScenarioReport) {
	t.Helper()
	e := newEngine(append([]fakes.Option{fakes.WithSeed(seed)}, opts...)...)
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
	e := newEngine()
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
	e := newEngine()
	first := runScenario(t, e.svc, loadChaos(t))
	small := &arena.Scenario{Name: "small", Config: arena.ScenarioConfig{Cooldown: arena.Duration(15 * time.Second)},
		Actions: []arena.ScenarioStep{{Delay: arena.Duration(time.Second), Action: arena.Action{Type: arena.ActionKillLeader}}}}
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
	if rep.OK() || rep.Gate.Verdict != arena.GateFailed {
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
	score := func(total float64) arena.Score {
		return arena.Score{Total: total, Grade: arena.GradeFor(total), Measured: true, Recovery: arena.Dimension{Measured: true}}
	}
	f := func(x float64) *float64 { return &x }
	d := func(x time.Duration) *arena.Duration { v := arena.Duration(x); return &v }
	lost := arena.FaultOutcome{Action: arena.Action{Type: arena.ActionKillAgent, TargetID: "worker-2"}, At: arena.Duration(10 * time.Second)}
	healed := arena.FaultOutcome{Action: arena.Action{Type: arena.ActionKillLeader, TargetID: "leader-0"}, Recovered: true}
	tests := []struct {
		name string
		gate arena.Gate
		rep  arena.Report
		want []string // name=passed or name:reason
	}{
		{"nothing asked", arena.Gate{}, arena.Report{}, nil},
		{"all met", arena.Gate{MinGrade: arena.GradeB, MinScore: f(85), MaxMTTR: d(2 * time.Second), AllRecovered: true, Consistent: true},
			arena.Report{Score: score(90), Landed: 1, Recovered: 1, MTTR: arena.Duration(time.Second), ChecksRun: 3, ChecksPassed: 3, Faults: []arena.FaultOutcome{healed}},
			[]string{"min_grade=ok", "min_score=ok", "max_mttr=ok", "all_recovered=ok", "consistent=ok"}},
		{"boundaries are inclusive", arena.Gate{MinGrade: arena.GradeA, MinScore: f(90), MaxMTTR: d(time.Second)},
			arena.Report{Score: score(90), MTTR: arena.Duration(time.Second)},
			[]string{"min_grade=ok", "min_score=ok", "max_mttr=ok"}},
		{"all missed", arena.Gate{MinGrade: arena.GradeA, MinScore: f(95), MaxMTTR: d(time.Second), AllRecovered: true, Consistent: true},
			arena.Report{Score: score(74.25), Landed: 2, Recovered: 1, Unrecovered: 1, MTTR: arena.Duration(1500 * time.Millisecond),
				ChecksRun: 4, ChecksPassed: 3, Faults: []arena.FaultOutcome{healed, lost},
				Checks: []arena.CheckResult{{Name: "tasks", Passed: true}, {Name: "memory", At: arena.Duration(20 * time.Second), Error: "checksum mismatch"}}},
			[]string{
				"min_grade:grade C (74.2) is below the minimum A",
				"min_score:score 74.2 is below the minimum 95.0",
				"max_mttr:MTTR 1.5s is above the maximum 1s",
				"all_recovered:1 of 2 faults unrecovered: kill_agent on worker-2 at 10s",
				"consistent:1 of 4 checks failed, first memory at 20s: checksum mismatch",
			}},
		{"nothing measured", arena.Gate{MinGrade: arena.GradeF, MinScore: f(0), AllRecovered: true, Consistent: true},
			arena.Report{Landed: 1, Faults: []arena.FaultOutcome{lost}},
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

// The JSON field names are the documented schema of ScenarioReport.
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
	e := newEngine(fakes.WithSeed(3))
	rep, err := arena.RunScenarioReport(context.Background(), e.svc, loadChaos(t))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Report.Score.Grade == arena.GradeNone || rep.Outcome != arena.OutcomeCompleted {
		t.Errorf("report:\n%s", rep)
	}
}

// RunScenarioReport only reads its scenario: one *Scenario may be played by
// many runs at once (an A/B test does).
func TestRunScenarioReportSharesTheScenario(t *testing.T) {
	sc := loadChaos(t)
	want, _ := json.Marshal(sc)
	done := make(chan *arena.ScenarioReport)
	for range 4 {
		go func() {
			rep, err := arena.RunScenarioReport(context.Background(), newEngine(fakes.WithSeed(42)).svc, sc)
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
	e := newEngine(fakes.WithSeed(42), fakes.WithoutHealing())
	sc := loadChaos(t)
	sc.Config.Seed, sc.Expect = 42, arena.Gate{}
	rep := runScenario(t, e.svc, sc)
	if !rep.OK() || rep.Score.Grade != arena.GradeF {
		t.Fatalf("gate %s, grade %s; want passed and F", rep.Gate.Verdict, rep.Score.Grade)
	}
	want := "  note: passed although graded F (36.2): this gate sets no min_grade or min_score, so the grade does not count\n"
	if !strings.Contains(rep.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, rep)
	}
	// With a grade criterion there is nothing to explain.
	sc.Expect = arena.Gate{MinGrade: arena.GradeF}
	if rep := runScenario(t, newEngine(fakes.WithSeed(42), fakes.WithoutHealing()).svc, sc); rep.Gate.Note != "" {
		t.Errorf("note %q with min_grade set", rep.Gate.Note)
	}
}
