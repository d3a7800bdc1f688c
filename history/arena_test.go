package history_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// In a virtual run on the fake cluster, a linearizability check finds a
// stale read made while the leader was down: the report lists the
// operations with the fault active then, the evidence store gets the
// violation, and a second check that cannot decide within its budget is
// undecided — not counted — while the run goes on to its end.
func TestChecksInARun(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3))
	rec := history.NewRecorder[history.KV](clk)
	evidence := fakes.NewEvidenceStore()
	hard := pathological(40)
	svc := engine.NewService(fault.NewInjector(cluster, cluster), events.NewMemoryStore(), evidence,
		engine.WithClock(clk), engine.WithProbe(cluster.Probe),
		engine.WithChecks(history.Linearizable("kv", rec, history.KVModel(), history.WithReportDir("")),
			history.Linearizable("hard", hard, history.KVModel(), history.WithBudget(50*time.Millisecond))))
	r, err := svc.NewRun(engine.RunOptions{Seed: 3, Duration: 40 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r.Schedule(engine.Step{At: 5 * time.Second, Action: fault.Action{Type: fault.KillLeader}})
	// The workload: a write at 1s, another at 5.2s, and a read at 5.5s that
	// sees the first.
	at := func(d time.Duration, fn func()) { r.At(d, engine.KindInject, func(context.Context) { fn() }) }
	var c1, c2, c3 history.Call[history.KV]
	at(time.Second, func() { c1 = rec.Invoke(1, history.Put("k", 1)) })
	at(1100*time.Millisecond, func() { c1.OK(history.Put("k", 1)) })
	at(5200*time.Millisecond, func() { c2 = rec.Invoke(1, history.Put("k", 2)) })
	at(5300*time.Millisecond, func() { c2.OK(history.Put("k", 2)) })
	at(5500*time.Millisecond, func() { c3 = rec.Invoke(2, history.Get("k")) })
	at(5600*time.Millisecond, func() { c3.OK(history.Get("k").Read(1, true)) })
	rep, err := r.Play(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.End.Sub(rep.Start) != 40*time.Second || rep.ChecksUndecided == 0 || rep.ChecksRun == 0 || rep.ChecksPassed != 0 {
		t.Fatalf("ran %s, %d checks decided (%d passed), %d undecided; want 40s, every kv check failed, hard undecided:\n%s",
			rep.End.Sub(rep.Start), rep.ChecksRun, rep.ChecksPassed, rep.ChecksUndecided, rep)
	}
	if rep.ChecksRun != rep.ChecksUndecided || rep.Score.Consistency.Score != 0 {
		t.Errorf("%d decided, %d undecided, consistency %.0f: want only the kv check decided (one per check run), consistency 0",
			rep.ChecksRun, rep.ChecksUndecided, rep.Score.Consistency.Score)
	}
	var failed *engine.CheckResult
	for i, c := range rep.Checks {
		switch {
		case c.Name == "hard" && (!c.Undecided || !strings.Contains(c.Error, "undecided within its 50ms budget: decided 0 of 81 operations")):
			t.Errorf("hard: %+v, want undecided with how far it got", c)
		case c.Name == "kv" && failed == nil:
			failed = &rep.Checks[i]
		}
	}
	if failed == nil || failed.Violation == nil || len(failed.Violation.Ops) != 2 {
		t.Fatalf("kv check: %+v, want a violation of 2 operations:\n%s", failed, rep)
	}
	leader := rep.Faults[0].Action.TargetID
	read := failed.Violation.Ops[1]
	if read.At.D() != 5500*time.Millisecond || len(read.Faults) != 1 || read.Faults[0] != "kill_leader on "+leader+" at 5s" {
		t.Errorf("the stale read: at %s during %q, want at 5.5s during the kill of %s", read.At, read.Faults, leader)
	}
	if w := failed.Violation.Ops[0]; w.At.D() != 5200*time.Millisecond || w.Op != "put(k, 2) — answered before client 2 invoked get(k) = 1" {
		t.Errorf("the write the read missed: %q at %s, want put(k, 2) at 5.2s", w.Op, w.At)
	}
	text := rep.String()
	for _, want := range []string{"2 undecided (out of budget)", "check kv failed at",
		"5.5s client 2 get(k) = 1 — no order explains it (answered 100ms later) — during kill_leader on " + leader + " at 5s",
		// The write the read missed says which operation it came before
		// (issue 35: "answered before it was invoked (answered 1ns later)").
		"5.2s client 1 put(k, 2) — answered before client 2 invoked get(k) = 1 (answered 100ms later)"} {
		if !strings.Contains(text, want) {
			t.Errorf("report text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "answered before it was invoked") {
		t.Errorf("report text says an operation was answered before it was invoked:\n%s", text)
	}
	var violations int
	for _, e := range evidence.Items() {
		if e.Kind == engine.EvidenceViolation && e.Check != nil && e.Check.Name == "kv" && e.Check.Violation != nil {
			violations++
		}
		if e.Kind == engine.EvidenceViolation && e.Check != nil && e.Check.Name == "hard" {
			t.Errorf("an undecided check went to the evidence store: %+v", e)
		}
	}
	if violations != rep.ChecksRun {
		t.Errorf("%d violations in the evidence store, want %d (one per failed check run)", violations, rep.ChecksRun)
	}
}
