package netfault

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/netrules"
)

var (
	_ fault.AgentLister        = (*Network)(nil)
	_ fault.LatencyInjector    = (*Network)(nil)
	_ fault.BandwidthLimiter   = (*Network)(nil)
	_ fault.ConnectionResetter = (*Network)(nil)
	_ fault.Partitioner        = (*Network)(nil)
	_ fault.ScopeRefuser       = (*Network)(nil)
)

// ResetError is what a call over a link that connection_reset resets
// returns; it wraps syscall.ECONNRESET, so errors.Is(err,
// syscall.ECONNRESET) holds as it does for a real reset.
type ResetError struct{ From, To string }

func (e *ResetError) Error() string {
	return fmt.Sprintf("netfault: %s -> %s: %v", e.From, e.To, syscall.ECONNRESET)
}

// Unwrap returns syscall.ECONNRESET.
func (e *ResetError) Unwrap() error { return syscall.ECONNRESET }

// RefusedError is what a dial, or an HTTP call, across a network_partition
// returns; it wraps syscall.ECONNREFUSED, so errors.Is(err,
// syscall.ECONNREFUSED) holds as it does for a real refusal.
type RefusedError struct{ From, To string }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("netfault: %s -> %s: %v (network_partition)", e.From, e.To, syscall.ECONNREFUSED)
}

// Unwrap returns syscall.ECONNREFUSED.
func (e *RefusedError) Unwrap() error { return syscall.ECONNREFUSED }

// Network is the network between the agents of a Go system running in this
// process: a runtime for arena (AgentLister, LatencyInjector,
// BandwidthLimiter, ConnectionResetter, Partitioner, and the http_error
// fault of HTTPErrorFault) whose faults act on the calls that go through its
// wrappers (Transport, Dialer), by arena's one set of network rules (the
// fakes apply the same). It is safe for concurrent use.
type Network struct {
	sched *wall
	links *netrules.Links // the network faults of each agent
	ties  *ties           // the open connections and calls, and their resets due (open.go)
	seed  uint64

	mu     sync.Mutex
	agents []fault.AgentInfo
	hosts  map[string]string       // host name -> agent ID
	routes map[string][]routeFault // agent ID -> its failed routes (http_error)
}

// MaxRoutes bounds the routes failed at once on one agent (FailRoute): a
// route failed again replaces its status, and a new one beyond the bound is
// an error until http_error is lifted.
const MaxRoutes = 64

type routeFault struct {
	prefix string
	status int
}

// Option configures a Network.
type Option interface{ apply(*Network) }

type optionFunc func(*Network)

func (f optionFunc) apply(n *Network) { f(n) }

// WithAgent adds an agent: its ID, its type, and the host names that reach
// it (a request or dial to one of them, with any port, is a call to the
// agent; the ID itself always is).
func WithAgent(id, typ string, hosts ...string) Option {
	return optionFunc(func(n *Network) {
		if _, dup := n.hosts[id]; dup || id == "" {
			panic(fmt.Sprintf("arena: netfault.WithAgent(%q): empty or given twice", id))
		}
		n.agents = append(n.agents, fault.AgentInfo{ID: id, Type: typ, Status: fault.StatusRunning})
		n.hosts[id] = id
		for _, h := range hosts {
			n.hosts[h] = id
		}
	})
}

// WithSeed seeds the jitter draws (default 1).
func WithSeed(seed uint64) Option {
	return optionFunc(func(n *Network) { n.seed = seed })
}

