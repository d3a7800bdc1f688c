package sim

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"slices"
	"sync"

	"github.com/ares-arena/arena/fault"
)

// World is a simulated world of named nodes on an in-memory network. Make
// it where its nodes run: inside the synctest bubble for a simulated run
// (its channels and timers then belong to the bubble, so its waits are
// durable), or anywhere for a real-time one. It is safe for concurrent use.
type World struct {
	seed uint64

	mu        sync.Mutex
	nodes     map[string]*Node
	order     []*Node
	listeners map[Addr]*listener
	conns     map[*conn]struct{}
	nextLocal int // the port of the next dialed conn's local end
	closed    bool
	faults    faultState
	roles     fault.RoleResolver

	restarts sync.WaitGroup // restarts under way (supervisor goroutines)
}

// Option configures a World.
type Option interface{ apply(*World) }

type seedOption uint64

func (o seedOption) apply(w *World) { w.seed = uint64(o) }

// WithSeed seeds the world: each node's Rand and the draws of the faults
// (latency jitter). Default 1.
func WithSeed(seed uint64) Option { return seedOption(seed) }

// New returns an empty world.
func New(opts ...Option) *World {
	w := &World{seed: 1, nodes: map[string]*Node{}, listeners: map[Addr]*listener{}, conns: map[*conn]struct{}{}}
	for _, o := range opts {
		o.apply(w)
	}
	w.faults.init(w.seed)
	return w
}

// Seed returns the world's seed.
func (w *World) Seed() uint64 { return w.seed }

// ErrClosed is returned by the world's calls once Close was called.
var ErrClosed = errors.New("sim: world closed")

// Node returns the node named name, or nil.
func (w *World) Node(name string) *Node {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.nodes[name]
}

// Nodes returns the nodes in the order they were added.
func (w *World) Nodes() []*Node {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.order)
}

// Listen listens on addr ("node:port", ":port", port 0 for any) on the
// node named node: see Node.Listen.
func (w *World) Listen(node, addr string) (net.Listener, error) {
	n := w.Node(node)
	if n == nil {
		return nil, fmt.Errorf("sim: listen %s: %w", addr, &NoNodeError{Name: node})
	}
	return n.Listen(addr)
}

// Close ends the world: every node is stopped (its Stop hook called, in
// the reverse order they were added), every listener and connection
// closed, restarts under way waited for. The nodes' goroutines should
// then return; arenatest.Simulate names those that do not.
func (w *World) Close(ctx context.Context) error {
	nodes := w.markClosed()
	if nodes == nil {
		return nil
	}
	w.faults.close()
	var errs []error
	for _, n := range slices.Backward(nodes) {
		if err := n.down(ctx, "world closed"); err != nil {
			errs = append(errs, err)
		}
	}
	w.restarts.Wait()
	w.cutAll(func(*conn) bool { return true }, func(*listener) bool { return true })
	return errors.Join(errs...)
}

// markClosed marks the world closed and returns its nodes (nil if it was
// already).
func (w *World) markClosed() []*Node {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	return append(make([]*Node, 0, len(w.order)), w.order...)
}

// isClosed reports whether Close was called.
func (w *World) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

// cutAll resets the conns and closes the listeners that match.
func (w *World) cutAll(matchConn func(*conn) bool, matchLn func(*listener) bool) {
	cs, ls := w.matching(matchConn, matchLn)
	for _, c := range cs {
		c.reset()
		c.shut()
	}
	for _, l := range ls {
		l.shut()
	}
}

// matching returns the conns and listeners that match.
func (w *World) matching(matchConn func(*conn) bool, matchLn func(*listener) bool) ([]*conn, []*listener) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var cs []*conn
	for c := range w.conns {
		if matchConn(c) {
			cs = append(cs, c)
		}
	}
	var ls []*listener
	for _, l := range w.listeners {
		if matchLn(l) {
			ls = append(ls, l)
		}
	}
	return cs, ls
}

// forget drops a closed conn from the world's table.
func (w *World) forget(c *conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.conns, c)
}

// nodeRand returns the seeded source of the node named name: a function of
// the world's seed and the name alone, so it does not depend on the order
// nodes are added in.
func (w *World) nodeRand(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(&lockedSource{src: rand.NewPCG(w.seed, h.Sum64())})
}

// lockedSource makes a rand.Source safe for concurrent use.
type lockedSource struct {
	mu  sync.Mutex
	src rand.Source
}

func (s *lockedSource) Uint64() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Uint64()
}

// NoNodeError: no node of the world has this name. It wraps
// fault.ErrNoAgent: to arena, a node is an agent.
type NoNodeError struct{ Name string }

func (e *NoNodeError) Error() string { return fmt.Sprintf("no node %q", e.Name) }

// Unwrap returns fault.ErrNoAgent.
func (e *NoNodeError) Unwrap() error { return fault.ErrNoAgent }
