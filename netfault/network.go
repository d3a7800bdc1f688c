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

	"github.com/ares-arena/arena"
)

var (
	_ arena.AgentLister        = (*Network)(nil)
	_ arena.LatencyInjector    = (*Network)(nil)
	_ arena.BandwidthLimiter   = (*Network)(nil)
	_ arena.ConnectionResetter = (*Network)(nil)
	_ arena.FaultLifter        = (*Network)(nil)
)

// Errors of fault injection.
var (
	// ErrNoAgent: no agent of the network has this ID.
	ErrNoAgent = errors.New("no such agent")
	// ErrNotLiftable: LiftFault was given a kind the network does not land.
	ErrNotLiftable = errors.New("fault cannot be lifted")
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

// Network is the network between the agents of a Go system running in this
// process: a runtime for arena (AgentLister, LatencyInjector,
// BandwidthLimiter, ConnectionResetter, FaultLifter, and the http_error
// fault of HTTPErrorFault) whose faults act on the calls that go through its
// wrappers (Transport, Dialer). It is safe for concurrent use.
type Network struct {
	sched *timers

	mu     sync.Mutex
	agents []arena.AgentInfo
	hosts  map[string]string // host name -> agent ID
	faults map[string]*faults
	rng    *rand.Rand
}

// faults are the faults on one agent's links.
type faults struct {
	latency    arena.Latency
	rate       int64
	resetting  bool
	resetAfter time.Duration
	routes     []routeFault
}

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
		n.agents = append(n.agents, arena.AgentInfo{ID: id, Type: typ, Status: arena.StatusRunning})
		n.faults[id] = &faults{}
		n.hosts[id] = id
		for _, h := range hosts {
			n.hosts[h] = id
		}
	})
}

// WithSeed seeds the jitter draws (default 1).
func WithSeed(seed uint64) Option {
	return optionFunc(func(n *Network) { n.rng = rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909)) })
}

// New returns a network whose waits are timers and whose Now reads clock
// (nil: the wall clock): in real time, or inside a testing/synctest
// bubble, where the timers are the bubble's. Pass the run's clock (the
// service's, arena.WithClock).
//
// An *arena.VirtualClock is refused (New panics): the wrappers wait on
// timers, which a virtual clock does not move, and the system's own
// goroutines do not follow it either. Run the system in simulated time
// (arenatest.Simulate, package sim) or in real time.
func New(clock arena.Clock, opts ...Option) *Network {
	if _, ok := clock.(*arena.VirtualClock); ok {
		panic("arena: netfault.New: an *arena.VirtualClock: netfault's waits are timers and a system's own goroutines do not follow a virtual clock; " +
			"run the system in simulated time (arenatest.Simulate with package sim) or in real time (arena.RealClock)")
	}
	if clock == nil {
		clock = arena.RealClock{}
	}
	n := &Network{hosts: map[string]string{}, faults: map[string]*faults{}, sched: newTimers(clock)}
	WithSeed(1).apply(n)
	for _, o := range opts {
		o.apply(n)
	}
	return n
}

// Now is the network's time: its clock's.
func (n *Network) Now() time.Time { return n.sched.now() }

// Sleep waits d on a timer, at most until ctx ends (a deadline: an error
// wrapping context.DeadlineExceeded) or the network closes (ErrClosed).
func (n *Network) Sleep(ctx context.Context, d time.Duration) error {
	return n.sched.sleep(ctx, d)
}

// Close ends every wait of the network's wrappers: they return ErrClosed.
func (n *Network) Close() { n.sched.close() }

// ListAgents returns the agents in the order they were added.
func (n *Network) ListAgents(ctx context.Context) ([]arena.AgentInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.agents), nil
}

// land runs f on agent id's faults at the current time.
func (n *Network) land(ctx context.Context, id string, f func(*faults) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	fs, ok := n.faults[id]
	if !ok {
		return fmt.Errorf("netfault: agent %q: %w", id, ErrNoAgent)
	}
	return f(fs)
}

// InjectLatency delays the calls over the agent's links (see Transport and
// Dialer for where).
func (n *Network) InjectLatency(ctx context.Context, agentID string, l arena.Latency) error {
	return n.land(ctx, agentID, func(fs *faults) error {
		if l.Latency <= 0 || l.Jitter < 0 {
			return fmt.Errorf("netfault: agent %q: latency %s ± %s: want a positive latency and a jitter not below 0", agentID, l.Latency, l.Jitter)
		}
		if l.Peer != "" {
			if _, ok := n.faults[l.Peer]; !ok {
				return fmt.Errorf("netfault: peer %q: %w", l.Peer, ErrNoAgent)
			}
		}
		if l.Direction == "" {
			l.Direction = arena.DirectionBoth
		}
		fs.latency = l
		return nil
	})
}

