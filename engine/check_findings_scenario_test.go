package engine_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// Undecided and violating checks in a scenario run: an undecided check is
// counted apart (not in the score, not a failure, not evidence), shown in
// the text with how far it got and in JUnit as a skipped case; a violation
// keeps its operations with the faults active then, goes to the evidence
// store with the unrecovered fault, and fails the consistent gate.
func TestUndecidedAndViolationInReports(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := engine.NewStub(clk, -1) // the kill is never healed
	ev := &engine.EvidenceRec{}
	undecided := fault.Check{Name: "slow", Run: func(context.Context) error {
		return &fault.UndecidedError{Budget: time.Second, Progress: "decided 3 of 5 keys"}
	}}
	violated := fault.Check{Name: "lin", Run: func(context.Context) error {
		at := clk.Now()
		return &fault.Violation{Summary: "key k is not linearizable", Details: []string{"longest prefix 2 of 3"},
			Ops: []fault.ViolationOp{{Client: 4, Op: "get(k) = 1", Call: at.Add(-time.Second), Return: at.Add(-900 * time.Millisecond)}}}
	}}
	svc := engine.NewService(fault.NewInjector(stub, nil), nil, ev, engine.WithClock(clk), engine.WithProbe(stub.Probe), engine.WithChecks(undecided, violated))
	sc := &scenario.Scenario{Name: "findings", Config: scenario.Config{Cooldown: clock.Duration(5 * time.Second), RecoveryDeadline: clock.Duration(3 * time.Second)},
		Actions: []scenario.Step{{Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-1"}}},
		Expect:  scenario.Gate{Consistent: true}}
	rep, err := scenario.Run(context.Background(), svc, sc)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ChecksRun != 1 || rep.ChecksPassed != 0 || rep.ChecksUndecided != 1 || !rep.Score.Consistency.Measured || rep.Score.Consistency.Score != 0 {
		t.Fatalf("checks: %d run, %d passed, %d undecided, consistency %+v; want 1 decided and failed, 1 undecided", rep.ChecksRun, rep.ChecksPassed, rep.ChecksUndecided, rep.Score.Consistency)
	}
	var lin engine.CheckResult
	for _, c := range rep.Checks {
		switch c.Name {
		case "slow":
			if !c.Undecided || c.Failed() || c.Error != "undecided within its 1s budget: decided 3 of 5 keys" {
				t.Errorf("slow: %+v, want undecided with how far it got", c)
			}
		case "lin":
			lin = c
		}
	}
	if lin.Violation == nil || len(lin.Violation.Ops) != 1 {
		t.Fatalf("lin: %+v, want its violation kept", lin)
	}
	op := lin.Violation.Ops[0]
	if want := []string{"kill_agent on worker-1 at 0s"}; op.At.D() != 4*time.Second || strings.Join(op.Faults, ";") != want[0] {
		t.Errorf("the violation's op: at %s during %q, want at 4s during %q", op.At, op.Faults, want)
	}
	text := rep.String()
	for _, want := range []string{
		"0/1 checks passed, 1 undecided (out of budget)",
		"check slow undecided at 5s: undecided within its 1s budget: decided 3 of 5 keys",
		"check lin failed at 5s: key k is not linearizable\n    longest prefix 2 of 3\n    4s client 4 get(k) = 1 (answered 100ms later) — during kill_agent on worker-1 at 0s",
		"got 0/1 checks passed, 1 undecided\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var junit bytes.Buffer
	if err := rep.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<property name="checks_undecided" value="1"></property>`, `<testcase name="check slow at 5s" classname="arena.scenario.findings" time="0.000">`, `<skipped message="undecided within its 1s budget: decided 3 of 5 keys"></skipped>`} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("JUnit lacks %q:\n%s", want, junit.String())
		}
	}
	kinds := map[string]int{}
	for _, e := range ev.Items() {
		kinds[e.Kind]++
		if e.Kind == engine.EvidenceViolation && (e.Check == nil || e.Check.Name != "lin" || e.Check.Violation == nil || e.RunID == "") {
			t.Errorf("violation evidence %+v, want the lin check with its violation and run", e)
		}
		if e.Kind == engine.EvidenceUnrecovered && (e.Fault == nil || e.Fault.Action.TargetID != "worker-1" || e.ActionID != e.Fault.Action.ID) {
			t.Errorf("unrecovered evidence %+v, want the kill of worker-1", e)
		}
	}
	if kinds[engine.EvidenceViolation] != 1 || kinds[engine.EvidenceUnrecovered] != 1 || len(kinds) != 2 {
		t.Errorf("evidence kinds %v, want one violation and one unrecovered fault", kinds)
	}
}

// A check that could not look or could not decide does not trip
// abort_when.checks_failed: only a failure does.
func TestAbortOnlyOnFailedChecks(t *testing.T) {
	for _, tc := range []struct {
		err   error
		abort bool
	}{
		{&fault.UndecidedError{Budget: time.Second, Progress: "none"}, false},
		{fault.ErrNotApplicable, false},
		{errors.New("ledger lost a task"), true},
	} {
		clk2 := clock.NewVirtual(time.Time{})
		stub := engine.NewStub(clk2, time.Second)
		svc := engine.NewService(fault.NewInjector(stub, nil), nil, nil, engine.WithClock(clk2), engine.WithProbe(stub.Probe),
			engine.WithChecks(fault.Check{Name: "c", Run: func(context.Context) error { return tc.err }}))
		sc := &scenario.Scenario{Name: "abort", Config: scenario.Config{Cooldown: clock.Duration(20 * time.Second), AbortWhen: engine.AbortWhen{ChecksFailed: []string{"c"}}},
			Actions: []scenario.Step{{Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-1"}}}}
		rep, err := scenario.Run(context.Background(), svc, sc)
		if err != nil {
			t.Fatal(err)
		}
		if aborted := rep.Outcome == scenario.OutcomeAborted; aborted != tc.abort {
			t.Errorf("check error %v: outcome %s, want aborted %v", tc.err, rep.Outcome, tc.abort)
		}
	}
}
