package fakes

import (
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// BenchmarkProbeVirtual is the virtual executor's inner loop for a 10-agent
// cluster: advance the clock 100ms, probe. sim-s/wall-s is how many
// simulated seconds run per wall-clock second.
func BenchmarkProbeVirtual(b *testing.B) {
	clk := clock.NewVirtual(time.Time{})
	c := NewCluster(WithWorkers(8), WithClock(clk))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		clk.Advance(probeStep)
		if err := c.Probe(bgCtx); err != nil {
			b.Fatal(err)
		}
		n++
	}
	simulated := time.Duration(n) * probeStep
	b.ReportMetric(simulated.Seconds()/b.Elapsed().Seconds(), "sim-s/wall-s")
}

// BenchmarkProbeVirtualChaos is the same loop with a fault every 10s of
// simulated time, lifted or healed as it goes.
func BenchmarkProbeVirtualChaos(b *testing.B) {
	clk := clock.NewVirtual(time.Time{})
	c := NewCluster(WithWorkers(8), WithClock(clk))
	var book liftBook
	faults := []func(){
		func() { c.StopAgent(bgCtx, c.Leader()) },
		func() {
			lift, err := c.InjectLLMFailure(bgCtx, "worker-3", fault.LLMRateLimit)
			book.keep(fault.LLMFailure, "worker-3", lift, err)
		},
		func() { c.PartitionNetwork(bgCtx, "worker-4") },
		func() { book.lift(bgCtx, fault.LLMFailure, "worker-3") },
		func() { c.CorruptMemory(bgCtx, "worker-5") },
		func() { c.StopAgent(bgCtx, c.Orchestrator()) },
		func() { c.RemoveEdge(bgCtx, "orchestrator-0", "worker-6") },
		func() {
			lift, err := c.ToolTimeout(bgCtx, "worker-7", time.Second)
			book.keep(fault.ToolTimeout, "worker-7", lift, err)
		},
		func() { book.lift(bgCtx, fault.ToolTimeout, "worker-7") },
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		clk.Advance(probeStep)
		if n%100 == 0 {
			faults[(n/100)%len(faults)]()
		}
		_ = c.Probe(bgCtx)
		n++
	}
	simulated := time.Duration(n) * probeStep
	b.ReportMetric(simulated.Seconds()/b.Elapsed().Seconds(), "sim-s/wall-s")
}
