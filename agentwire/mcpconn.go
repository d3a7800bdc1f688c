package agentwire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"
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
//   - slow_agent: each request and notification the client sends waits
//     before it leaves; on one stream messages leave in order, so those
//     sent at once wait one after another (the client's answers to the
//     server are not delayed, but queue behind).
//
// A batch (a JSON array) and a message longer than 16 MiB pass as they
// came, except a held tool_timeout call's answer, which is dropped
// whatever its length.
func (a *Agents) MCPConn(agent string, conn io.ReadWriteCloser) io.ReadWriteCloser {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancelCause(context.Background())
	c := &mcpConn{a: a, agent: agent, conn: conn, pr: pr, pw: pw, cancel: cancel, ctx: ctx, held: map[string]*heldCall{}}
	c.fl = &flight{cancel: cancel, stream: true}
	now := time.Now()
	var down bool
	a.with(agent, func(s *agentState) {
		s.mcpClients++
		if down = s.mcp.isDown(now); down {
			s.hits["mcp:refused"]++
		} else {
			s.mcp.flights[c.fl] = struct{}{}
		}
	})
	if down {
		c.end(&DownError{Agent: agent})
		return c
	}
	c.stopWatch = context.AfterFunc(ctx, func() { c.end(context.Cause(ctx)) })
	go c.pump()
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

	wmu     sync.Mutex // the client's writes, whole messages to conn
	wbuf    []byte     // the client's message not yet ended
	passing bool       // the rest of a message too long to look into

	mu   sync.Mutex
	err  error                // why writes fail, once ended
	held map[string]*heldCall // calls whose answer a tool fault takes
}

// heldCall is a tools/call a tool fault acts on when its answer comes.
type heldCall struct {
	f     *toolFault
	timer *time.Timer // ToolHang's answer
	// For ToolHang: the server's answer came (and was dropped), and the
	// fault's own answer went or was cancelled (at doneAt). It is
	// forgotten once both, or hangGrace after done.
	answered, done bool
	doneAt         time.Time
}

// finish marks the fault's own answer gone (or cancelled).
func (h *heldCall) finish() { h.done, h.doneAt = true, time.Now() }

