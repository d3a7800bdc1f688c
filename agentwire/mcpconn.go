package agentwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
)

// MCPConn returns conn, agent's stream to an MCP server in
// newline-delimited JSON-RPC, under the agent's MCP and tool faults: the
// stdio and in-memory transports of go-sdk. Give the result to
// mcp.IOTransport as its Reader and Writer: a command's stdout and stdin
// joined (what mcp.CommandTransport does), or one end of a net.Pipe whose
// other end a server serves (what mcp.NewInMemoryTransports does).
//
// On a stream the session is the connection, so:
//
//   - mcp_disconnect closes it: the client's reads and writes fail with a
//     DroppedError (ECONNRESET), the server reads EOF. A stream the client
//     opens while the link is down is refused (DownError) and closed; the
//     link comes back as DisconnectMCP says, and the client connects anew
//     (a new process, a new pipe).
//   - mcp_session_loss: the server has gone away; the client reads EOF, as
//     from a server process that exited, and its writes fail with EPIPE.
//   - The tool faults act as on HTTP. A held call (tool_timeout) goes to
//     the server, its answer is dropped, and the JSON-RPC error comes after
//     Timeout, unless the client cancels the call first
//     (notifications/cancelled).
//   - slow_agent: each request and notification the client writes leaves
//     its delay later, in order (an answer of the client to the server
//     waits behind them); the write itself does not wait. A call the client
//     cancels before it has left never leaves.
//
// A batch (a JSON array) and a message longer than 16 MiB pass as they
// came, except a held tool_timeout call's answer, which is dropped
// whatever its length.
func (a *Agents) MCPConn(agent string, conn io.ReadWriteCloser) io.ReadWriteCloser {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancelCause(context.Background())
	c := &mcpConn{a: a, agent: agent, conn: conn, pr: pr, pw: pw, cancel: cancel, ctx: ctx,
		wsem: make(chan struct{}, 1), out: make(chan struct{}, 1), queue: make(chan outgoing, queueLen),
		held: map[string]*heldCall{}, cancelled: map[string]bool{}}
	c.answered = sync.NewCond(&c.mu)
	c.fl = &flight{cancel: cancel, stream: true}
	a.with(agent, func(s *agentState) { s.mcpClients++ })
	if !a.board(agent, c.fl) {
		c.end(&DownError{Agent: agent})
		return c
	}
	c.stopWatch = context.AfterFunc(ctx, func() { c.end(context.Cause(ctx)) })
	go c.pump()
	go c.sender()
	return c
}

// errServerGone is the cause with which ForgetSessions cuts a stream.
var errServerGone = errors.New("agentwire: the MCP server went away (mcp_session_loss)")

// mcpConn is an agent's stream to an MCP server (Agents.MCPConn).
type mcpConn struct {
	a      *Agents
	agent  string
	conn   io.ReadWriteCloser
	pr     *io.PipeReader // what the client reads
	pw     *io.PipeWriter // what the server answers, and the faults' answers
	ctx    context.Context
	cancel context.CancelCauseFunc
	fl     *flight

	stopWatch func() bool
	endOnce   sync.Once

	// wsem (one Write at a time) and out (one message at a time to the
	// client) are semaphores held across blocking I/O: channels, since in
	// a synctest bubble a goroutine waiting on a channel is durably
	// blocked and one waiting on a mutex is not (simulated time would
	// stop).
	wsem    chan struct{}
	out     chan struct{}
	wbuf    []byte        // the client's message not yet ended (under wsem)
	passing bool          // the rest of a message too long to look into (under wsem)
	queue   chan outgoing // the client's messages on their way, in order

	mu        sync.Mutex
	err       error                // why writes fail, once ended
	held      map[string]*heldCall // calls whose answer a tool fault takes
	cancelled map[string]bool      // calls cancelled while still queued
	answers   int                  // the faults' answers on their way to the client
	answered  *sync.Cond           // on c.mu: answers fell to 0
}

// end closes the stream: the client reads err (EOF when the server went
// away), its writes fail, the server reads EOF.
func (c *mcpConn) end(err error) {
	c.endOnce.Do(func() {
		c.cancel(err) // the sender and a write waiting on the queue end now
		write := c.writeErr(err)
		if errors.Is(err, errServerGone) {
			err = io.EOF
			c.hit("mcp:session_lost")
		}
		c.mu.Lock()
		c.err = write
		held := c.held
		c.held = map[string]*heldCall{}
		c.mu.Unlock()
		for _, h := range held {
			if h.timer != nil {
				h.timer.Stop()
			}
		}
		c.a.alight(c.agent, c.fl)
		c.conn.Close()
		if err == io.EOF {
			c.pw.Close()
		} else {
			c.pw.CloseWithError(err)
		}
	})
}

// writeErr is what the client's writes fail with once the stream ended
// with err: EPIPE when the server went away or closed its end, the drop or
// refusal itself, io.ErrClosedPipe after the client's own Close.
func (c *mcpConn) writeErr(err error) error {
	var d *DroppedError
	var r *DownError
	switch {
	case errors.As(err, &d), errors.As(err, &r):
		return err
	case errors.Is(err, errServerGone), err == io.EOF:
		return fmt.Errorf("agentwire: %s: MCP server gone: %w", c.agent, syscall.EPIPE)
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, io.ErrClosedPipe):
		return io.ErrClosedPipe
	}
	return err
}

func (c *mcpConn) hit(what string) {
	c.a.with(c.agent, func(s *agentState) { s.hits[what]++ })
}

func (c *mcpConn) Read(p []byte) (int, error) { return c.pr.Read(p) }

func (c *mcpConn) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// ended is why writes fail once the stream's context ended.
func (c *mcpConn) ended() error {
	if err := c.failed(); err != nil {
		return err
	}
	return c.writeErr(context.Cause(c.ctx))
}

// Close closes the stream and the connection under it.
func (c *mcpConn) Close() error {
	if c.stopWatch != nil {
		c.stopWatch()
	}
	c.end(io.ErrClosedPipe) // ends the stream's context too
	return c.pr.Close()
}
