package netfault

import (
	"context"
	"net"
	"sync"
	"time"
)

// DialFunc dials a connection, like net.Dialer.DialContext.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Dialer wraps dial (a net.Dialer's DialContext when nil) for agent from:
// a connection to a host of another agent (WithAgent) is under the faults
// of both ends, checked at each Read and Write:
//
//   - network_latency: the first Write after a Read (or the first of all)
//     waits the request leg's share, the first Read after a Write the
//     response leg's, so a request/response exchange takes latency longer;
//   - network_bandwidth: every Write and Read waits its bytes/rate;
//   - connection_reset: once the connection has been open for after (at
//     once for 0), the next Read or Write resets it (SO_LINGER 0 on TCP, so
//     the peer sees an RST) and returns a *ResetError.
//
// Set it as an http.Transport's DialContext to put an HTTP client's
// connections under the faults too.
func (n *Network) Dialer(from string, dial DialFunc) DialFunc {
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &conn{Conn: c, n: n, from: from, to: n.agentOf(host), opened: n.Now()}, nil
	}
}

type conn struct {
	net.Conn
	n        *Network
	from, to string
	opened   time.Time

	mu      sync.Mutex
	writing bool // the last operation was a Write
	started bool // an operation happened
	reset   bool
}

// turn returns the wait before an operation that writes (or reads) b
// bytes, and whether the connection is reset before it completes.
func (c *conn) turn(write bool, b int) (time.Duration, bool) {
	p := c.n.plan(c.from, c.to, "")
	c.mu.Lock()
	var d time.Duration
	if !c.started || c.writing != write {
		d = p.back
		if write {
			d = p.out
		}
	}
	c.started, c.writing = true, write
	c.mu.Unlock()
	d += transfer(int64(b), p.rate)
	if p.resetAt < 0 {
		return d, false
	}
	open := c.n.Now().Sub(c.opened)
	if open+d >= p.resetAt {
		return max(p.resetAt-open, 0), true
	}
	return d, false
}

func (c *conn) doReset() error {
	c.mu.Lock()
	c.reset = true
	c.mu.Unlock()
	if tc, ok := c.Conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close with an RST
	}
	c.Conn.Close()
	return &ResetError{From: c.from, To: c.to}
}

func (c *conn) isReset() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reset
}

func (c *conn) Write(b []byte) (int, error) {
	if c.isReset() {
		return 0, &ResetError{From: c.from, To: c.to}
	}
	d, reset := c.turn(true, len(b))
	if err := c.n.Sleep(context.Background(), d); err != nil {
		return 0, err
	}
	if reset {
		return 0, c.doReset()
	}
	return c.Conn.Write(b)
}

func (c *conn) Read(b []byte) (int, error) {
	if c.isReset() {
		return 0, &ResetError{From: c.from, To: c.to}
	}
	k, err := c.Conn.Read(b)
	if k == 0 {
		return k, err
	}
	d, reset := c.turn(false, k)
	if serr := c.n.Sleep(context.Background(), d); serr != nil {
		return 0, serr
	}
	if reset {
		return 0, c.doReset()
	}
	return k, err
}