// end closes the stream: the client reads err (EOF when the server went
// away), its writes fail, the server reads EOF.
func (c *mcpConn) end(err error) {
	c.endOnce.Do(func() {
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
		c.a.with(c.agent, func(s *agentState) { delete(s.mcp.flights, c.fl) })
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

// Close closes the stream and the connection under it.
func (c *mcpConn) Close() error {
	if c.stopWatch != nil {
		c.stopWatch()
	}
	c.end(io.ErrClosedPipe)
	c.cancel(nil)
	return c.pr.Close()
}

// Write passes the client's messages on to the server, each whole, under
// the agent's faults.
func (c *mcpConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.failed(); err != nil {
		return 0, err
	}
	buf := append(c.wbuf, p...)
	rest := buf
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			if !c.passing && len(rest) <= maxMessage {
				break // the rest of the message comes in a later write
			}
			err := c.forward(rest) // not a message to look into
			rest, c.passing = nil, true
			if err != nil {
				return 0, err
			}
			break
		}
		msg := rest[:i+1]
		rest = rest[i+1:]
		if len(msg) > maxMessage {
			c.passing = true // not a message to look into
		}
		var err error
		if c.passing {
			err, c.passing = c.forward(msg), false
		} else {
			err = c.send(msg)
		}
		if err != nil {
			return 0, err
		}
	}
	c.wbuf = append(buf[:0], rest...)
	return len(p), nil
}

func (c *mcpConn) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// forward writes msg to the server; a drop that cut the stream is what
// the client gets.
func (c *mcpConn) forward(msg []byte) error {
	if _, err := c.conn.Write(msg); err != nil {
		if e := c.failed(); e != nil {
			return e
		}
		return err
	}
	return nil
}

// streamMessage is what agentwire reads of a message on a stream.
type streamMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string          `json:"name"`
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// send passes one message of the client on, or answers it in the server's
// place (tool_error).
func (c *mcpConn) send(msg []byte) error {
	var m streamMessage
	if json.Unmarshal(msg, &m) != nil || m.Method == "" {
		return c.forward(msg) // an answer to the server, a batch, not JSON
	}
	if m.Method == "notifications/cancelled" && len(m.Params.RequestID) > 0 {
		c.unhold(m.Params.RequestID) // before any slow_agent wait: the client has given up now
	}
	if err := c.a.slowdown(c.ctx, c.agent); err != nil {
		return c.writeErr(c.causeOr(err)) // the stream ended while the message waited
	}
	if m.Method != "tools/call" || len(m.ID) == 0 {
		return c.forward(msg)
	}
	f := c.a.toolFaultFor(c.agent, m.Params.Name)
	if f == nil {
		return c.forward(msg)
	}
	if f.Kind == ToolError {
		c.answer(toolErrorResult(m.ID, f.Message))
		return nil
	}
	if err := c.hold(m.ID, m.Params.Name, f); err != nil {
		return err
	}
	return c.forward(msg)
}

// hold keeps the tools/call id for its fault f to act on its answer; for
// ToolHang it starts the fault's own answer. It fails once the stream has
// ended. Calls whose fault's answer went (or was cancelled) more than
// hangGrace ago, and whose server never answered, are forgotten here.
func (c *mcpConn) hold(id json.RawMessage, tool string, f *toolFault) error {
	key := idKey(id)
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	for k, h := range c.held {
		if h.done && now.Sub(h.doneAt) > hangGrace {
			delete(c.held, k)
		}
	}
	h := &heldCall{f: f}
	c.held[key] = h
	if f.Kind == ToolHang {
		h.timer = time.AfterFunc(f.Timeout, func() {
			c.settle(key, (*heldCall).finish)
			c.answer(rpcError(id, -32001, fmt.Sprintf("tools/call %s: request timed out after %v", tool, f.Timeout)))
		})
	}
	return nil
}

// unhold stops the answer of a held call the client cancelled.
func (c *mcpConn) unhold(id json.RawMessage) {
	key := idKey(id)
	c.mu.Lock()
	h := c.held[key]
	c.mu.Unlock()
	if h != nil && h.timer != nil && h.timer.Stop() {
		c.settle(key, (*heldCall).finish)
	}
}

// settle marks the held call key with mark, and forgets it once the
// server's answer came and the fault's went (or was cancelled).
func (c *mcpConn) settle(key string, mark func(*heldCall)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.held[key]
	if h == nil {
		return
	}
	mark(h)
	if h.answered && h.done {
		delete(c.held, key)
	}
}

// answer gives the client a message in the server's place, as its own
// line; it waits for the client to read it, so it does not hold up the
// client's writes.
func (c *mcpConn) answer(msg []byte) {
	line := append(msg, '\n')
	go c.pw.Write(line)
}

// pump passes the server's messages to the client, the answers to held
// calls as their faults say, until either side ends. A message longer
// than maxMessage passes as it comes, unless it answers a held
// tool_timeout call: then it is dropped, as that call's answer always is.
func (c *mcpConn) pump() {
	br := bufio.NewReaderSize(c.conn, 64<<10)
	var msg []byte
	var passing, dropping bool // the rest of a long message: passed on, dropped
	for {
		chunk, err := br.ReadSlice('\n')
		last := err != bufio.ErrBufferFull // chunk ends its message (or the stream)
		var out []byte
		switch {
		case dropping:
			dropping = !last
		case passing:
			out, passing = chunk, !last
		default:
			msg = append(msg, chunk...)
			switch {
			case len(msg) > maxMessage && c.dropLong(msg):
				dropping = !last
				msg = msg[:0]
			case len(msg) > maxMessage:
				out, passing = msg, !last
				msg = msg[:0]
			case last && len(msg) > 0:
				out = c.fromServer(msg)
				msg = msg[:0]
			}
		}
		if len(out) > 0 {
			if _, werr := c.pw.Write(out); werr != nil {
				return
			}
		}
		if last && err != nil {
			c.end(c.causeOr(err))
			return
		}
	}
}

// dropLong reports whether msg, the start of a message too long to look
// into, answers a held tool_timeout call (its id read from the start),
// and so is dropped; a tool_lie call's answer that long passes as it came.
func (c *mcpConn) dropLong(msg []byte) bool {
	id, ok := leadingID(msg)
	if !ok {
		return false
	}
	key := idKey(id)
	c.mu.Lock()
	h := c.held[key]
	if h != nil && h.f.Kind == ToolLie {
		delete(c.held, key)
	}
	c.mu.Unlock()
	if h == nil || h.f.Kind != ToolHang {
		return false
	}
	c.settle(key, func(h *heldCall) { h.answered = true })
	return true
}

// leadingID is the id of the answer msg begins (a JSON object whose
// "id" comes before any field too long to read here, as go-sdk and most
// JSON-RPC encoders write it, and which has no "method").
func leadingID(msg []byte) (json.RawMessage, bool) {
	d := json.NewDecoder(bytes.NewReader(msg))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		switch tok {
		case "id":
			return v, true
		case "method":
			return nil, false
		}
	}
	return nil, false
}

// causeOr is what cut the stream, else err.
func (c *mcpConn) causeOr(err error) error {
	if cause := context.Cause(c.ctx); cause != nil {
		return cause
	}
	return err
}

// fromServer is what the client gets of the server's message msg: the
// message, a lie in its place, or nothing (the answer to a held call).
func (c *mcpConn) fromServer(msg []byte) []byte {
	c.mu.Lock()
	pending := len(c.held) > 0
	c.mu.Unlock()
	if !pending {
		return msg
	}
	var m streamMessage
	if json.Unmarshal(msg, &m) != nil || m.Method != "" || len(m.ID) == 0 {
		return msg
	}
	key := idKey(m.ID)
	c.mu.Lock()
	h := c.held[key]
	if h != nil && h.f.Kind == ToolLie {
		delete(c.held, key)
	}
	c.mu.Unlock()
	switch {
	case h == nil:
		return msg
	case h.f.Kind == ToolHang:
		c.settle(key, func(h *heldCall) { h.answered = true })
		return nil
	}
	body := bytes.TrimRight(msg, " \t\r\n")
	lied, ok := lieMessage(body, m.ID, h.f.ToolFault)
	if !ok {
		return msg // an error: passed on as it came
	}
	return append(lied, msg[len(body):]...) // its line's end as it came
}

// idKey is a JSON-RPC id as a map key, compared as a value (1 and 1.0
// differ, as sameID has them).
func idKey(raw json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return string(raw)
	}
	return fmt.Sprintf("%T:%v", v, v)
}
