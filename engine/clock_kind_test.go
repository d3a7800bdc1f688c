package engine

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// playTen plays a ten-minute schedule of one kill against the stub on the
// real-time executor.
func playTen(t *testing.T) *Report {
	t.Helper()
	stub := newStub(clock.Real{}, 30*time.Second)
	svc := NewService(fault.NewInjector(stub, nil), nil, nil, WithProbe(stub.probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 7, Duration: 10 * time.Minute},
		Step{At: time.Minute, Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-1"}})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// Inside a synctest bubble the real-time executor runs on the bubble's
// clock: the report names it, and its wall time is the real one, measured
// outside the bubble's fake clock.
func TestClockSimulatedInABubble(t *testing.T) {
	if clock.InBubble() {
		t.Fatal("InBubble() = true outside a bubble")
	}
	var rep *Report
	synctest.Test(t, func(t *testing.T) {
		if !clock.InBubble() {
			t.Fatal("InBubble() = false inside a bubble")
		}
		rep = playTen(t)
	})
	if rep.Clock != clock.KindSimulated || rep.Clock.Deterministic() {
		t.Errorf("Clock = %q (deterministic %v), want %q, not deterministic", rep.Clock, rep.Clock.Deterministic(), clock.KindSimulated)
	}
	if got := rep.End.Sub(rep.Start); got < 10*time.Minute {
		t.Errorf("observed %s, want the schedule's 10m", got)
	}
	if w := rep.WallTime.D(); w <= 0 || w >= 10*time.Minute {
		t.Errorf("WallTime = %s, want the real time the run took (more than 0, far less than 10m)", w)
	}
	head := strings.SplitN(rep.String(), "\n", 2)[0]
	if !strings.HasPrefix(head, "arena report: seed 7, simulated time (synctest), 10m") || !strings.Contains(head, "of wall time") {
		t.Errorf("first line = %q, want the simulated clock and the wall time", head)
	}
	if f := rep.Faults[0]; !f.Recovered || f.TTR.D() < 30*time.Second {
		t.Errorf("the kill's outcome = %+v, want recovered after the stub's 30s outage", f)
	}
}

func TestClockKinds(t *testing.T) {
	for _, tc := range []struct {
		clock clock.Clock
		want  clock.Kind
		text  string
	}{
		{clock.NewVirtual(time.Time{}), clock.KindVirtual, "virtual time"},
		{clock.Real{}, clock.KindReal, "real time"},
	} {
		if got := clock.KindOf(tc.clock); got != tc.want || got.Time() != tc.text {
			t.Errorf("clockKindOf(%T) = %q (%q), want %q (%q)", tc.clock, got, got.Time(), tc.want, tc.text)
		}
	}
	if !clock.KindVirtual.Deterministic() || clock.KindReal.Deterministic() || clock.KindSimulated.Deterministic() {
		t.Error("only the virtual clock is deterministic")
	}
}
