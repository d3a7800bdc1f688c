package agentwire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// answer gives the client a message in the server's place, as its own
// line; it waits for the client to read it, so it does not hold up the
// client's writes.
func (c *mcpConn) answer(msg []byte) {
	c.mu.Lock()
	c.answers++
	c.mu.Unlock()
	go func() {
		defer c.answerDone()
		c.write(append(msg, '\n'))
	}()
}

func (c *mcpConn) answerDone() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answers--; c.answers == 0 {
		c.answered.Broadcast()
	}
}

// waitAnswers waits for the faults' answers on their way to the client
// (a sync.Cond's wait is durable in a synctest bubble).
func (c *mcpConn) waitAnswers() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.answers > 0 {
		c.answered.Wait()
	}
}

// takeOut takes the client's side for one message; false once the stream
// ended.
func (c *mcpConn) takeOut() bool {
	select {
	case c.out <- struct{}{}:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// write gives the client one whole message, never between the pieces of
// another.
func (c *mcpConn) write(msg []byte) error {
	if len(msg) == 0 {
		return nil
	}
	if !c.takeOut() {
		return c.ended()
	}
	defer func() { <-c.out }()
	_, err := c.pw.Write(msg)
	return err
}

// pump passes the server's messages to the client, the answers to held
// calls as their faults say, until either side ends. A message longer
// than maxMessage passes as it comes, unless it answers a held
// tool_timeout call: then it is dropped, as that call's answer always is.
func (c *mcpConn) pump() {
	br := bufio.NewReaderSize(c.conn, 64<<10)
	var msg []byte
	for {
		chunk, err := br.ReadSlice('\n')
		msg = append(msg, chunk...)
		var werr error
		switch {
		case len(msg) > maxMessage && c.dropLong(msg):
			err = skipRest(br, err)
		case len(msg) > maxMessage:
			err, werr = c.passLong(br, msg, err)
		case err == bufio.ErrBufferFull:
			continue
		default:
			werr = c.write(c.fromServer(msg))
		}
		msg = msg[:0]
		if werr != nil {
			return
		}
		if err != nil {
			if c.ctx.Err() == nil {
				c.waitAnswers() // the faults' answers on their way go first
			}
			c.end(c.causeOr(err))
			return
		}
	}
}

// skipRest reads past the rest of a message whose first read ended with
// err, and returns the read error at its end (nil: a newline).
func skipRest(br *bufio.Reader, err error) error {
	for err == bufio.ErrBufferFull {
		_, err = br.ReadSlice('\n')
	}
	return err
}

// passLong gives the client a message too long to look into as it comes:
// first, then the rest up to its end (its first read ended with err), with
// nothing between. It returns the read error at its end (nil: a newline)
// and the client's side's write error.
func (c *mcpConn) passLong(br *bufio.Reader, first []byte, err error) (error, error) {
	if !c.takeOut() {
		return nil, c.ended()
	}
	defer func() { <-c.out }()
	if _, werr := c.pw.Write(first); werr != nil {
		return nil, werr
	}
	for err == bufio.ErrBufferFull {
		var chunk []byte
		if chunk, err = br.ReadSlice('\n'); len(chunk) > 0 {
			if _, werr := c.pw.Write(chunk); werr != nil {
				return nil, werr
			}
		}
	}
	return err, nil
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

// leadingID is the id of the answer msg begins: a JSON object whose "id"
// comes before its "result" or "error" (as go-sdk and most JSON-RPC
// encoders write it), whose value may be too long to read here. A request
// of the server (a "method") is no answer.
func leadingID(msg []byte) (json.RawMessage, bool) {
	d := json.NewDecoder(bytes.NewReader(msg))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var id json.RawMessage
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return nil, false
		}
		switch key {
		case "method":
			return nil, false
		case "result", "error":
			return id, id != nil
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		if key == "id" {
			id = v
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
