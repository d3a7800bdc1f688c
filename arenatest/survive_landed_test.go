package arenatest_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/planted"
)

// A survival run whose faults all failed to land fails the test, gate or
// not, with the one-line reason; one where some landed passes without a
// gate. A real-time run in a synctest bubble: a minute takes no wall time.
func TestSurviveFailsWhenNoFaultLanded(t *testing.T) {
	synctest.Test(t, surviveFailsWhenNoFaultLanded)
}

func surviveFailsWhenNoFaultLanded(t *testing.T) {
	survive := func(refuse ...string) *recorder {
		r := planted.NewRefuser(refuse...)
		return record("TestSurvive", func(t arenatest.TB) {
			arenatest.Survive(t, engine.SurvivalConfig{Duration: time.Minute, Interval: 10 * time.Second, Mix: map[fault.Type]float64{fault.KillAgent: 1}},
				arenatest.WithSeed(5), arenatest.WithRuntime(r), arenatest.WithProbe(func(context.Context) error { return nil }))
		})
	}
	r := survive("w1", "w2", "w3")
	if !r.failed() {
		t.Fatal("Survive passed a run in which no fault landed")
	}
	text := r.errorText()
	for _, want := range []string{"survival run failed its gate: no grade (no planned fault landed)\n", "\n  - no grade: none of the 5 faults tried landed (first: kill_agent on w"} {
		if !strings.Contains(text, want) {
			t.Errorf("failure lacks %q:\n%s", want, text)
		}
	}
	if r := survive("w2"); r.failed() {
		t.Errorf("Survive failed a run in which some faults landed: %s", r.errorText())
	}
}
