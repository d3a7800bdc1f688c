package netfault

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"time"

	"github.com/ares-arena/arena/internal/netrules"
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
//     once for 0), it is reset (SO_LINGER 0 on TCP, so the peer sees an
//     RST): a Read or Write under way then, even one blocked on the
//     connection beneath, ends with a *ResetError, and so does every one
//     after;
//   - network_partition: the dial is refused (a *RefusedError), and a
//     connection open when the partition lands is reset then, as under a
//     reset at once: a Read or Write under way, even one blocked on the
//     connection beneath, ends with a *ResetError, and so does the next.
//
// Every wait ends early when the faults change (a lift ends it, a new fault
// lengthens it), at the connection's deadline (os.ErrDeadlineExceeded), at
// its Close (net.ErrClosed) and at the Network's Close (ErrClosed): so an
// http.Transport that gives up on a request, and closes its connection,
// leaves no goroutine waiting behind. The dial context governs the dial
// only, as with net.Dialer.
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
		to := n.agentOf(host)
		if err := n.refused(from, to); err != nil {
			return nil, err
		}
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cctx, cancel := context.WithCancel(context.Background())
		fc := &conn{Conn: c, n: n, ctx: cctx, cancel: cancel}
		fc.t = n.openTie(from, to, fc.cut)
		fc.t.schedule() // a partition or a reset due already: cut at once
		return fc, nil
	}
}

type conn struct {
	net.Conn
	n      *Network
	t      *tie            // its ends, and whether a fault reset it (open.go)
	ctx    context.Context // ended by Close
	cancel context.CancelFunc

	mu        sync.Mutex
	writing   bool // the last operation was a Write
	started   bool // an operation happened
	readDL    time.Time
	writeDL   time.Time
	closeOnce sync.Once
}

// turn records an operation and returns the latency leg it waits: the
// request's share before the first Write of an exchange, the response's
// before its first Read, none in between.
func (c *conn) turn(write bool) func(netrules.Plan) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := !c.started || c.writing != write
	c.started, c.writing = true, write
	switch {
	case !first:
		return noLeg
	case write:
		return requestLeg
	}
	return responseLeg
}

// wait waits out an operation moving b bytes under the link's faults,
// bounded by the deadline dl (zero: none) and the connection's Close.
func (c *conn) wait(write bool, b int, dl time.Time) error {
	ctx := c.ctx
	if !dl.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl)
		defer cancel()
	}
	err := c.n.step(ctx, c.t.from, c.t.to, c.t.opened, c.turn(write), int64(b))
	var reset *ResetError
	switch {
	case errors.As(err, &reset):
		if !c.t.doReset() {
			return net.ErrClosed
		}
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return os.ErrDeadlineExceeded
	case errors.Is(err, context.Canceled): // closed: by its user, or by a fault's reset
		return c.t.errOr(net.ErrClosed)
	}
	return err
}

// cut closes the connection at a reset: the connection beneath at once,
// with an RST on TCP (under a TLS connection too), then the wrapper.
func (c *conn) cut() {
	raw := c.Conn
	for {
		u, ok := raw.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		raw = u.NetConn()
	}
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // close with an RST
	}
	_ = raw.Close() // before a wrapper's Close, which may write (TLS's close_notify)
	c.Close()
}

// deadline returns the connection's deadline for a Write (write) or a
// Read.
func (c *conn) deadline(write bool) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if write {
		return c.writeDL
	}
	return c.readDL
}

func (c *conn) Write(b []byte) (int, error) {
	if c.t.isReset() {
		return 0, c.t.errOr(nil)
	}
	if err := c.wait(true, len(b), c.deadline(true)); err != nil {
		return 0, err
	}
	k, err := c.Conn.Write(b)
	if err != nil {
		err = c.t.errOr(err)
	}
	return k, err
}

func (c *conn) Read(b []byte) (int, error) {
	if c.t.isReset() {
		return 0, c.t.errOr(nil)
	}
	k, err := c.Conn.Read(b)
	if k == 0 {
		if err != nil {
			err = c.t.errOr(err)
		}
		return k, err
	}
	if werr := c.wait(false, k, c.deadline(false)); werr != nil {
		return 0, werr
	}
	return k, err
}

// Close closes the connection and ends its waits.
func (c *conn) Close() error {
	err := net.ErrClosed
	c.closeOnce.Do(func() {
		c.t.close()
		c.cancel()
		err = c.Conn.Close()
	})
	return err
}

func (c *conn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.readDL, c.writeDL = t, t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.readDL = t
	c.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.writeDL = t
	c.mu.Unlock()
	return c.Conn.SetWriteDeadline(t)
}
