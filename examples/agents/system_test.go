package agents

import (
	"fmt"
	"testing"
	"time"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/scenario"
)

// summary is what a run did, from the users' side and the store's.
type summary struct {
	done, failed, lost   int
	payments, tickets    int
	maxCalls, totalCalls int
	hits                 map[string]int // calls the faults acted on, by what they got
}

func summarize(s *System) summary {
	var out summary
	for _, t := range s.Tasks() {
		switch t.Outcome {
		case "done":
			out.done++
		case "failed":
			out.failed++
		default:
			out.lost++
		}
		n := s.ModelCalls(t.ID)
		out.totalCalls += n
		out.maxCalls = max(out.maxCalls, n)
	}
	out.payments, out.tickets = len(s.Store.Payments()), len(s.Store.Tickets())
	out.hits = map[string]int{}
	for _, w := range DefaultConfig().Workers {
		for k, v := range s.Runtime.Hits(w.Name) {
			out.hits[k] += v
		}
	}
	return out
}

func (s summary) String() string {
	tasks := s.done + s.failed + s.lost
	per := 0.0
	if tasks > 0 {
		per = float64(s.totalCalls) / float64(tasks)
	}
	return fmt.Sprintf("tasks %d done, %d failed, %d lost; tool effects checked: %d payments, %d tickets; model calls per task %.1f (max %d); calls hit: %v",
		s.done, s.failed, s.lost, s.payments, s.tickets, per, s.maxCalls, s.hits)
}

// play runs a scenario against a fresh correct system, in simulated time.
func play(t *testing.T, scen string, seed uint64) (*scenario.Report, summary) {
	t.Helper()
	var sys *System
	start := time.Now()
	rep := arenatest.SimulateRun(t, Harness(DefaultConfig(), func(s *System) { sys = s }), scen, arenatest.WithSeed(seed))
	sum := summarize(sys)
	t.Logf("%s seed %d: grade %s (%.1f), MTTR %v, %d/%d faults landed; %v; wall %v",
		scen, seed, rep.Score.Grade, rep.Score.Total, rep.MTTR.D(), rep.Landed, len(rep.Faults), sum, time.Since(start).Round(time.Millisecond))
	return rep, sum
}

// The correct agent system passes the built-in agent scenarios, unchanged,
// and the example's own, in simulated time: every fault lands (on an agent
// with the client it acts on), and the checks pass.
func TestScenarios(t *testing.T) {
	for _, scen := range []string{"llm-brownout", "mcp-flap", "slow-tools", "testdata/agent-wire.yaml"} {
		for _, seed := range []uint64{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/seed=%d", scen, seed), func(t *testing.T) {
				rep, sum := play(t, scen, seed)
				if rep.Clock != clock.KindSimulated {
					t.Errorf("clock %s, want simulated", rep.Clock)
				}
				if rep.Landed != len(rep.Faults) || rep.Landed == 0 {
					t.Errorf("%d of %d faults landed", rep.Landed, len(rep.Faults))
				}
				if sum.done < 20 || sum.lost > 0 {
					t.Errorf("%v: want the users served", sum)
				}
			})
		}
	}
}
