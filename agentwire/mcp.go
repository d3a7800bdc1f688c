package agentwire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/ctxtime"
)

// The MCP streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// ToolKind is what a tool fault does to a tools/call.
type ToolKind string

// The tool faults.
const (
	// ToolHang holds the call for Timeout, then answers it with a
	// JSON-RPC error; the server still gets the call and does it, so its
	// effect may be done although the caller saw it fail.
	ToolHang ToolKind = "timeout"
	// ToolError answers the call with a result whose isError is true,
	// without calling the server: the tool ran and failed.
	ToolError ToolKind = "error"
	// ToolLie calls the server and changes the result: a valid answer with
	// a wrong value.
	ToolLie ToolKind = "lie"
)

// ToolFault is one fault on an agent's MCP tool calls.
type ToolFault struct {
	Kind ToolKind
	// Tools limits the fault to these tools; empty: every tool.
	Tools []string
	// Rate is the share of the matching calls hit, in (0, 1]; 0: every
	// call.
	Rate float64
	// Timeout is how long ToolHang holds a call (fault.DefaultToolTimeout).
	Timeout time.Duration
	// Message is ToolError's text (DefaultToolError).
	Message string
	// Field limits ToolLie to the numbers under this key of the result;
	// empty: every number.
	Field string
	// Offset is what ToolLie adds to each number it changes (1 when 0).
	Offset float64
}

// DefaultToolError is a tool_error's text when the fault gives none.
const DefaultToolError = "tool failed: internal error"

func (f ToolFault) withDefaults() ToolFault {
	if f.Rate == 0 {
		f.Rate = 1
	}
	if f.Timeout == 0 {
		f.Timeout = fault.DefaultToolTimeout
	}
	if f.Message == "" {
		f.Message = DefaultToolError
	}
	if f.Offset == 0 {
		f.Offset = 1
	}
	return f
}

func (f ToolFault) validate() error {
	switch {
	case f.Kind != ToolHang && f.Kind != ToolError && f.Kind != ToolLie:
		return fmt.Errorf("tool fault %q: want timeout, error or lie", f.Kind)
	case f.Rate < 0 || f.Rate > 1 || f.Rate != f.Rate:
		return fmt.Errorf("rate %v: want a share in (0, 1]", f.Rate)
	case f.Timeout < 0 || f.Timeout > fault.MaxDelay:
		return fmt.Errorf("timeout %v: want 0 to %v", f.Timeout, fault.MaxDelay)
	}
	return nil
}

type toolFault struct {
	ToolFault
	calls uint64
}

func (f *toolFault) takes(tool string) bool {
	if len(f.Tools) > 0 && !slices.Contains(f.Tools, tool) {
		return false
	}
	f.calls++
	n := float64(f.calls)
	return int64(n*f.Rate) > int64((n-1)*f.Rate)
}

// mcpState is an agent's MCP links: the exchanges in flight (a drop cuts
// them), whether the link is down, the sessions seen and those forgotten,
// and the tool faults.
type mcpState struct {
	flights   map[*flight]struct{}
	down      uint64    // the drop holding the link down; 0: up
	downUntil time.Time // when it comes back by itself; zero: when lifted
	sessions  map[string]bool
	forgotten map[string]bool
	tools     []*toolFault
}

// isDown reports whether a drop holds the link down at now.
func (m *mcpState) isDown(now time.Time) bool {
	return m.down != 0 && (m.downUntil.IsZero() || now.Before(m.downUntil))
}

func (m *mcpState) init() {
	m.flights, m.sessions, m.forgotten = map[*flight]struct{}{}, map[string]bool{}, map[string]bool{}
}

type flight struct {
	cancel context.CancelCauseFunc
	sid    string
	stream bool // a stream's whole life (Agents.MCPConn)
	// background: a held call's exchange with the server, which goes on
	// without its caller (whose wait is the flight counted as cut).
	background bool
}

// board puts fl in flight on agent's MCP links, unless a drop holds them
// down (a refusal, counted).
func (a *Agents) board(agent string, fl *flight) bool {
	now := time.Now()
	ok := false
	a.with(agent, func(s *agentState) {
		if s.mcp.isDown(now) {
			s.hits["mcp:refused"]++
			return
		}
		s.mcp.flights[fl], ok = struct{}{}, true
	})
	return ok
}

// alight takes fl, ended, off agent's MCP links.
func (a *Agents) alight(agent string, fl *flight) {
	a.with(agent, func(s *agentState) { delete(s.mcp.flights, fl) })
}

// DroppedError is what an MCP exchange cut by mcp_disconnect returns: it
// wraps syscall.ECONNRESET, as a connection reset by the peer does.
type DroppedError struct{ Agent string }

func (e *DroppedError) Error() string {
	return fmt.Sprintf("agentwire: %s: MCP connection dropped: %v", e.Agent, syscall.ECONNRESET)
}

// Unwrap returns syscall.ECONNRESET.
func (e *DroppedError) Unwrap() error { return syscall.ECONNRESET }

