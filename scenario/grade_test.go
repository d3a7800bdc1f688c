package scenario_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/planted"
	"github.com/ares-arena/arena/scenario"
)

func refusing(ids ...string) *engine.Service {
	return engine.NewService(fault.NewInjectorFor(planted.NewRefuser(ids...)), nil, nil,
		engine.WithClock(clock.NewVirtual(time.Time{})), engine.WithProbe(func(context.Context) error { return nil }))
}

func kills(expectFailure bool, ids ...string) *scenario.Scenario {
	sc := &scenario.Scenario{Name: "kills", Config: scenario.Config{Seed: 3, Warmup: clock.Duration(time.Second), Cooldown: clock.Duration(5 * time.Second)}}
	for _, id := range ids {
		sc.Actions = append(sc.Actions, scenario.Step{Label: "kill-" + id, Delay: clock.Duration(time.Second), ExpectFailure: expectFailure,
			Action: fault.Action{Type: fault.KillAgent, TargetID: id}})
	}
	return sc
}

// A run in which none of the planned faults landed has no grade, says why
// in one line naming the first step that failed, and fails its gate, even
// a gate that asks nothing of the grade; JSON, text and JUnit carry the
// reason. (Issue 35: "graded A+ 99.3 with no fault landed".)
func TestNoFaultLandedNoGrade(t *testing.T) {
	const why = `none of the 3 planned faults landed (first: actions[0] (kill-w1): sim: no node "w1")`
	for _, gate := range []scenario.Gate{{}, {MinGrade: engine.GradeF}} {
		t.Run("min_grade="+gate.MinGrade.String(), func(t *testing.T) {
			sc := kills(false, "w1", "w2", "w3")
			sc.Expect = gate
			rep := runScenario(t, refusing("w1", "w2", "w3"), sc)
			s := rep.Score
			if s.Measured || s.Grade != engine.GradeNone || s.Total != 0 || !s.NoneLanded || s.Ungraded != why {
				t.Errorf("Score = %+v, want no grade, none landed, ungraded %q", s, why)
			}
			if !s.Availability.Measured {
				t.Error("availability unmeasured: the probe ran, its dimension stays")
			}
			if rep.OK() || rep.Gate.Verdict != scenario.GateFailed {
				t.Errorf("gate %s, want failed", rep.Gate.Verdict)
			}
			if n := count(rep.Gate.Reasons, "no grade: "+why); n != 1 {
				t.Errorf("gate reasons hold %q %d times, want once:\n%s", "no grade: "+why, n, strings.Join(rep.Gate.Reasons, "\n"))
			}
			i := slices.IndexFunc(rep.Gate.Checks, func(c scenario.GateCheck) bool { return c.Name == "landed" })
			if i < 0 || rep.Gate.Checks[i].Passed || rep.Gate.Checks[i].Got != "none landed" {
				t.Errorf("gate checks %+v, want a failed landed check", rep.Gate.Checks)
			}

			b, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			var back struct {
				Report struct{ Score engine.Score } `json:"report"`
			}
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Report.Score.Ungraded != why || !back.Report.Score.NoneLanded || back.Report.Score.Grade != engine.GradeNone {
				t.Errorf("JSON score = %+v, want the reason", back.Report.Score)
			}
			if text := rep.String(); !strings.Contains(text, "grade none ("+why+")") || strings.Contains(text, "A+") {
				t.Errorf("text report lacks %q:\n%s", "grade none ("+why+")", text)
			}
			var junit bytes.Buffer
			if err := rep.WriteJUnit(&junit); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(junit.String(), `name="ungraded" value="`+xmlEscape(why)+`"`) {
				t.Errorf("JUnit lacks the ungraded property:\n%s", junit.String())
			}
		})
	}
}

// Some faults landed: the run keeps its grade, and the step that did not
// land fails the gate through the steps check.
func TestSomeFaultsLandedKeepTheGrade(t *testing.T) {
	rep := runScenario(t, refusing("w2"), kills(false, "w1", "w2", "w3"))
	if !rep.Score.Measured || rep.Score.Grade == engine.GradeNone || rep.Score.NoneLanded || rep.Score.Ungraded != "" {
		t.Errorf("Score = %+v, want a grade", rep.Score)
	}
	if rep.Landed != 2 || rep.OK() {
		t.Errorf("landed %d, gate %s; want 2 landed, gate failed", rep.Landed, rep.Gate.Verdict)
	}
	want := `actions[1] (kill-w2): expected the fault to land: sim: no node "w2"`
	if !slices.Contains(rep.Gate.Reasons, want) {
		t.Errorf("gate reasons = %q, want %q", rep.Gate.Reasons, want)
	}
	if slices.ContainsFunc(rep.Gate.Checks, func(c scenario.GateCheck) bool { return c.Name == "landed" }) {
		t.Errorf("gate checks %+v: no landed check when a fault landed", rep.Gate.Checks)
	}
}

// A scenario that plans no fault (its only steps expect to be refused)
// is graded on what was measured, as a baseline run is.
func TestNoFaultPlannedKeepsTheGrade(t *testing.T) {
	rep := runScenario(t, refusing("w1"), kills(true, "w1"))
	if !rep.Score.Measured || rep.Score.Grade != engine.GradeAPlus || rep.Score.NoneLanded {
		t.Errorf("Score = %+v, want A+ on availability alone", rep.Score)
	}
	if !rep.OK() {
		t.Errorf("gate %s %q, want passed", rep.Gate.Verdict, rep.Gate.Reasons)
	}
}

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

func xmlEscape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
