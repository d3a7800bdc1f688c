package shrink

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

func gateReport(verdict scenario.GateVerdict, failedSteps int, aborted string, checks []scenario.GateCheck, results ...engine.CheckResult) *scenario.Report {
	return &scenario.Report{Failed: failedSteps, Gate: scenario.GateResult{Verdict: verdict, Checks: checks}, Report: &engine.Report{Aborted: aborted, Checks: results}}
}

func TestFailure(t *testing.T) {
	consistent := scenario.GateCheck{Name: "consistent"}
	grade := scenario.GateCheck{Name: "min_grade"}
	steps := scenario.GateCheck{Name: "steps"}
	run := scenario.GateCheck{Name: "run"}
	passed := scenario.GateCheck{Name: "all_recovered", Passed: true}
	tasks := engine.CheckResult{Name: "tasks"}
	memory := engine.CheckResult{Name: "memory"}
	okDAG := engine.CheckResult{Name: "dag", Passed: true}
	na := engine.CheckResult{Name: "llm", NotApplicable: true}
	cases := []struct {
		name string
		rep  *scenario.Report
		want []string
	}{
		{"passed", gateReport(scenario.GatePassed, 0, "", []scenario.GateCheck{passed}), nil},
		{"inconclusive", gateReport(scenario.GateInconclusive, 0, "", []scenario.GateCheck{grade}), nil},
		{"grade", gateReport(scenario.GateFailed, 0, "", []scenario.GateCheck{steps, run, grade, passed}), []string{"min_grade"}},
		{"checks by name, once each", gateReport(scenario.GateFailed, 0, "", []scenario.GateCheck{consistent}, tasks, okDAG, na, memory, tasks), []string{"consistent", "consistent:tasks", "consistent:memory"}},
		{"steps and abort", gateReport(scenario.GateFailed, 2, "abort_when.score_below: …", []scenario.GateCheck{steps, run}), []string{"steps", "aborted"}},
	}
	for _, tc := range cases {
		if got := Failure(tc.rep); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Failure = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSameFailure(t *testing.T) {
	consistent := []scenario.GateCheck{{Name: "consistent"}}
	orig := gateReport(scenario.GateFailed, 0, "", consistent, engine.CheckResult{Name: "tasks"})
	same := SameFailure(orig)
	cases := []struct {
		name string
		rep  *scenario.Report
		want bool
	}{
		{"the same", gateReport(scenario.GateFailed, 0, "", consistent, engine.CheckResult{Name: "tasks"}), true},
		{"more", gateReport(scenario.GateFailed, 0, "", append([]scenario.GateCheck{{Name: "min_grade"}}, consistent...), engine.CheckResult{Name: "tasks"}, engine.CheckResult{Name: "dag"}), true},
		{"another check", gateReport(scenario.GateFailed, 0, "", consistent, engine.CheckResult{Name: "memory"}), false},
		{"a step that missed", gateReport(scenario.GateFailed, 1, "", consistent, engine.CheckResult{Name: "tasks"}), false},
		{"passed", gateReport(scenario.GatePassed, 0, "", nil), false},
	}
	for _, tc := range cases {
		if got := same(tc.rep); got != tc.want {
			t.Errorf("%s: SameFailure = %t, want %t", tc.name, got, tc.want)
		}
	}
	if SameFailure(gateReport(scenario.GatePassed, 0, "", nil))(orig) {
		t.Error("SameFailure of a run that passed matched a failure")
	}
	withSteps := SameFailure(gateReport(scenario.GateFailed, 1, "", nil))
	if !withSteps(gateReport(scenario.GateFailed, 1, "", consistent, engine.CheckResult{Name: "tasks"})) {
		t.Error("a failure of steps did not match a run whose steps failed")
	}
}

func TestFailRate(t *testing.T) {
	cases := []struct {
		r          FailRate
		need, runs int
		want       bool
	}{
		{FailRate{10, 10}, 1, 1, true},
		{FailRate{9, 10}, 1, 1, false},
		{FailRate{8, 10}, 4, 5, true},
		{FailRate{7, 10}, 4, 5, false},
		{FailRate{1, 10}, 4, 5, false},
		{FailRate{0, 0}, 0, 1, false},
	}
	for _, tc := range cases {
		if got := tc.r.atLeast(tc.need, tc.runs); got != tc.want {
			t.Errorf("%s atLeast(%d of %d) = %t, want %t", tc.r, tc.need, tc.runs, got, tc.want)
		}
	}
	if s := (FailRate{7, 10}).String(); s != "fails 7/10" {
		t.Errorf("String = %q", s)
	}
}

func TestRoundDurations(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		lo, hi time.Duration
		want   []time.Duration
	}{
		{0, 3 * ms, []time.Duration{ms, 2 * ms}},
		{ms, 60 * ms, []time.Duration{2 * ms, 5 * ms, 10 * ms, 20 * ms, 50 * ms}},
		{30 * time.Second, 2 * time.Minute, []time.Duration{50 * time.Second, 100 * time.Second}},
		{5 * ms, 5 * ms, nil},
	}
	for _, tc := range cases {
		if got := roundDurations(tc.lo, tc.hi); !slices.Equal(got, tc.want) {
			t.Errorf("roundDurations(%s, %s) = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
	// Up to the largest duration: 1, 2, 5 × 10ⁿ from 1ms to 5×10¹⁸ns, with
	// no overflow on the way.
	all := roundDurations(0, 1<<63-1)
	if !slices.IsSorted(all) || all[0] != ms || len(all) != 39 || all[38] != 5e18 {
		t.Errorf("roundDurations(0, max) = %d values from %v to %v", len(all), all[0], all[len(all)-1])
	}
}

// TestWriteTextBoundsTheSchedule: a result that kept thousands of faults
// (a search stopped early) lists the first ones only.
func TestWriteTextBoundsTheSchedule(t *testing.T) {
	sc := &scenario.Scenario{Name: "big-shrunk"}
	for range 1000 {
		sc.Actions = append(sc.Actions, scenario.Step{Delay: clock.Duration(time.Second), Action: fault.Action{Type: fault.KillLeader}})
	}
	var b strings.Builder
	res := &Result{Scenario: sc, Stopped: OutOfTime}
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3+scheduleLines || lines[len(lines)-1] != "  … and 960 more" {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}