// LimitBandwidth caps each way of the agent's links at bytesPerSecond.
func (n *Network) LimitBandwidth(ctx context.Context, agentID string, bytesPerSecond int64) error {
	return n.land(ctx, agentID, func(fs *faults) error {
		if bytesPerSecond <= 0 {
			return fmt.Errorf("netfault: agent %q: rate %d bytes/s is not positive", agentID, bytesPerSecond)
		}
		fs.rate = bytesPerSecond
		return nil
	})
}

// ResetConnections resets the calls over the agent's links: at once (after
// 0) or once a call or connection has lasted after.
func (n *Network) ResetConnections(ctx context.Context, agentID string, after time.Duration) error {
	return n.land(ctx, agentID, func(fs *faults) error {
		if after < 0 {
			return fmt.Errorf("netfault: agent %q: reset after %s is negative", agentID, after)
		}
		fs.resetting, fs.resetAfter = true, after
		return nil
	})
}

// FailRoute makes the HTTP requests to the agent whose path is route or
// under it ("" or "/": every path) answer status without reaching it.
func (n *Network) FailRoute(ctx context.Context, agentID, route string, status int) error {
	return n.land(ctx, agentID, func(fs *faults) error {
		if status < 400 || status > 599 {
			return fmt.Errorf("netfault: agent %q: status %d is not an HTTP error (400-599)", agentID, status)
		}
		fs.routes = append(fs.routes, routeFault{prefix: strings.TrimSuffix(route, "/"), status: status})
		return nil
	})
}

// LiftFault ends network_latency, network_bandwidth, connection_reset or
// http_error (every failed route) on the agent.
func (n *Network) LiftFault(ctx context.Context, kind arena.ActionType, agentID string) error {
	return n.land(ctx, agentID, func(fs *faults) error {
		switch kind {
		case arena.ActionNetworkLatency:
			fs.latency = arena.Latency{}
		case arena.ActionNetworkBandwidth:
			fs.rate = 0
		case arena.ActionConnectionReset:
			fs.resetting, fs.resetAfter = false, 0
		case ActionHTTPError:
			fs.routes = nil
		default:
			return fmt.Errorf("netfault: lift %s on agent %q: %w", kind, agentID, ErrNotLiftable)
		}
		return nil
	})
}

// agentOf returns the agent a host name reaches ("" for none).
func (n *Network) agentOf(host string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.hosts[host]
}

// plan is what the faults on a link do to one call from → to, drawn when
// the call starts.
type plan struct {
	out, back time.Duration // latency on the request and the response leg
	rate      int64         // bytes per second; 0: no cap
	resetAt   time.Duration // reset once the call has lasted this; <0: never
	status    int           // an HTTP error answered instead (Transport)
}

// plan draws the plan of a call from → to on path (the HTTP path; "" for a
// connection). A fault on either end counts; a latency's direction is seen
// from its agent (outbound: what it sends), half each way for both; two
// latencies add up, the lower rate and the earlier reset win, and an HTTP
// error needs the callee to be the agent.
func (n *Network) plan(from, to, path string) plan {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := plan{resetAt: -1}
	for k, id := range [2]string{from, to} {
		fs, ok := n.faults[id]
		if !ok || (k == 1 && to == from) {
			continue
		}
		other := [2]string{to, from}[k]
		if l := fs.latency; l.Latency > 0 && (l.Peer == "" || l.Peer == other) {
			d := l.Latency
			if l.Jitter > 0 {
				d += time.Duration(n.rng.Int64N(int64(2*l.Jitter+1))) - l.Jitter
			}
			d = max(d, 0)
			// k == 0: the agent is the caller, so its outbound is the request leg.
			sends, receives := &p.out, &p.back
			if k == 1 {
				sends, receives = &p.back, &p.out
			}
			switch l.Direction {
			case arena.DirectionOutbound:
				*sends += d
			case arena.DirectionInbound:
				*receives += d
			default:
				*sends += d / 2
				*receives += d - d/2
			}
		}
		if fs.rate > 0 && (p.rate == 0 || fs.rate < p.rate) {
			p.rate = fs.rate
		}
		if fs.resetting && (p.resetAt < 0 || fs.resetAfter < p.resetAt) {
			p.resetAt = fs.resetAfter
		}
		if k == 1 && p.status == 0 {
			for _, r := range fs.routes {
				if r.prefix == "" || path == r.prefix || strings.HasPrefix(path, r.prefix+"/") {
					p.status = r.status
					break
				}
			}
		}
	}
	return p
}

// transfer is how long moving b bytes takes at rate (0: no cap).
func transfer(b int64, rate int64) time.Duration {
	if rate <= 0 || b <= 0 {
		return 0
	}
	return time.Duration(b * int64(time.Second) / rate)
}
