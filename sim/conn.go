package sim

import (
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Addr is the address of a listener or a conn end on the simulated
// network: a node's name and a port. Its network is "tcp": a conn behaves
// as a TCP connection does (a byte stream, in order, with resets), so
// libraries that look at the network name treat it as one.
type Addr struct {
	Node string
	Port int
}

// Network returns "tcp".
func (Addr) Network() string { return "tcp" }

// String returns "node:port", which another node dials to reach it.
func (a Addr) String() string { return net.JoinHostPort(a.Node, strconv.Itoa(a.Port)) }

// conn is one end of a connection between two nodes: it reads from one
// pipe and writes to the other, which the other end reads. Every wait is a
// select on channels and timers, so it is durable in a synctest bubble.
type conn struct {
	w             *World
	local, remote Addr
	rd, wr        *pipe
	opened        time.Time

	readDL, writeDL *deadline
	done            chan struct{} // closed by shut
	once            sync.Once
	peer            *conn

	mu         sync.Mutex
	userClosed bool
}

var _ net.Conn = (*conn)(nil)

// newConnPair returns the two ends of a connection from a (the dialer) to
// b (the listener).
func newConnPair(w *World, a, b Addr) (*conn, *conn) {
	ab, ba := newPipe(), newPipe()
	now := time.Now()
	ca := &conn{w: w, local: a, remote: b, rd: ba, wr: ab, opened: now,
		readDL: newDeadline(), writeDL: newDeadline(), done: make(chan struct{})}
	cb := &conn{w: w, local: b, remote: a, rd: ab, wr: ba, opened: now,
		readDL: newDeadline(), writeDL: newDeadline(), done: make(chan struct{})}
	ca.peer, cb.peer = cb, ca
	return ca, cb
}

func (c *conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
}

// Read reads what has reached this end: bytes the other end wrote, once
// the link's faults let them through. It blocks until some arrive, the
// other end closes (io.EOF once all is read), the conn is reset or closed,
// or the read deadline passes.
func (c *conn) Read(b []byte) (int, error) {
	for {
		switch {
		case isClosed(c.done):
			return 0, c.opError("read", net.ErrClosed)
		case isClosed(c.readDL.wait()):
			return 0, c.opError("read", os.ErrDeadlineExceeded)
		}
		held := c.w.held(c.remote.Node, c.local.Node)
		n, st := c.rd.read(b, time.Now(), held != nil)
		switch {
		case st.errno != 0:
			return 0, c.opError("read", os.NewSyscallError("read", st.errno))
		case n > 0 || len(b) == 0:
			return n, nil
		case st.eof:
			return 0, io.EOF
		}
		c.wait(st.changed, held, c.readDL, st.next)
	}
}

// Write sends b to the other end. It blocks while the connection's buffer
// is full (the reader is behind), and fails once the conn is reset or
// closed, the other end closed, or the write deadline passes; it returns
// how many bytes were sent then.
func (c *conn) Write(b []byte) (int, error) {
	n := 0
	for {
		switch {
		case isClosed(c.done):
			return n, c.opError("write", net.ErrClosed)
		case isClosed(c.writeDL.wait()):
			return n, c.opError("write", os.ErrDeadlineExceeded)
		}
		k, st := c.wr.write(b[n:], func(k int) time.Time { return c.w.deliverAt(c.local.Node, c.remote.Node, time.Now(), k) })
		n += k
		switch {
		case st.errno != 0:
			return n, c.opError("write", os.NewSyscallError("write", st.errno))
		case st.eof: // the reader is gone
			return n, c.opError("write", os.NewSyscallError("write", syscall.EPIPE))
		case n == len(b):
			return n, nil
		case k == 0:
			c.wait(st.changed, nil, c.writeDL, time.Time{})
		}
	}
}

// wait blocks until the pipe changes, the hold is lifted, the deadline
// passes, the conn is closed, or it is time next (when not zero).
func (c *conn) wait(changed, held chan struct{}, dl *deadline, next time.Time) {
	var timer <-chan time.Time
	if !next.IsZero() {
		t := time.NewTimer(time.Until(next))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-changed:
	case <-held:
	case <-dl.wait():
	case <-c.done:
	case <-timer:
	}
}

// Close closes this end: its pending Read and Write return net.ErrClosed,
// the other end reads what was sent, then io.EOF, and its writes fail.
// Closing it twice is an error; a conn the world already cut (its node
// was killed) closes without one.
func (c *conn) Close() error {
	c.mu.Lock()
	again := c.userClosed
	c.userClosed = true
	c.mu.Unlock()
	if again {
		return c.opError("close", net.ErrClosed)
	}
	c.shut()
	return nil
}

// shut closes this end, for its owner or the world.
func (c *conn) shut() {
	c.once.Do(func() {
		close(c.done)
		c.wr.closeWrite()
		c.rd.closeRead()
		c.readDL.stop()
		c.writeDL.stop()
		c.w.forget(c)
	})
}

// reset resets the connection: both ends' pending and later calls fail
// with ECONNRESET.
func (c *conn) reset() {
	c.rd.fail(syscall.ECONNRESET)
	c.wr.fail(syscall.ECONNRESET)
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

func (c *conn) SetDeadline(t time.Time) error {
	if isClosed(c.done) {
		return c.opError("set deadline", net.ErrClosed)
	}
	c.readDL.set(t)
	c.writeDL.set(t)
	return nil
}

func (c *conn) SetReadDeadline(t time.Time) error {
	if isClosed(c.done) {
		return c.opError("set deadline", net.ErrClosed)
	}
	c.readDL.set(t)
	return nil
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	if isClosed(c.done) {
		return c.opError("set deadline", net.ErrClosed)
	}
	c.writeDL.set(t)
	return nil
}
