package sim

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// backlog is how many dialed connections a listener holds before Accept
// takes them; a dial past it waits (as a SYN would be retried).
const backlog = 128

// Ports: Listen(":0") takes the first free one from firstEphemeralPort;
// the local ends of dialed conns are numbered from firstLocalPort (they
// only name the conn: nothing listens there).
const (
	firstEphemeralPort = 32768
	firstLocalPort     = 49152
)

// listener is a node's listener on one port.
type listener struct {
	w    *World
	addr Addr
	q    chan *conn
	done chan struct{}
	once sync.Once

	mu         sync.Mutex
	userClosed bool
}

var _ net.Listener = (*listener)(nil)

// Accept waits for the next connection dialed to the listener.
func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.q:
		return c, nil
	case <-l.done:
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
	}
}

// Close stops the listener: Accept returns net.ErrClosed, the connections
// not yet accepted are reset, and the port is free again. Closing it twice
// is an error; a listener the world already shut (its node was killed)
// closes without one, so a Stop hook may close what it opened.
func (l *listener) Close() error {
	l.mu.Lock()
	again := l.userClosed
	l.userClosed = true
	l.mu.Unlock()
	if again {
		return &net.OpError{Op: "close", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
	}
	l.shut()
	return nil
}

// shut closes the listener, for its owner or the world.
func (l *listener) shut() {
	l.once.Do(func() {
		l.w.mu.Lock()
		if l.w.listeners[l.addr] == l {
			delete(l.w.listeners, l.addr)
		}
		l.w.mu.Unlock()
		close(l.done)
		for {
			select {
			case c := <-l.q:
				c.reset()
				c.shut()
			default:
				return
			}
		}
	})
}

// Addr returns "node:port".
func (l *listener) Addr() net.Addr { return l.addr }

// Listen listens on addr: "host:port", where the host is the node's name,
// empty, or a loopback or unspecified address (127.0.0.1, ::1, 0.0.0.0,
// ::, localhost), all meaning the node; port 0 picks a free one. The
// listener's Addr is "name:port", which other nodes dial.
func (n *Node) Listen(addr string) (net.Listener, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("sim: %s listen %q: %w", n.name, addr, err)
	}
	if host != n.name && !local(host) {
		return nil, fmt.Errorf("sim: %s listen %q: host %q is not this node (want %q, or leave it empty)", n.name, addr, host, n.name)
	}
	port, err := parsePort(portText)
	if err != nil {
		return nil, fmt.Errorf("sim: %s listen %q: %w", n.name, addr, err)
	}
	w := n.w
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return nil, ErrClosed
	case !n.Up():
		return nil, &net.OpError{Op: "listen", Net: "tcp", Addr: Addr{n.name, port}, Err: ErrNodeDown}
	}
	if port == 0 {
		for port = firstEphemeralPort; w.listeners[Addr{n.name, port}] != nil; port++ {
		}
	}
	a := Addr{n.name, port}
	if w.listeners[a] != nil {
		return nil, &net.OpError{Op: "listen", Net: "tcp", Addr: a, Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	}
	l := &listener{w: w, addr: a, q: make(chan *conn, backlog), done: make(chan struct{})}
	w.listeners[a] = l
	return l, nil
}

// local reports whether host names the node itself.
func local(host string) bool {
	switch host {
	case "", "localhost", "127.0.0.1", "::1", "0.0.0.0", "::":
		return true
	}
	return false
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 0 || p > 65535 {
		return 0, fmt.Errorf("port %q: want a number from 0 to 65535", s)
	}
	return p, nil
}

// DialContext connects from the node to addr ("node:port"; localhost is
// the node itself), as net.Dialer.DialContext does; network must be tcp,
// tcp4 or tcp6. It fails with a *net.OpError: ECONNREFUSED when nothing
// listens there or a partition cuts the two nodes apart, a DNS "no such
// host" for a name that is no node, ErrNodeDown from a node that is down.
// Under network_latency the dial takes a round trip.
func (n *Node) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, &net.OpError{Op: "dial", Net: network, Err: net.UnknownNetworkError(network)}
	}
	opErr := func(to net.Addr, err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Source: Addr{Node: n.name}, Addr: to, Err: err}
	}
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, opErr(nil, err)
	}
	port, err := parsePort(portText)
	if err != nil || port == 0 {
		return nil, opErr(nil, fmt.Errorf("port %q: want a number from 1 to 65535", portText))
	}
	if local(host) {
		host = n.name
	}
	w := n.w
	if w.Node(host) == nil {
		return nil, opErr(nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true})
	}
	to := Addr{host, port}
	if !n.Up() {
		return nil, opErr(to, ErrNodeDown)
	}
	if err := w.faults.dial(ctx, n.name, host); err != nil {
		return nil, opErr(to, err)
	}
	l, c, s, err := w.connect(n.name, to)
	if err != nil {
		return nil, opErr(to, err)
	}
	select {
	case l.q <- s:
		w.faults.opened(c)
		return c, nil
	case <-l.done:
		err = os.NewSyscallError("connect", syscall.ECONNREFUSED)
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.shut()
	s.shut()
	return nil, opErr(to, err)
}

// connect makes the two ends of a connection from node to the listener at
// to, and keeps them in the world's table.
func (w *World) connect(node string, to Addr) (*listener, *conn, *conn, error) {
	c, s := newConnPair(w, Addr{Node: node}, to)
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.listeners[to]
	switch {
	case w.closed:
		return nil, nil, nil, ErrClosed
	case l == nil:
		return nil, nil, nil, os.NewSyscallError("connect", syscall.ECONNREFUSED)
	}
	w.nextLocal++
	c.local.Port = firstLocalPort + w.nextLocal%(65536-firstLocalPort)
	s.remote = c.local
	w.conns[c], w.conns[s] = struct{}{}, struct{}{}
	return l, c, s, nil
}

// DialTimeout is DialContext with a timeout instead of a context: the
// shape of raft's StreamLayer.Dial.
func (n *Node) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return n.DialContext(ctx, "tcp", addr)
}

// ContextDialer returns a dialer from the node in the shape
// grpc.WithContextDialer takes.
func (n *Node) ContextDialer() func(ctx context.Context, addr string) (net.Conn, error) {
	return func(ctx context.Context, addr string) (net.Conn, error) { return n.DialContext(ctx, "tcp", addr) }
}
