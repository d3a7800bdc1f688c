package arena

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Undecided and violating checks in a scenario run: an undecided check is
// counted apart (not in the score, not a failure, not evidence), shown in
// the text with how far it got and in JUnit as a skipped case; a violation
// keeps its operations with the faults active then, goes to the evidence
// store with the unrecovered fault, and fails the consistent gate.
func TestUndecidedAndViolationInReports(t *testing.T) {
	clock := NewVirtualClock(time.Time{})
	stub := newStub(clock, -1) // the kill is never healed
	ev := &evidenceRec{}
	undecided := Check{Name: "slow", Run: func(context.Context) error {
		return &UndecidedError{Budget: time.Second, Progress: "decided 3 of 5 keys"}
	}}
	violated := Check{Name: "lin", Run: func(context.Context) error {
		at := clock.Now()
		return &Violation{Summary: "key k is not linearizable", Details: []string{"longest prefix 2 of 3"},
			Ops: []ViolationOp{{Client: 4, Op: "get(k) = 1", Call: at.Add(-time.Second), Return: at.Add(-900 * time.Millisecond)}}}
	}}
	svc := NewService(NewInjector(stub, nil), nil, ev, WithClock(clock), WithProbe(stub.probe), WithChecks(undecided, violated))
	sc := &Scenario{Name: "findings", Config: ScenarioConfig{Cooldown: Duration(5 * time.Second), RecoveryDeadline: Duration(3 * time.Second)},
		Actions: []ScenarioStep{{Action: Action{Type: ActionKillAgent, TargetID: "worker-1"}}},
		Expect:  Gate{Consistent: true}}
	rep, err := RunScenarioReport(context.Background(), svc, sc)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ChecksRun != 1 || rep.ChecksPassed != 0 || rep.ChecksUndecided != 1 || !rep.Score.Consistency.Measured || rep.Score.Consistency.Score != 0 {
		t.Fatalf("checks: %d run, %d passed, %d undecided, consistency %+v; want 1 decided and failed, 1 undecided", rep.ChecksRun, rep.ChecksPassed, rep.ChecksUndecided, rep.Score.Consistency)
	}
	var lin CheckResult
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
	for _, e := range ev.items {
		kinds[e.Kind]++
		if e.Kind == EvidenceViolation && (e.Check == nil || e.Check.Name != "lin" || e.Check.Violation == nil || e.RunID == "") {
			t.Errorf("violation evidence %+v, want the lin check with its violation and run", e)
		}
		if e.Kind == EvidenceUnrecovered && (e.Fault == nil || e.Fault.Action.TargetID != "worker-1" || e.ActionID != e.Fault.Action.ID) {
			t.Errorf("unrecovered evidence %+v, want the kill of worker-1", e)
		}
	}
	if kinds[EvidenceViolation] != 1 || kinds[EvidenceUnrecovered] != 1 || len(kinds) != 2 {
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
		{&UndecidedError{Budget: time.Second, Progress: "none"}, false},
		{ErrNotApplicable, false},
		{errors.New("ledger lost a task"), true},
	} {
		clock := NewVirtualClock(time.Time{})
		stub := newStub(clock, time.Second)
		svc := NewService(NewInjector(stub, nil), nil, nil, WithClock(clock), WithProbe(stub.probe),
			WithChecks(Check{Name: "c", Run: func(context.Context) error { return tc.err }}))
		sc := &Scenario{Name: "abort", Config: ScenarioConfig{Cooldown: Duration(20 * time.Second), AbortWhen: AbortWhen{ChecksFailed: []string{"c"}}},
			Actions: []ScenarioStep{{Action: Action{Type: ActionKillAgent, TargetID: "worker-1"}}}}
		rep, err := RunScenarioReport(context.Background(), svc, sc)
		if err != nil {
			t.Fatal(err)
		}
		if aborted := rep.Outcome == OutcomeAborted; aborted != tc.abort {
			t.Errorf("check error %v: outcome %s, want aborted %v", tc.err, rep.Outcome, tc.abort)
		}
	}
}

// A violation is kept bounded: at most maxViolationDetails details and
// maxViolationOps operations, each line and the error cut to
// maxViolationText bytes on a rune boundary, whatever the check found.
func TestViolationBounded(t *testing.T) {
	clock := NewVirtualClock(time.Time{})
	o := newObserver(newVirtualExecutor(clock), nil, nil, ObserveOptions{})
	long := strings.Repeat("ключ", 1000) // 8000 bytes, two a rune
	v := &Violation{Summary: "key " + long + " is not linearizable", Details: make([]string, 30), Ops: make([]ViolationOp, 60)}
	for i := range v.Details {
		v.Details[i] = "detail " + long
	}
	for i := range v.Ops {
		v.Ops[i] = ViolationOp{Op: "get(" + long + ") = 1", Call: clock.Now()}
	}
	r := o.checkResult("lin", 0, fmt.Errorf("lin: %w", v))
	got := r.Violation
	if len(got.Details) != maxViolationDetails+2 || len(got.Ops) != maxViolationOps {
		t.Fatalf("%d details, %d operations; want %d (and the two lines saying what was left out) and %d",
			len(got.Details), len(got.Ops), maxViolationDetails, maxViolationOps)
	}
	texts := append([]string{r.Error, got.Summary}, got.Details[:maxViolationDetails]...)
	for _, op := range got.Ops {
		texts = append(texts, op.Op)
	}
	for _, s := range texts {
		if len(s) > maxViolationText || !utf8.ValidString(s) || !strings.HasSuffix(s, "…") {
			t.Fatalf("a line of %d bytes (valid UTF-8 %v): %.40q…; want at most %d, cut on a rune and marked", len(s), utf8.ValidString(s), s, maxViolationText)
		}
	}
	if want := []string{"… 10 more", "10 more operations involved, not listed"}; !slices.Equal(got.Details[maxViolationDetails:], want) {
		t.Errorf("the last details %q, want %q", got.Details[maxViolationDetails:], want)
	}
}

// A survival report lists at most 20 checks of each kind and says how many
// there were: undecided ones as failed ones.
func TestReportTextCountsWhatItLeavesOut(t *testing.T) {
	r := &Report{ChecksRun: 25, ChecksUndecided: 25}
	for range 25 {
		r.Checks = append(r.Checks, CheckResult{Name: "lin", Error: "boom"}, CheckResult{Name: "slow", Undecided: true, Error: "undecided"})
	}
	var b strings.Builder
	if err := r.writeText(&b, 20); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if n := strings.Count(text, "check lin failed"); n != 20 || !strings.Contains(text, "… 25 failed checks in all\n") {
		t.Errorf("%d failed checks listed; want 20 and the count of all:\n%s", n, text)
	}
	if n := strings.Count(text, "check slow undecided"); n != 20 || !strings.Contains(text, "… 25 undecided checks in all\n") {
		t.Errorf("%d undecided checks listed; want 20 and the count of all:\n%s", n, text)
	}
}
