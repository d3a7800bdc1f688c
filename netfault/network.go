package netfault

import (
	"context"
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
	_ arena.Refuser            = (*Network)(nil)
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
// BandwidthLimiter, ConnectionResetter, and the http_error
// fault of HTTPErrorFault) whose faults act on the calls that go through its
// wrappers (Transport, Dialer). It is safe for concurrent use.
type Network struct {
	sched scheduler

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

// New returns a network whose waits follow clock: on an *arena.VirtualClock
// they are virtual (see Go, Sleep and Advance), on any other clock they are
// real sleeps. Pass the run's clock: the service's (arena.WithClock).
func New(clock arena.Clock, opts ...Option) *Network {
	n := &Network{hosts: map[string]string{}, faults: map[string]*faults{}}
	if vc, ok := clock.(*arena.VirtualClock); ok {
		n.sched = newSim(vc)
	} else {
		if clock == nil {
			clock = arena.RealClock{}
		}
		n.sched = newWall(clock)
	}
	WithSeed(1).apply(n)
	for _, o := range opts {
		o.apply(n)
	}
	return n
}

// Now is the network's time: in virtual time, the instant of the simulated
// goroutine that runs.
func (n *Network) Now() time.Time { return n.sched.now() }

// Go starts fn as a simulated goroutine: in virtual time it runs only when
// Advance gives it control, one at a time, until it sleeps (Sleep, or a
// wrapper's delay) or returns; in real time it is a goroutine. Its context
// ends at Close. A simulated goroutine must not block on another one (a
// channel, a lock held across a Sleep): only one runs at a time.
func (n *Network) Go(fn func(ctx context.Context)) { n.sched.spawn(fn) }

// Sleep waits d on the network's clock, at most until a deadline set with
// WithTimeout (then it returns an error wrapping context.DeadlineExceeded).
// In virtual time only a goroutine started by Go may sleep.
func (n *Network) Sleep(ctx context.Context, d time.Duration) error {
	return n.sched.sleep(ctx, d)
}

// WithTimeout returns ctx with a deadline d from now on the network's clock:
// Sleep and the wrappers stop waiting there. In real time it is
// context.WithTimeout.
func (n *Network) WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return n.sched.withTimeout(ctx, d)
}

// Advance runs the simulated goroutines up to the clock's reading (virtual
// time; nothing in real time). Fault injection and lifting call it first;
// so must the system's probe and checks (wrap them with Probe and Check).
func (n *Network) Advance() { n.sched.advance() }

// Probe returns p, run after Advance.
func (n *Network) Probe(p arena.Probe) arena.Probe {
	return func(ctx context.Context) error {
		n.Advance()
		return p(ctx)
	}
}

// Check returns c, run after Advance.
func (n *Network) Check(c arena.Check) arena.Check {
	return arena.Check{Name: c.Name, Run: func(ctx context.Context) error {
		n.Advance()
		return c.Run(ctx)
	}}
}

// Close ends every simulated goroutine (their Sleep returns ErrClosed) and
// waits for them to return.
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
	n.Advance()
	n.mu.Lock()
	defer n.mu.Unlock()
	fs, ok := n.faults[id]
	if !ok {
		return fmt.Errorf("netfault: agent %q: %w", id, arena.ErrNoAgent)
	}
	return f(fs)
}

// InjectLatency delays the calls over the agent's links (see Transport and
// Dialer for where).
func (n *Network) InjectLatency(ctx context.Context, agentID string, l arena.Latency) (arena.Lift, error) {
	return n.landLift(ctx, agentID, func(fs *faults) error {
		if l.Latency <= 0 || l.Jitter < 0 {
			return fmt.Errorf("netfault: agent %q: latency %s ± %s: want a positive latency and a jitter not below 0", agentID, l.Latency, l.Jitter)
		}
		if l.Peer != "" {
			if _, ok := n.faults[l.Peer]; !ok {
				return fmt.Errorf("netfault: peer %q: %w", l.Peer, arena.ErrNoAgent)
			}
		}
		if l.Direction == "" {
			l.Direction = arena.DirectionBoth
		}
		fs.latency = l
		return nil
	}, func(fs *faults) { fs.latency = arena.Latency{} })
}

// LimitBandwidth caps each way of the agent's links at bytesPerSecond.
func (n *Network) LimitBandwidth(ctx context.Context, agentID string, bytesPerSecond int64) (arena.Lift, error) {
	return n.landLift(ctx, agentID, func(fs *faults) error {
		if bytesPerSecond <= 0 {
			return fmt.Errorf("netfault: agent %q: rate %d bytes/s is not positive", agentID, bytesPerSecond)
		}
		fs.rate = bytesPerSecond
		return nil
	}, func(fs *faults) { fs.rate = 0 })
}

// ResetConnections resets the calls over the agent's links: at once (after
// 0) or once a call or connection has lasted after.
func (n *Network) ResetConnections(ctx context.Context, agentID string, after time.Duration) (arena.Lift, error) {
	return n.landLift(ctx, agentID, func(fs *faults) error {
		if after < 0 {
			return fmt.Errorf("netfault: agent %q: reset after %s is negative", agentID, after)
		}
		fs.resetting, fs.resetAfter = true, after
		return nil
	}, func(fs *faults) { fs.resetting, fs.resetAfter = false, 0 })
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
