package fakes

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/netrules"
)

// taskPayload is what one attempt moves over its link, in bytes: under
// network_bandwidth an attempt takes taskPayload/rate longer.
const taskPayload = 32_000

var (
	_ fault.LatencyInjector    = (*Cluster)(nil)
	_ fault.BandwidthLimiter   = (*Cluster)(nil)
	_ fault.ConnectionResetter = (*Cluster)(nil)
)

// InjectLatency slows the agent's links: every attempt over them takes
// l.Latency ± l.Jitter longer (one round trip, whatever the direction), and
// an agent whose latency exceeds ElectionTimeout is unavailable (its
// heartbeats are late), until lifted.
func (c *Cluster) InjectLatency(ctx context.Context, agentID string, l fault.Latency) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if l.Latency <= 0 || l.Jitter < 0 {
			return fmt.Errorf("fakes: agent %q: latency %s ± %s: want a positive latency and a jitter not below 0", a.id, l.Latency, l.Jitter)
		}
		if l.Peer != "" {
			if _, err := c.lookup(l.Peer); err != nil {
				return err
			}
		}
		a.net.Latency = l
		return nil
	}, func(a *agent) { a.net.Latency = fault.Latency{} })
}

// LimitBandwidth caps the agent's links at bytesPerSecond: every attempt
// over them takes taskPayload (32 kB) / rate longer, until lifted.
func (c *Cluster) LimitBandwidth(ctx context.Context, agentID string, bytesPerSecond int64) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if bytesPerSecond <= 0 {
			return fmt.Errorf("fakes: agent %q: rate %d bytes/s is not positive", a.id, bytesPerSecond)
		}
		a.net.Rate = bytesPerSecond
		return nil
	}, func(a *agent) { a.net.Rate = 0 })
}

// ResetConnections resets the agent's connections until lifted: an
// attempt over its links fails at once (after 0), or when it has run for
// after; with after 0, the attempts running on the agent when it lands fail
// too.
func (c *Cluster) ResetConnections(ctx context.Context, agentID string, after time.Duration) (fault.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if after < 0 {
			return fmt.Errorf("fakes: agent %q: reset after %s is negative", a.id, after)
		}
		a.net.Reset, a.net.ResetAfter = true, after
		if after == 0 {
			a.faultEpoch++
		}
		return nil
	}, func(a *agent) { a.net.Reset, a.net.ResetAfter = false, 0 })
}

// link draws what the network faults on the link between the worker and
// the orchestrator do to an attempt starting now, by arena's one set of
// network rules (internal/netrules): a fault on either end counts, a
// latency with a peer only when the peer is the other end, two latencies
// add up, the lower bandwidth cap and the earlier reset win, a partition on
// either end cuts the link.
func (c *Cluster) link(worker int) netrules.Plan {
	end := func(i int) netrules.End {
		a := &c.agents[i]
		f := a.net
		f.Partitioned = a.partitioned
		return netrules.End{ID: a.id, Faults: &f}
	}
	return netrules.PlanOf(end(worker), end(c.roles[roleOrchestrator].holder), c.rngNetwork)
}
