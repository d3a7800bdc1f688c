package fakes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// TestEveryFaultHurts: every built-in type the fake cluster lands changes
// what a run of it observes, beside the same cluster left alone: its probe
// turns unhealthy, a check fails, or its task ledger differs (failures,
// retries, reroutes, completions). A fault whose only effect were a field
// of AgentState would score as healed before it landed: the cluster would
// be no test of the healing. resume_agent is the one healing among the
// types: it is landed on an agent paused first, and must end the pause's
// harm sooner.
func TestEveryFaultHurts(t *testing.T) {
	const watch = 20 * time.Second
	for _, spec := range fault.Specs() {
		t.Run(string(spec.Type), func(t *testing.T) {
			var before []landing // what both runs land
			if spec.Type == fault.ResumeAgent {
				before = []landing{{4 * time.Second, fault.PauseAgent}}
			}
			base := observe(t, before, watch)
			hit := observe(t, append(before, landing{5 * time.Second, spec.Type}), watch)
			if hit == base {
				t.Errorf("%s changes nothing a run observes in %s: %s, as without it\n"+
					"(give it an effect the workload or the probe sees, next to the faults like it in the cluster)", spec.Type, watch, hit)
			}
		})
	}
}

// landing is a fault landed at a time of a run, on worker-1 (or the
// orchestrator's edge to it), with its defaults and no duration.
type landing struct {
	at  time.Duration
	typ fault.Type
}

// observe runs a seeded cluster of one worker (whose loss loses the
// quorum), without healing, for d, landing each of
// landings at its time, and sums up what it saw: the first unhealthy probe
// and failed check, and the task ledger.
func observe(t *testing.T, landings []landing, d time.Duration) string {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(3), fakes.WithWorkers(1), fakes.WithoutHealing())
	in := fault.NewInjector(c, c)
	land := func(typ fault.Type) {
		s, _ := fault.Lookup(typ)
		a := fault.Action{Type: typ}
		switch s.Target {
		case fault.TargetAgent, fault.TargetNode:
			a.TargetID = "worker-1"
		case fault.TargetEdge:
			a.SourceID, a.TargetID = "orchestrator-0", "worker-1"
		}
		a, p, b, err := in.Resolve(ctx, a, nil)
		if err == nil {
			_, err = in.Land(ctx, b, a, p)
		}
		if err != nil {
			t.Fatalf("landing %s: %v", typ, err)
		}
	}
	unhealthy, failed := "never", "never"
	for at := time.Duration(0); at <= d; at += 100 * time.Millisecond {
		clk.Set(clock.VirtualEpoch().Add(at))
		for _, l := range landings {
			if l.at == at {
				land(l.typ)
			}
		}
		if err := c.Probe(ctx); err != nil && unhealthy == "never" {
			unhealthy = at.String()
		}
		for _, ch := range c.Checks() {
			if err := ch.Run(ctx); err != nil && failed == "never" {
				failed = fmt.Sprintf("%s at %s", ch.Name, at)
			}
		}
	}
	return fmt.Sprintf("unhealthy %s, check failed %s, tasks %+v", unhealthy, failed, c.Tasks())
}
