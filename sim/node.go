package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"sync"
	"time"
)

// NodeConfig is what the world needs to run a node of your system.
type NodeConfig struct {
	// Type is the node's role as arena lists it (AgentInfo.Type) until a
	// role resolver (World.SetRoles) says otherwise; default "node".
	Type string
	// Start brings the node up: it listens, dials, starts its goroutines,
	// and returns (it must not block for the node's lifetime). It runs when
	// the node is added and again at each restart after a kill; what
	// "survives a crash" (a Raft log, a snapshot) is yours to keep between
	// the calls, as a disk would. Nil: a node with nothing to start (a
	// client host that dials out).
	Start func(ctx context.Context, n *Node) error
	// Stop is a crash: the node's connections and listeners are already
	// cut when it runs; it stops the node's goroutines (raft's Shutdown)
	// and returns. Nil: nothing to stop.
	Stop func(ctx context.Context, n *Node) error
	// RestartAfter is how long after a kill the world's supervisor starts
	// the node again; negative: never (the system heals itself, or not).
	RestartAfter time.Duration
}

// NodeLabel is the runtime/pprof label, set to the node's name, that a
// node's Start hook runs with: every goroutine it starts inherits it, so
// goroutine profiles (and, with GODEBUG tracebacklabels=1, stack dumps)
// say which node a goroutine belongs to. arenatest names it when a
// goroutine outlives the world.
const NodeLabel = "sim.node"

// Node is a named host of the world: what it listens on and dials from,
// its lifecycle (up, killed, restarted), and its seeded random source.
type Node struct {
	w    *World
	name string
	cfg  NodeConfig
	rng  *rand.Rand

	mu       sync.Mutex
	up       bool
	restarts int
	epoch    int         // incarnation: bumped at each kill
	timer    *time.Timer // a pending restart
	lastErr  error       // of the last Start or Stop
}

// AddNode adds a node and starts it (cfg.Start). A name is a host name:
// other nodes dial "name:port". An empty or duplicate name is an error,
// and so is a Start that fails (the node is then added, down).
func (w *World) AddNode(name string, cfg NodeConfig) (*Node, error) {
	if name == "" || len(name) > 253 {
		return nil, fmt.Errorf("sim: node name %q: want 1 to 253 characters", name)
	}
	if cfg.Type == "" {
		cfg.Type = "node"
	}
	n := &Node{w: w, name: name, cfg: cfg, rng: w.nodeRand(name)}
	w.mu.Lock()
	switch {
	case w.closed:
		w.mu.Unlock()
		return nil, ErrClosed
	case w.nodes[name] != nil:
		w.mu.Unlock()
		return nil, fmt.Errorf("sim: node %q added twice", name)
	}
	w.nodes[name] = n
	w.order = append(w.order, n)
	w.mu.Unlock()
	return n, n.start(context.Background())
}

// Name returns the node's name (its host name).
func (n *Node) Name() string { return n.name }

// Type returns the node's configured type.
func (n *Node) Type() string { return n.cfg.Type }

// World returns the node's world.
func (n *Node) World() *World { return n.w }

// Rand returns the node's seeded random source, a function of the world's
// seed and the node's name; it is safe for concurrent use. Draw your
// system's randomness from it (timeouts, jitter, client choices) and a
// run's draws follow its seed.
func (n *Node) Rand() *rand.Rand { return n.rng }

// Up reports whether the node is running (started and not killed since).
func (n *Node) Up() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.up
}

// Restarts returns how many times the node was started again after a kill.
func (n *Node) Restarts() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.restarts
}

// Err returns the error of the node's last Start or Stop hook, or nil.
func (n *Node) Err() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lastErr
}

func (n *Node) start(ctx context.Context) error {
	n.mu.Lock()
	if n.up {
		n.mu.Unlock()
		return nil
	}
	n.up = true
	n.mu.Unlock()
	var err error
	if n.cfg.Start != nil {
		// Every goroutine Start starts, and theirs, carries the node's
		// name: a profile, or a leak report, tells them apart.
		pprof.Do(ctx, pprof.Labels(NodeLabel, n.name), func(ctx context.Context) { err = n.cfg.Start(ctx, n) })
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("sim: start %s: %w", n.name, err)
		n.up = false
	}
	n.lastErr = err
	return err
}

// ErrNodeDown: the node is not running (killed, or its Start failed).
var ErrNodeDown = errors.New("node is down")

// Kill crashes the node: its connections are reset and its listeners
// closed (its peers see ECONNRESET), then its Stop hook runs; the world's
// supervisor starts it again RestartAfter later, unless that is negative.
// Killing a node that is down is an error wrapping ErrNodeDown.
func (n *Node) Kill(ctx context.Context) error {
	n.mu.Lock()
	if !n.up {
		n.mu.Unlock()
		return fmt.Errorf("sim: kill %s: %w", n.name, ErrNodeDown)
	}
	n.mu.Unlock()
	err := n.down(ctx, "killed")
	if n.cfg.RestartAfter >= 0 && !n.w.isClosed() {
		n.scheduleRestart(n.cfg.RestartAfter)
	}
	return err
}

// down takes the node down: cuts its network, runs Stop, cancels a
// pending restart.
func (n *Node) down(ctx context.Context, why string) error {
	wasUp := n.markDown()
	n.w.cutAll(func(c *conn) bool { return c.local.Node == n.name }, func(l *listener) bool { return l.addr.Node == n.name })
	if !wasUp || n.cfg.Stop == nil {
		return nil
	}
	err := n.cfg.Stop(ctx, n)
	if err != nil {
		err = fmt.Errorf("sim: stop %s (%s): %w", n.name, why, err)
	}
	n.mu.Lock()
	n.lastErr = err
	n.mu.Unlock()
	return err
}

// markDown marks the node down and cancels a pending restart; it reports
// whether the node was up.
func (n *Node) markDown() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.timer != nil && n.timer.Stop() {
		n.w.restarts.Done()
	}
	n.timer = nil
	wasUp := n.up
	n.up = false
	n.epoch++
	return wasUp
}

// scheduleRestart starts the node again after d, on a timer of the world
// (in a bubble, at the simulated instant).
func (n *Node) scheduleRestart(d time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	epoch := n.epoch
	n.w.restarts.Add(1)
	n.timer = time.AfterFunc(d, func() {
		defer n.w.restarts.Done()
		closed := n.w.isClosed()
		n.mu.Lock()
		stale := n.epoch != epoch || closed
		n.timer = nil
		if !stale {
			n.restarts++
		}
		n.mu.Unlock()
		if !stale {
			_ = n.start(context.Background())
		}
	})
}
