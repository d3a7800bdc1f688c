package agentwire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ares-arena/arena/internal/ctxtime"
)

// queueLen bounds the client's messages on their way to the server; a
// Write waits for room.
const queueLen = 64

// outgoing is one message of the client on its way to the server.
type outgoing struct {
	msg   []byte         // its bytes (a copy)
	m     *streamMessage // what agentwire read of it; nil: passed on as it came
	leave time.Time      // not before (slow_agent)
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

// Write takes the client's messages, each whole, and queues them for the
// server under the agent's faults; it fails once the stream ended.
func (c *mcpConn) Write(p []byte) (int, error) {
	select {
	case c.wsem <- struct{}{}:
	case <-c.ctx.Done():
		return 0, c.ended()
	}
	defer func() { <-c.wsem }()
	if c.ctx.Err() != nil { // ended (end may still be on its way)
		return 0, c.ended()
	}
	if err := c.failed(); err != nil {
		return 0, err
	}
	buf := append(c.wbuf, p...)
	rest := buf
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 && !c.passing && len(rest) <= maxMessage {
			break // the rest of the message comes in a later write
		}
		end := len(rest)
		if i >= 0 {
			end = i + 1
		}
		msg := rest[:end]
		rest = rest[end:]
		raw := c.passing || len(msg) > maxMessage // not a message to look into
		c.passing = i < 0                         // a piece of a long message: its rest follows
		if err := c.enqueue(msg, raw); err != nil {
			return 0, err
		}
	}
	c.wbuf = append(buf[:0], rest...)
	return len(p), nil
}

// enqueue queues one message of the client (raw: passed on as it came).
// A request or notification leaves after the agent's slow_agent delay; a
// cancel takes effect at once: the call's late answer is not sent, and a
// call still queued does not leave.
func (c *mcpConn) enqueue(msg []byte, raw bool) error {
	it := outgoing{msg: bytes.Clone(msg), leave: time.Now()}
	var m streamMessage
	if !raw && json.Unmarshal(msg, &m) == nil && m.Method != "" {
		it.m = &m
		it.leave = it.leave.Add(c.a.slowDelay(c.agent))
		if m.Method == "notifications/cancelled" && len(m.Params.RequestID) > 0 {
			c.unhold(m.Params.RequestID)
		}
	}
	if c.ctx.Err() != nil {
		return c.ended()
	}
	if err := c.failed(); err != nil {
		return err
	}
	select {
	case c.queue <- it:
		return nil
	case <-c.ctx.Done():
		return c.ended()
	}
}

// sender passes the queued messages on to the server, each when it may
// leave, until the stream ends. Once the server no longer reads, the
// client's writes fail (EPIPE) and what is queued is dropped, while what
// the server sent before it went is still read (the pump ends the stream
// at its EOF).
func (c *mcpConn) sender() {
	for {
		select {
		case it := <-c.queue:
			if ctxtime.Sleep(c.ctx, time.Until(it.leave)) != nil {
				return
			}
			if c.failed() != nil {
				continue
			}
			if err := c.send(it); err != nil {
				c.fail(c.writeErr(io.EOF))
			}
		case <-c.ctx.Done():
			return
		}
	}
}

// fail makes the client's writes fail with err, unless they already do.
func (c *mcpConn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// send passes one message on, or answers it in the server's place
// (tool_error), or drops a call cancelled before it left.
func (c *mcpConn) send(it outgoing) error {
	m := it.m
	if m == nil {
		return c.forward(it.msg)
	}
	if m.Method == "notifications/cancelled" && len(m.Params.RequestID) > 0 {
		key := idKey(m.Params.RequestID)
		c.mu.Lock()
		delete(c.cancelled, key) // the call it cancels was queued before it
		c.mu.Unlock()
	}
	if m.Method != "tools/call" || len(m.ID) == 0 {
		return c.forward(it.msg)
	}
	key := idKey(m.ID)
	c.mu.Lock()
	gaveUp := c.cancelled[key]
	delete(c.cancelled, key)
	c.mu.Unlock()
	if gaveUp {
		return nil
	}
	f := c.a.toolFaultFor(c.agent, m.Params.Name)
	if f == nil {
		return c.forward(it.msg)
	}
	if f.Kind == ToolError {
		c.answer(toolErrorResult(m.ID, f.Message))
		return nil
	}
	if !c.hold(m.ID, m.Params.Name, f) {
		return nil // the stream ended, or the client cancelled the call meanwhile
	}
	return c.forward(it.msg)
}

// forward writes msg to the server.
func (c *mcpConn) forward(msg []byte) error {
	_, err := c.conn.Write(msg)
	return err
}

// hold keeps the tools/call id for its fault f to act on its answer; for
// ToolHang it starts the fault's own answer. It is false once the stream
// has ended, or when the client cancelled the call since the sender
// looked (then it does not leave). Calls whose fault's answer went (or was cancelled) more than
// hangGrace ago, and whose server never answered, are forgotten here.
func (c *mcpConn) hold(id json.RawMessage, tool string, f *toolFault) bool {
	key := idKey(id)
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return false
	}
	if c.cancelled[key] {
		delete(c.cancelled, key)
		return false
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
	return true
}

// unhold acts on the client's cancel of call id: a held call's late
// answer is not sent, a lied-in one is forgotten, one still queued will
// not leave.
func (c *mcpConn) unhold(id json.RawMessage) {
	key := idKey(id)
	c.mu.Lock()
	h := c.held[key]
	switch {
	case h == nil:
		c.cancelled[key] = true
	case h.f.Kind == ToolLie: // its answer, if any, passes as it comes
		delete(c.held, key)
	}
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
