package agents

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/scenario"
)

var survival = flag.Duration("agents.survival", 10*time.Minute, "how long TestSurvival's simulated run lasts (an hour: -agents.survival=1h)")

// TestSurvival: seeded random chaos against the correct agent system, every
// fault type the runtime lands, in simulated time; the checks hold
// throughout.
func TestSurvival(t *testing.T) {
	var sys *System
	start := time.Now()
	rep := arenatest.SimulateSurvive(t, Harness(DefaultConfig(), func(s *System) { sys = s }),
		engine.SurvivalConfig{Duration: *survival, Interval: 10 * time.Second}, arenatest.WithSeed(7),
		arenatest.WithGate(scenario.Gate{Consistent: true, MinGrade: engine.GradeA}))
	sum := summarize(sys)
	var types []string
	for typ, st := range rep.ByType {
		types = append(types, fmt.Sprintf("%s %d", typ, st.Landed))
	}
	slices.Sort(types)
	t.Logf("survival %v: grade %s (%.1f), %d faults (%s), MTTR %v; %v; wall %v", *survival, rep.Score.Grade, rep.Score.Total,
		rep.Actions, strings.Join(types, ", "), rep.MTTR.D(), sum, time.Since(start).Round(time.Millisecond))
	if sum.lost > 0 || sum.done < int(*survival/(2*Interval)) {
		t.Errorf("%v: want the users served", sum)
	}
}