// DownError is what an MCP request returns while the agent's link is down
// after a drop: it wraps syscall.ECONNREFUSED.
type DownError struct{ Agent string }

func (e *DownError) Error() string {
	return fmt.Sprintf("agentwire: %s: MCP server unreachable (mcp_disconnect): %v", e.Agent, syscall.ECONNREFUSED)
}

// Unwrap returns syscall.ECONNREFUSED.
func (e *DownError) Unwrap() error { return syscall.ECONNREFUSED }

// DisconnectMCP drops agentID's MCP links: every exchange in flight (the
// session's event stream, calls awaiting their answer) is cut with a reset,
// and new ones are refused until lifted or for the reconnect time
// (WithMCPReconnect), whichever ends first: mcp_disconnect. A fault with a
// longer duration still has its link back after the reconnect time (as
// the fakes' and agentd's sessions reconnect after a second); a longer
// outage is WithMCPReconnect(-1), or network_partition. The
// sessions survive on the server: a client that reconnects its stream
// goes on with its session. A stream (MCPConn), whose session is the
// connection, is closed.
func (a *Agents) DisconnectMCP(ctx context.Context, agentID string) (fault.Lift, error) {
	now := time.Now()
	return a.land(ctx, agentID, mcpClient, nil, func(s *agentState) func() {
		a.seq++
		drop := a.seq
		s.mcp.down, s.mcp.downUntil = drop, time.Time{}
		if a.reconnect >= 0 {
			s.mcp.downUntil = now.Add(a.reconnect)
		}
		cut := &DroppedError{Agent: agentID}
		for fl := range s.mcp.flights {
			fl.cancel(cut)
			if !fl.background {
				s.hits["mcp:disconnect"]++
			}
		}
		return func() {
			if s.mcp.down == drop {
				s.mcp.down = 0
			}
		}
	})
}

// ForgetSessions makes the MCP servers of agentID (every one its clients
// through MCP talk to) forget every session they have given it so far, as
// servers restarted without a session store do: each
// later request of such a session, its event stream included, is answered
// 404 "session not found" (the protocol's answer; go-sdk's client then
// fails with mcp.ErrSessionMissing), and its open streams are cut. A new
// session works. A stream (MCPConn) ends as when its server exits: the
// client reads EOF. It is never lifted: the sessions are gone.
func (a *Agents) ForgetSessions(ctx context.Context, agentID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.wired(agentID, mcpClient)
	if err != nil {
		return err
	}
	for sid := range s.mcp.sessions {
		s.mcp.forgotten[sid] = true
	}
	cut := &DroppedError{Agent: agentID}
	for fl := range s.mcp.flights {
		switch {
		case fl.stream:
			fl.cancel(errServerGone)
		case s.mcp.forgotten[fl.sid]:
			fl.cancel(cut)
		}
	}
	return nil
}

// ToolTimeout makes agentID's tool calls hang for timeout and then fail,
// until lifted: tool_timeout (a ToolFault of kind ToolHang).
func (a *Agents) ToolTimeout(ctx context.Context, agentID string, timeout time.Duration) (fault.Lift, error) {
	return a.FailTools(ctx, agentID, ToolFault{Kind: ToolHang, Timeout: timeout})
}

// FailTools lands f on agentID's tool calls until lifted. A later fault is
// consulted first.
func (a *Agents) FailTools(ctx context.Context, agentID string, f ToolFault) (fault.Lift, error) {
	return a.land(ctx, agentID, mcpClient, f.validate(), func(s *agentState) func() {
		tf := &toolFault{ToolFault: f.withDefaults()}
		s.mcp.tools = append(s.mcp.tools, tf)
		return func() { s.mcp.tools = deleteFault(s.mcp.tools, tf) }
	})
}

// mcpTransport is an agent's MCP client's RoundTripper (Agents.MCP).
type mcpTransport struct {
	a     *Agents
	agent string
	base  http.RoundTripper
}

func (t mcpTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := t.a.slowdown(ctx, t.agent); err != nil {
		closeBody(req)
		return nil, err
	}
	sid := req.Header.Get(sessionHeader)
	now := time.Now()
	var down, forgotten bool
	t.a.with(t.agent, func(s *agentState) {
		down = s.mcp.isDown(now)
		forgotten = sid != "" && s.mcp.forgotten[sid]
		switch {
		case down:
			s.hits["mcp:refused"]++
		case forgotten:
			s.hits["mcp:session_not_found"]++
		}
	})
	switch {
	case down:
		closeBody(req)
		return nil, &DownError{Agent: t.agent}
	case forgotten:
		closeBody(req)
		h := http.Header{}
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		return answer{http.StatusNotFound, h, []byte("session not found\n")}.response(req), nil
	}
	req, call, err := toolCall(req)
	if err != nil {
		return nil, err
	}
	if call != nil {
		if f := t.a.toolFaultFor(t.agent, call.tool); f != nil {
			return t.toolFault(req, call, f)
		}
	}
	return t.send(req, sid, false)
}

