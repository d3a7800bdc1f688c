package fault_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// FuzzFaultParams drives fault parameters through validation and, when
// they validate, through Execute and a scenario run on the fakes: whatever
// validates must run without a panic (or be refused before it starts, when
// its target is no agent the system lists), and the service must stay usable
// (issue 26: a jitter that validated wedged the server for good). Each
// input picks a fault type, a target, and up to two metadata keys (one of
// the type's own, or any name) with a string and a number value.
func FuzzFaultParams(f *testing.F) {
	specs := fault.Specs()
	for _, s := range []struct {
		typ, target, key1 uint8
		val1              string
		key2              uint8
		val2              float64
		raw               string
	}{
		{13, 2, 1, "1281024h", 0, 0, ""},        // the jitter that wedged the server
		{13, 2, 0, "1h", 1, 3600, ""},           // latency and jitter at the top of their range
		{14, 2, 0, "", 0, 1, ""},                // 1 B/s
		{14, 2, 0, "", 0, 1e12, ""},             // 1 TB/s
		{14, 2, 0, "", 0, 1e300, ""},            // far out of range
		{15, 2, 0, "0", 1, 86400, ""},           // a reset at once, lifted after a day
		{5, 3, 0, "1h", 1, 1, ""},               // slow_agent at its top
		{7, 2, 0, "0.000000001", 1, 0, ""},      // tool_timeout of 1ns
		{3, 2, 0, "24h", 0, 0, ""},              // pause for a day
		{10, 2, 0, "timeout", 1, 2.5, ""},       // llm_failure
		{12, 4, 0, "", 0, 0, ""},                // remove_edge
		{13, 2, 3, "leader-0", 2, 0, "peer"},    // a peer
		{13, 2, 255, "9e18", 255, -1, "jitter"}, // raw key names
	} {
		f.Add(s.typ, s.target, s.key1, s.val1, s.key2, s.val2, s.raw)
	}
	targets := []string{"", "random", "worker-1", "type:worker", "orchestrator-0", "leader-0", "../x", "act-1"}
	f.Fuzz(func(t *testing.T, typ, target, key1 uint8, val1 string, key2 uint8, val2 float64, raw string) {
		spec := specs[int(typ)%len(specs)]
		a := fault.Action{Type: spec.Type, TargetID: targets[int(target)%len(targets)], Metadata: map[string]any{}}
		if spec.Target == fault.TargetEdge {
			a.SourceID, a.TargetID = "orchestrator-0", "worker-1"
		}
		if spec.Target == fault.TargetRole || spec.Target == fault.TargetSystem {
			a.TargetID = ""
		}
		name := func(k uint8) string {
			if int(k) < len(spec.Metadata) {
				return spec.Metadata[k].Name
			}
			return raw
		}
		if n := name(key1); n != "" {
			a.Metadata[n] = val1
		}
		if n := name(key2); n != "" {
			a.Metadata[n] = val2
		}

		clk := clock.NewVirtual(time.Time{})
		c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(uint64(typ)+1))
		svc := engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
			engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...),
			engine.WithMaxFaultDuration(fault.MaxMetaDuration))
		sc := &scenario.Scenario{Name: "fuzz", Config: scenario.Config{Cooldown: clock.Duration(5 * time.Second)},
			Actions: []scenario.Step{{Action: a}}}
		if err := scenario.ValidateFor(svc, sc); err != nil {
			if len(err.Error()) > scenario.MaxErrorBytes {
				t.Fatalf("ValidateScenario: %d bytes of errors", len(err.Error()))
			}
			return // refused: nothing may run
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res := svc.Execute(ctx, a)
		if errors.Is(res.Err, fault.ErrProviderPanic) {
			t.Fatalf("Execute(%+v) panicked in the runtime: %s", a, res.Error)
		}
		for range 3 { // tasks start over the faulted links, deadlines pass
			clk.Advance(7 * time.Second)
			if err := c.Probe(ctx); err != nil && strings.Contains(err.Error(), "panic") {
				t.Fatalf("Probe after %+v: %v", a, err)
			}
		}
		svc.Rollback(ctx)
		rep, err := scenario.Run(ctx, svc, sc)
		if errors.Is(err, fault.ErrNoTarget) && rep == nil {
			// Refused before it started: its target is no agent the
			// system lists (validation is static, targets are resolved
			// against the system when a run starts).
			return
		}
		if err != nil || rep == nil {
			t.Fatalf("RunScenarioReport(%+v) = %v: it validated, so it must run", a, err)
		}
		if e := rep.Steps[0].Result; e != nil && strings.Contains(e.Error, "panicked") {
			t.Fatalf("the step of %+v panicked: %s", a, e.Error)
		}
		// The service still answers, and a fault still lands.
		after := svc.Execute(ctx, fault.Action{Type: fault.LLMFailure, TargetID: "worker-2", Metadata: map[string]any{"duration": "1s"}})
		if !after.Success {
			t.Fatalf("Execute after %+v = %s: the service is not usable", a, after.Error)
		}
	})
}
