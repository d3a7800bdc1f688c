package fakes

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena"
)

// taskPayload is what one attempt moves over its link, in bytes: under
// network_bandwidth an attempt takes taskPayload/rate longer.
const taskPayload = 32_000

var (
	_ arena.LatencyInjector    = (*Cluster)(nil)
	_ arena.BandwidthLimiter   = (*Cluster)(nil)
	_ arena.ConnectionResetter = (*Cluster)(nil)
)

// netFaults are the network faults on one agent's links.
type netFaults struct {
	latency    arena.Latency // Latency.Latency 0: none
	rate       int64         // bytes per second; 0: no cap
	resetting  bool
	resetAfter time.Duration
}

// InjectLatency slows the agent's links: every attempt over them takes
// l.Latency ± l.Jitter longer (one round trip, whatever the direction), and
// an agent whose latency exceeds ElectionTimeout is unavailable (its
// heartbeats are late), until lifted.
func (c *Cluster) InjectLatency(ctx context.Context, agentID string, l arena.Latency) (arena.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if l.Latency <= 0 || l.Jitter < 0 {
			return fmt.Errorf("fakes: agent %q: latency %s ± %s: want a positive latency and a jitter not below 0", a.id, l.Latency, l.Jitter)
		}
		if l.Peer != "" {
			if _, err := c.lookup(l.Peer); err != nil {
				return err
			}
		}
		a.net.latency = l
		return nil
	}, func(a *agent) { a.net.latency = arena.Latency{} })
}

// LimitBandwidth caps the agent's links at bytesPerSecond: every attempt
// over them takes taskPayload (32 kB) / rate longer, until lifted.
func (c *Cluster) LimitBandwidth(ctx context.Context, agentID string, bytesPerSecond int64) (arena.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if bytesPerSecond <= 0 {
			return fmt.Errorf("fakes: agent %q: rate %d bytes/s is not positive", a.id, bytesPerSecond)
		}
		a.net.rate = bytesPerSecond
		return nil
	}, func(a *agent) { a.net.rate = 0 })
}

// ResetConnections resets the agent's connections until lifted: an
// attempt over its links fails at once (after 0), or when it has run for
// after; with after 0, the attempts running on the agent when it lands fail
// too.
func (c *Cluster) ResetConnections(ctx context.Context, agentID string, after time.Duration) (arena.Lift, error) {
	return c.injectLift(ctx, agentID, func(_ int, a *agent) error {
		if after < 0 {
			return fmt.Errorf("fakes: agent %q: reset after %s is negative", a.id, after)
		}
		a.net.resetting, a.net.resetAfter = true, after
		if after == 0 {
			a.faultEpoch++
		}
		return nil
	}, func(a *agent) { a.net.resetting, a.net.resetAfter = false, 0 })
}

// link returns what the network faults on the link between the worker and
// the orchestrator do to an attempt starting now: the time they add, and
// when the attempt is reset (negative: never). A fault on either end counts
// (a latency with a peer only when the peer is the other end); two
// bandwidth caps: the lower one; two latencies add up.
func (c *Cluster) link(worker int) (extra, resetAt time.Duration) {
	resetAt = -1
	ends := [2]int{worker, c.roles[roleOrchestrator].holder}
	rate := int64(0)
	for k, i := range ends {
		if k == 1 && i == worker {
			break
		}
		n := &c.agents[i].net
		other := c.agents[ends[1-k]].id
		if l := n.latency; l.Latency > 0 && (l.Peer == "" || l.Peer == other) {
			d := l.Latency
			if l.Jitter > 0 {
				d += time.Duration(c.rngNetwork.Int64N(int64(2*l.Jitter+1))) - l.Jitter
			}
			extra += max(d, 0)
		}
		if n.rate > 0 && (rate == 0 || n.rate < rate) {
			rate = n.rate
		}
		if n.resetting && (resetAt < 0 || n.resetAfter < resetAt) {
			resetAt = n.resetAfter
		}
	}
	if rate > 0 {
		extra += time.Duration(taskPayload * int64(time.Second) / rate)
	}
	return extra, resetAt
}