// New returns a network whose waits are timers and whose Now reads clock
// (nil: the wall clock): in real time, or inside a testing/synctest
// bubble, where the timers are the bubble's. Pass the run's clock (the
// service's, engine.WithClock).
//
// An *clock.Virtual is refused (New panics): the wrappers wait on
// timers, which a virtual clock does not move, and the system's own
// goroutines do not follow it either. Run the system in simulated time
// (arenatest.Simulate, package sim) or in real time.
func New(clk clock.Clock, opts ...Option) *Network {
	if _, ok := clk.(*clock.Virtual); ok {
		panic("arena: netfault.New: a *clock.Virtual: netfault's waits are timers and a system's own goroutines do not follow a virtual clock; " +
			"run the system in simulated time (arenatest.Simulate with package sim) or in real time (clock.Real)")
	}
	if clk == nil {
		clk = clock.Real{}
	}
	n := &Network{hosts: map[string]string{}, routes: map[string][]routeFault{}, seed: 1, sched: newWall(clk)}
	n.ties = newTies(n.sched.Now)
	for _, o := range opts {
		o.apply(n)
	}
	ids := make([]string, len(n.agents))
	for i, a := range n.agents {
		ids[i] = a.ID
	}
	n.links = netrules.NewLinks(rand.New(rand.NewPCG(n.seed, 0x6a09e667f3bcc909)), ids...)
	return n
}

// Now is the network's time: its clock's.
func (n *Network) Now() time.Time { return n.sched.Now() }

// Sleep waits d on a timer, at most until ctx ends (a deadline: an error
// wrapping context.DeadlineExceeded) or the network closes (ErrClosed).
func (n *Network) Sleep(ctx context.Context, d time.Duration) error {
	return n.sched.Sleep(ctx, d, nil)
}

// Close ends every wait of the network's wrappers: they return ErrClosed.
// It drops the network's schedule of resets due later, so that a closed
// network keeps nothing of the connections and calls that went through
// it: one still open is no longer reset when its reset falls due.
func (n *Network) Close() {
	n.sched.close()
	n.ties.close()
}

// ListAgents returns the agents in the order they were added.
func (n *Network) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.agents), nil
}

// update runs f on agent id's network faults at the current time.
func (n *Network) update(ctx context.Context, id string, f func(*netrules.Faults) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := n.links.Update(id, f)
	if errors.Is(err, netrules.ErrNoEnd) {
		return fmt.Errorf("netfault: agent %q: %w", id, fault.ErrNoAgent)
	}
	return err
}

// InjectLatency delays the calls over the agent's links (see Transport and
// Dialer for where).
func (n *Network) InjectLatency(ctx context.Context, agentID string, l fault.Latency) (fault.Lift, error) {
	if l.Latency <= 0 || l.Jitter < 0 {
		return nil, fmt.Errorf("netfault: agent %q: latency %s ± %s: want a positive latency and a jitter not below 0", agentID, l.Latency, l.Jitter)
	}
	if l.Peer != "" && !n.links.Has(l.Peer) {
		return nil, fmt.Errorf("netfault: peer %q: %w", l.Peer, fault.ErrNoAgent)
	}
	if l.Direction == "" {
		l.Direction = fault.DirectionBoth
	}
	return n.updateLift(ctx, agentID, func(f *netrules.Faults) error {
		f.Latency = l
		return nil
	}, func(f *netrules.Faults) { f.Latency = fault.Latency{} })
}

// LimitBandwidth caps each way of the agent's links at bytesPerSecond.
func (n *Network) LimitBandwidth(ctx context.Context, agentID string, bytesPerSecond int64) (fault.Lift, error) {
	if bytesPerSecond <= 0 {
		return nil, fmt.Errorf("netfault: agent %q: rate %d bytes/s is not positive", agentID, bytesPerSecond)
	}
	return n.updateLift(ctx, agentID, func(f *netrules.Faults) error {
		f.Rate = bytesPerSecond
		return nil
	}, func(f *netrules.Faults) { f.Rate = 0 })
}

// ResetConnections resets the calls and connections over the agent's
// links (a *ResetError): at once (after 0) or once one has lasted after.
// One already open is reset as well when it has lasted after, even while
// it waits on what is beneath it (a Read blocked on the connection, a
// callee at work, the next chunk of a body).
func (n *Network) ResetConnections(ctx context.Context, agentID string, after time.Duration) (fault.Lift, error) {
	if after < 0 {
		return nil, fmt.Errorf("netfault: agent %q: reset after %s is negative", agentID, after)
	}
	return n.cutLift(ctx, agentID, func(f *netrules.Faults) error {
		f.Reset, f.ResetAfter = true, after
		return nil
	}, func(f *netrules.Faults) { f.Reset, f.ResetAfter = false, 0 })
}

