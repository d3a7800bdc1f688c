package engine_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// panickyClock is the run's virtual clock as a runtime reads it, except
// that every every-th reading panics. The fakes read their clock under
// their own mutex (they advance their simulation to it), so a panic there
// is a runtime panicking in the middle of its lock-ordered state.
type panickyClock struct {
	*clock.Virtual
	every  int64
	reads  atomic.Int64
	panics atomic.Int64
	armed  atomic.Bool
}

func (c *panickyClock) Now() time.Time {
	if c.armed.Load() && c.reads.Add(1)%c.every == 0 {
		c.panics.Add(1)
		panic("clock broke")
	}
	return c.Virtual.Now()
}

// A runtime that panics while it holds its own lock must not wedge the
// service: the panic is an injection error (or an unhealthy sample), the
// run goes to its end, and the next action is served. Before issue 26 the
// fakes kept their mutex after such a panic: the next call got "provider
// panicked" and every one after it blocked for good.
func TestARuntimePanicUnderItsLockDoesNotWedgeTheService(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	pc := &panickyClock{Virtual: clk, every: 7}
	c := fakes.NewCluster(fakes.WithClock(pc), fakes.WithSeed(3))
	svc := engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
	sc, err := scenario.Load([]byte(`
name: panics
config: {warmup: 1s, cooldown: 5s}
actions:
  - action: {type: kill_agent, target_id: worker-1}
  - delay: 1s
    action: {type: slow_agent, target_id: worker-2, metadata: {delay: 1s, duration: 2s}}
  - delay: 1s
    action: {type: network_latency, target_id: worker-3, metadata: {latency: 50ms, jitter: 10ms, duration: 1s}}
  - delay: 1s
    action: {type: pause_agent, target_id: worker-2, metadata: {duration: 1s}}
`), "panics.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pc.armed.Store(true)
	type answer struct {
		rep *scenario.Report
		err error
	}
	done := make(chan answer, 1)
	go func() {
		rep, err := scenario.Run(context.Background(), svc, sc)
		done <- answer{rep, err}
	}()
	var got answer
	select {
	case got = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the scenario run never answered: a panic under the runtime's lock wedged it")
	}
	pc.armed.Store(false)
	if got.rep == nil {
		t.Fatalf("RunScenarioReport = nil report, %v", got.err)
	}
	if pc.panics.Load() == 0 {
		t.Fatal("the clock never panicked: the test proves nothing")
	}
	if n := len(got.rep.Steps); n != len(sc.Actions) {
		t.Errorf("report has %d steps, want %d: the run did not go to its end", n, len(sc.Actions))
	}
	panicked := 0
	for _, st := range got.rep.Steps {
		if strings.Contains(st.Result.Error, "panicked") {
			panicked++
		}
	}
	t.Logf("%d panics under the fakes' lock; %d of %d steps failed with a panic; err %v", pc.panics.Load(), panicked, len(got.rep.Steps), got.err)

	// The service and the runtime still answer.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	served := make(chan fault.Result, 1)
	go func() { served <- svc.Execute(ctx, fault.Action{Type: fault.KillAgent, TargetID: "worker-3"}) }()
	select {
	case res := <-served:
		if !res.Success {
			t.Errorf("Execute after the run = %+v, want the kill to land", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Execute after the run never answered: the runtime is wedged")
	}
	if _, ok := c.Agent("worker-3"); !ok {
		t.Error("Agent(worker-3) not found")
	}
}

// A caller could take the IDs the service gives (act-000002) for a fault
// with a lifetime: the service's own action of that number was then refused
// as "the ID of an active fault" (issue 26). The form is reserved now.
func TestCallersCannotTakeTheServicesIDs(t *testing.T) {
	e := newRig()
	ctx := context.Background()
	for _, id := range []string{"act-000002", "act-2", "act-99999999"} {
		res := e.svc.Execute(ctx, fault.Action{ID: id, Type: fault.PauseAgent, TargetID: "worker-1", Metadata: map[string]any{"duration": "1m"}})
		if res.Success || !strings.Contains(res.Error, `id: "`+id+`" has the form of the IDs the service gives`) {
			t.Errorf("Execute(id %s) = %+v, want it refused", id, res)
		}
		if err := e.svc.Admit(fault.Action{ID: id, Type: fault.KillAgent, TargetID: "worker-1"}); err == nil {
			t.Errorf("Admit(id %s) = nil, want it refused", id)
		}
	}
	for _, id := range []string{"", "my-act-2", "act-2b"} {
		res := e.svc.Execute(ctx, fault.Action{ID: id, Type: fault.SlowAgent, TargetID: "worker-2", Metadata: map[string]any{"duration": "1m"}})
		if !res.Success {
			t.Errorf("Execute(id %q) = %s, want it to land", id, res.Error)
		}
		e.svc.Rollback(ctx)
	}
	for _, id := range []string{"../../etc/passwd\n", strings.Repeat("x", 257)} {
		if res := e.svc.Execute(ctx, fault.Action{ID: id, Type: fault.KillAgent, TargetID: "worker-3"}); res.Success {
			t.Errorf("Execute(id %.20q…) landed, want the ID refused", id)
		}
	}
}
