package fakes

import (
	"context"
	"testing"
	"time"
)

// The probe makes an unhealthy verdict's error once and returns it while
// nothing it names changes; a change in what it names gives a new message.
func TestProbeVerdictReused(t *testing.T) {
	s := newClusterSim(t, WithWorkers(3), WithoutHealing())
	c, ctx := s.c, context.Background()
	s.land(c.SlowAgent(ctx, "leader-0", 20*time.Second))
	first := c.Probe(ctx)
	if first == nil || first.Error() != "leader unavailable: leader-0 slowed by 20s" {
		t.Fatalf("Probe = %v, want the slowed leader", first)
	}
	if again := c.Probe(ctx); again != first {
		t.Errorf("the same verdict made a new error: %v", again)
	}
	s.must(c.StopAgent(ctx, "leader-0"))
	if got := c.Probe(ctx); got == nil || got.Error() != "leader unavailable: leader-0 stopped" {
		t.Errorf("after the stop, Probe = %v, want the stopped leader", got)
	}

	d := newClusterSim(t, WithWorkers(3), WithoutHealing())
	c = d.c
	d.must(c.RemoveEdge(ctx, "orchestrator-0", "worker-3"))
	if got := c.Probe(ctx); got == nil || got.Error() != "dag broken: missing edge orchestrator-0->worker-3" {
		t.Fatalf("Probe = %v, want the missing edge", got)
	}
	d.must(c.RemoveNode(ctx, "worker-2"))
	if got := c.Probe(ctx); got == nil || got.Error() != "dag broken: missing node worker-2" {
		t.Errorf("after a node went too, Probe = %v, want the missing node first", got)
	}
}
