package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena/fault"
)

// The world is an arena runtime: its nodes are the agents, and the faults
// land on them and their links.
var (
	_ fault.AgentLister        = (*World)(nil)
	_ fault.AgentStopper       = (*World)(nil)
	_ fault.Pauser             = (*World)(nil)
	_ fault.Partitioner        = (*World)(nil)
	_ fault.LatencyInjector    = (*World)(nil)
	_ fault.BandwidthLimiter   = (*World)(nil)
	_ fault.ConnectionResetter = (*World)(nil)
	_ fault.Refuser            = (*World)(nil)
	_ fault.ScopeRefuser       = (*World)(nil)
)

// RefusedScopes says why the world refuses whole scopes: it lands faults on
// its nodes' lifecycle and links, and nothing inside a node's code.
func (w *World) RefusedScopes() map[fault.Scope]string {
	return map[fault.Scope]string{
		fault.ScopeAgent: "sim lands faults on nodes and their links, not inside a node's code: give your system a fault.Spec of its own (fault.WithFault) for it",
		fault.ScopeDAG:   "sim has no task DAG",
	}
}

// Refusals says why the world refuses the built-in types it does not land
// in the scopes it reaches, and the ones whose reason is their own.
func (w *World) Refusals() map[fault.Type]string {
	return map[fault.Type]string{
		fault.SlowAgent: "in-process code cannot be slowed from outside: use network_latency on the node, or a fault.Spec of your own",
		fault.ClockJump: "a node's clock is the bubble's, shared by every node: it cannot jump for one",
	}
}

// SetRoles sets the world's role resolver: ListAgents returns the roles it
// says (a Raft cluster's current leader as fault.TypeLeader), so
// kill_leader and type:leader follow the system's own elections. Without
// one, each node's type is its NodeConfig.Type.
func (w *World) SetRoles(r fault.RoleResolver) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.roles = r
}

func (w *World) rolesNow() fault.RoleResolver {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.roles
}

// ListAgents lists the nodes, in the order they were added: running,
// paused (its links held) or stopped (killed, not yet restarted), with
// their restarts, and their roles as the resolver (SetRoles) says.
func (w *World) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nodes, roles := w.Nodes(), w.rolesNow()
	agents := make([]fault.AgentInfo, 0, len(nodes))
	for _, n := range nodes {
		a := fault.AgentInfo{ID: n.name, Type: n.cfg.Type, Status: fault.StatusRunning, Restarts: n.Restarts()}
		switch {
		case !n.Up():
			a.Status = fault.StatusStopped
		case w.paused(n.name):
			a.Status = fault.StatusPaused
		}
		agents = append(agents, a)
	}
	if roles == nil {
		return agents, nil
	}
	return roles(ctx, agents)
}

// node returns the node named id, or an error naming it.
func (w *World) node(id string) (*Node, error) {
	if n := w.Node(id); n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("sim: %w", &NoNodeError{Name: id})
}

// land runs fn on the faults of node id.
func (w *World) land(ctx context.Context, id string, fn func(nf *nodeFaults) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := w.node(id); err != nil {
		return err
	}
	f := &w.faults
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	return fn(f.of(id))
}

// StopAgent kills the node (Node.Kill): kill_agent, kill_leader.
func (w *World) StopAgent(ctx context.Context, id string) error {
	n, err := w.node(id)
	if err != nil {
		return err
	}
	return n.Kill(ctx)
}

// PauseAgent holds every byte to and from the node, and its dials, until
// ResumeAgent or the lift: the node's goroutines run on, but nothing
// reaches it and nothing it sends arrives (a process frozen, as its peers
// see it).
func (w *World) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	err := w.land(ctx, id, func(nf *nodeFaults) error {
		nf.paused = true
		return nil
	})
	return w.lift(err, id, func(nf *nodeFaults) {
		if nf.paused {
			nf.paused = false
			w.faults.wake()
		}
	})
}