// PartitionNetwork cuts the agent off the network until the lift: a dial
// or an HTTP call through the wrappers to it or from it (to any host) is
// refused (a *RefusedError), and every connection and call open over its
// links is reset when the partition lands (a *ResetError), even one that
// waits on what is beneath it, as a partition of package sim does.
func (n *Network) PartitionNetwork(ctx context.Context, agentID string) (fault.Lift, error) {
	return n.cutLift(ctx, agentID, func(f *netrules.Faults) error {
		f.Partitioned = true
		return nil
	}, func(f *netrules.Faults) { f.Partitioned = false })
}

// refused returns a *RefusedError when a call from → to starting now is
// across a partition. It reads the ends' faults rather than drawing a
// plan, so it takes no jitter draw from the seeded source.
func (n *Network) refused(from, to string) error {
	for _, id := range [2]string{from, to} {
		if f, _ := n.links.Faults(id); f.Partitioned {
			return &RefusedError{From: from, To: to}
		}
	}
	return nil
}

// FailRoute makes the HTTP requests to the agent whose path is route or
// under it ("" or "/": every path) answer status without reaching it. A
// route failed again takes the new status; at most MaxRoutes routes are
// failed on one agent at once.
func (n *Network) FailRoute(ctx context.Context, agentID, route string, status int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if status < 400 || status > 599 {
		return fmt.Errorf("netfault: agent %q: status %d is not an HTTP error (400-599)", agentID, status)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.links.Has(agentID) {
		return fmt.Errorf("netfault: agent %q: %w", agentID, fault.ErrNoAgent)
	}
	prefix := strings.TrimSuffix(route, "/")
	rs := n.routes[agentID]
	for i := range rs {
		if rs[i].prefix == prefix {
			rs[i].status = status
			return nil
		}
	}
	if len(rs) >= MaxRoutes {
		return fmt.Errorf("netfault: agent %q: %d routes failed already (at most %d): lift http_error first", agentID, len(rs), MaxRoutes)
	}
	n.routes[agentID] = append(rs, routeFault{prefix: prefix, status: status})
	return nil
}

// liftRoutes ends http_error on the agent: every failed route.
func (n *Network) liftRoutes(ctx context.Context, agentID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !n.links.Has(agentID) {
		return fmt.Errorf("netfault: agent %q: %w", agentID, fault.ErrNoAgent)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.routes, agentID)
	return nil
}

// agentOf returns the agent a host name reaches ("" for none).
func (n *Network) agentOf(host string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.hosts[host]
}

// failedStatus returns the status the network answers for a request to
// agent to on path under http_error, or 0.
func (n *Network) failedStatus(to, path string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, r := range n.routes[to] {
		if r.prefix == "" || path == r.prefix || strings.HasPrefix(path, r.prefix+"/") {
			return r.status
		}
	}
	return 0
}

// step waits out one step of a call from → to that started at start: leg
// of the plan's latency (the request's or the response's share) and the
// transfer of size bytes, by the network rules in force (see
// netrules.Wait: a lift ends it, a new fault lengthens it). It returns a
// *ResetError when the call is reset first (by connection_reset, or a
// partition that cuts the link), or the error that ended the wait (ctx's,
// ErrClosed).
func (n *Network) step(ctx context.Context, from, to string, start time.Time, leg func(netrules.Plan) time.Duration, size int64) error {
	spent := n.Now().Sub(start)
	reset, err := netrules.Wait(ctx, n.sched, func() (time.Duration, bool, <-chan struct{}) {
		p, changed := n.links.Plan(from, to)
		if p.Cut {
			return 0, true, changed
		}
		wait, reset := p.Step(spent, netrules.Add(leg(p), p.Transfer(size)))
		return wait, reset, changed
	})
	switch {
	case err != nil:
		return err
	case reset:
		return &ResetError{From: from, To: to}
	}
	return nil
}

// Legs of a call's latency.
func requestLeg(p netrules.Plan) time.Duration  { return p.Out }
func responseLeg(p netrules.Plan) time.Duration { return p.Back }
func noLeg(netrules.Plan) time.Duration         { return 0 }