// send passes req on as an exchange in flight, which a drop cuts
// (background: a held call's, without its caller).
func (t mcpTransport) send(req *http.Request, sid string, background bool) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	fl := &flight{cancel: cancel, sid: sid, background: background}
	if !t.a.board(t.agent, fl) { // a drop that landed since RoundTrip looked
		cancel(nil)
		closeBody(req)
		return nil, &DownError{Agent: t.agent}
	}
	done := func() {
		t.a.alight(t.agent, fl)
		cancel(nil)
	}
	res, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		done()
		return nil, cutOr(ctx, err)
	}
	if got := res.Header.Get(sessionHeader); got != "" {
		t.a.with(t.agent, func(s *agentState) {
			s.mcp.sessions[got] = true
			fl.sid = got
		})
	}
	res.Body = &flightBody{rc: res.Body, ctx: ctx, done: done}
	return res, nil
}

// cutOr is the drop that cut ctx, else err.
func cutOr(ctx context.Context, err error) error {
	var d *DroppedError
	if cause := context.Cause(ctx); errors.As(cause, &d) {
		return d
	}
	return err
}

// flightBody is the body of an exchange in flight: its end (EOF, an error,
// Close) ends the flight; a drop surfaces as the DroppedError.
type flightBody struct {
	rc   io.ReadCloser
	ctx  context.Context
	done func()
	once sync.Once // Read and Close may come from two goroutines
}

func (b *flightBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil {
		b.end()
		if err != io.EOF {
			err = cutOr(b.ctx, err)
		}
	}
	return n, err
}

func (b *flightBody) Close() error {
	err := b.rc.Close()
	b.end()
	return err
}

func (b *flightBody) end() { b.once.Do(b.done) }

func (a *Agents) toolFaultFor(agent, tool string) *toolFault {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.agents[agent]
	if s == nil {
		return nil
	}
	for i := len(s.mcp.tools) - 1; i >= 0; i-- {
		if f := s.mcp.tools[i]; f.takes(tool) {
			s.hits["tool:"+string(f.Kind)]++
			return f
		}
	}
	return nil
}

// toolFault does f to the tools/call req.
func (t mcpTransport) toolFault(req *http.Request, call *rpcCall, f *toolFault) (*http.Response, error) {
	switch f.Kind {
	case ToolError:
		closeBody(req)
		return jsonAnswer(req, toolErrorResult(call.id, f.Message)), nil
	case ToolHang:
		// The server gets the call and does it; its answer is lost. The
		// call goes on without its caller, as an exchange in flight (a
		// drop cuts it), for at most hangGrace past the timeout.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), f.Timeout+hangGrace)
		bg := req.Clone(ctx)
		go func() {
			defer cancel()
			if res, err := t.send(bg, req.Header.Get(sessionHeader), true); err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		}()
		if err := t.hold(req, f.Timeout); err != nil {
			return nil, err
		}
		return jsonAnswer(req, rpcError(call.id, -32001, fmt.Sprintf("tools/call %s: request timed out after %v", call.tool, f.Timeout))), nil
	}
	res, err := t.send(req, req.Header.Get(sessionHeader), false)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxMessage+1))
	if err != nil {
		res.Body.Close()
		return nil, err
	}
	if len(body) > maxMessage { // too long to lie in: passed on as it comes
		res.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), res.Body), res.Body}
		return res, nil
	}
	res.Body.Close()
	lied, ok := lie(body, isEventStream(res), call.id, f.ToolFault)
	if !ok {
		lied = body // not the answer to the call (an error): passed on as it came
	}
	res.Body = io.NopCloser(bytes.NewReader(lied))
	res.ContentLength = int64(len(lied))
	res.Header.Del("Content-Length")
	return res, nil
}

// hold waits out a held call for d, as an exchange in flight: a drop cuts
// the caller's wait too, and one that landed since RoundTrip looked
// refuses it.
func (t mcpTransport) hold(req *http.Request, d time.Duration) error {
	ctx, cancel := context.WithCancelCause(req.Context())
	defer cancel(nil)
	fl := &flight{cancel: cancel, sid: req.Header.Get(sessionHeader)}
	if !t.a.board(t.agent, fl) {
		return &DownError{Agent: t.agent}
	}
	err := ctxtime.Sleep(ctx, d)
	t.a.alight(t.agent, fl)
	if err != nil {
		return cutOr(ctx, err)
	}
	return nil
}

// maxMessage bounds an MCP message agentwire reads whole: a request, to see
// whether it is a tools/call; an answer, to lie in it. A longer one passes
// as it came.
const maxMessage = 16 << 20

// hangGrace is how long past its timeout a held tools/call may still take
// on the server before agentwire gives up on it.
const hangGrace = time.Minute

func jsonAnswer(req *http.Request, body []byte) *http.Response {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	return answer{http.StatusOK, h, body}.response(req)
}