// ResumeAgent releases what a pause held: resume_agent.
func (w *World) ResumeAgent(ctx context.Context, id string) error {
	return w.land(ctx, id, func(nf *nodeFaults) error {
		if nf.paused {
			nf.paused = false
			w.faults.wake()
		}
		return nil
	})
}

// PartitionNetwork cuts the node off: its connections are reset, and
// dials to and from it are refused, until the lift.
func (w *World) PartitionNetwork(ctx context.Context, id string) (fault.Lift, error) {
	err := w.land(ctx, id, func(nf *nodeFaults) error {
		nf.net.Partitioned = true
		return nil
	})
	if err == nil {
		for _, c := range w.connsOf(id) {
			c.reset()
		}
	}
	return w.lift(err, id, func(nf *nodeFaults) { nf.net.Partitioned = false })
}

// InjectLatency delays the bytes over the node's links (by arena's network
// rules: see faultState): network_latency.
func (w *World) InjectLatency(ctx context.Context, id string, l fault.Latency) (fault.Lift, error) {
	if l.Latency <= 0 || l.Jitter < 0 {
		return nil, fmt.Errorf("sim: node %q: latency %s ± %s: want a positive latency and a jitter not below 0", id, l.Latency, l.Jitter)
	}
	if l.Peer != "" {
		if _, err := w.node(l.Peer); err != nil {
			return nil, fmt.Errorf("sim: latency peer: %w", err)
		}
	}
	if l.Direction == "" {
		l.Direction = fault.DirectionBoth
	}
	err := w.land(ctx, id, func(nf *nodeFaults) error {
		nf.net.Latency = l
		return nil
	})
	return w.lift(err, id, func(nf *nodeFaults) { nf.net.Latency = fault.Latency{} })
}

// LimitBandwidth caps each way of the node's links at bytesPerSecond:
// network_bandwidth.
func (w *World) LimitBandwidth(ctx context.Context, id string, bytesPerSecond int64) (fault.Lift, error) {
	if bytesPerSecond <= 0 {
		return nil, fmt.Errorf("sim: node %q: rate %d bytes/s is not positive", id, bytesPerSecond)
	}
	err := w.land(ctx, id, func(nf *nodeFaults) error {
		nf.net.Rate = bytesPerSecond
		return nil
	})
	return w.lift(err, id, func(nf *nodeFaults) { nf.net.Rate = 0 })
}

// ResetConnections resets the node's connections once they have been
// open for after (at once for 0), and every new one likewise, until the
// lift: connection_reset.
func (w *World) ResetConnections(ctx context.Context, id string, after time.Duration) (fault.Lift, error) {
	if after < 0 {
		return nil, fmt.Errorf("sim: node %q: reset after %s is negative", id, after)
	}
	err := w.land(ctx, id, func(nf *nodeFaults) error {
		nf.net.Reset, nf.net.ResetAfter = true, after
		return nil
	})
	if err == nil {
		for _, c := range w.connsOf(id) {
			w.faults.resetLater(c, after)
		}
	}
	return w.lift(err, id, func(nf *nodeFaults) { nf.net.Reset, nf.net.ResetAfter = false, 0 })
}

// lift returns the Lift of a fault landed on node id (nil when landing
// failed with err): it runs undo on the node's faults. Lifting a fault the
// world no longer holds, or lifting twice, changes nothing and returns nil.
func (w *World) lift(err error, id string, undo func(*nodeFaults)) (fault.Lift, error) {
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		f := &w.faults
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.closed {
			undo(f.of(id))
		}
		return nil
	}, nil
}

// connsOf returns the open conn ends on the node's links (both ends of
// each: a reset reaches both anyway).
func (w *World) connsOf(id string) []*conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	var cs []*conn
	for c := range w.conns {
		if c.local.Node == id || c.remote.Node == id {
			cs = append(cs, c)
		}
	}
	return cs
}

// paused reports whether the node's links are held.
func (w *World) paused(id string) bool {
	f := &w.faults
	f.mu.Lock()
	defer f.mu.Unlock()
	nf := f.nodes[id]
	return nf != nil && nf.paused
}
