package shrink_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/internal/planted"
	"github.com/ares-arena/arena/shrink"
)

// TestShrinkInSimulatedTime: a search inside a synctest bubble, whose
// runs take minutes of simulated time each, is bounded by its budget in
// wall time (a budget of simulated time would be spent by the first
// run), and its summary and file name the simulated clock, with the wall
// and the simulated time it took.
func TestShrinkInSimulatedTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		system := func(_ context.Context, seed uint64) (*engine.Service, error) {
			c := planted.New(fakes.WithSeed(seed), noPartitionHealing)
			return plantedService(c, clock.Real{}), nil // the bubble's clock
		}
		sc := pairScenario() // 1m50s a run
		res, err := shrink.Run(t.Context(), shrink.Config{Scenario: sc, System: system, Budget: time.Minute, MaxRuns: 40})
		if err != nil {
			t.Fatalf("shrink.Run: %v", err)
		}
		if res.Stopped == shrink.OutOfTime || res.Clock != clock.KindSimulated || res.RunTime.D() < 10*time.Minute {
			t.Errorf("stopped %s, clock %q, %s of run time; want a search the budget did not stop, simulated, over 10m of runs", res.Stopped, res.Clock, res.RunTime)
		}
		var text, file bytes.Buffer
		_ = res.WriteText(&text)
		_ = res.WriteYAML(&file)
		for _, want := range []string{" replays, simulated clock (synctest)\n", " of wall time, ", " simulated\n"} {
			if !strings.Contains(text.String(), want) {
				t.Errorf("summary lacks %q:\n%s", want, text.String())
			}
		}
		if !strings.Contains(file.String(), " replays on a simulated clock (synctest): the search took ") || strings.Contains(file.String()+text.String(), "real clock") {
			t.Errorf("file's header:\n%s", file.String())
		}
	})
}
