package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/ares-arena/arena/agentwire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Flaws are the planted bugs, one per check; the correct agent has none.
type Flaws struct {
	// NewKeyPerAttempt gives each attempt of a tool call an idempotency key
	// of its own: a retry after a timeout pays again (at most once).
	NewKeyPerAttempt bool
	// TrustTools reports a task done on whatever its tool said, failures and
	// lies included, without checking it (no result a tool never gave).
	TrustTools bool
	// RetryForever retries a failed model call every 50ms until it answers,
	// with no retries of the SDK's own (model calls per task).
	RetryForever bool
}

// WorkerConfig is one worker agent.
type WorkerConfig struct {
	Name     string
	Provider agentwire.Provider
	Stream   bool // the model's answers as event streams
	Flaws    Flaws
}

// The worker's policy, when it has no flaw.
const (
	ModelAttempts = 2                      // model calls made per turn, each with the SDK's retries (2)
	ModelBackoff  = time.Second            // between them
	ToolAttempts  = 3                      // tool calls made per step
	ToolTimeout   = 2 * time.Second        // each tool call's deadline
	ToolBackoff   = 250 * time.Millisecond // doubled after each failed attempt
)

// Result is what a worker answers for a task.
type Result struct {
	Task    string   `json:"task"`
	Status  string   `json:"status"` // done or failed
	Payment *Payment `json:"payment,omitempty"`
	Ticket  *Ticket  `json:"ticket,omitempty"`
	Summary string   `json:"summary,omitempty"` // the model's last words
	Error   string   `json:"error,omitempty"`
	Worker  string   `json:"worker"`
}

// TaskRequest is a task as the orchestrator hands it on: which of the
// user's attempts at it this is, too (the count of model calls is per
// attempt).
type TaskRequest struct {
	ID      string `json:"id"`
	Text    string `json:"text"`
	Attempt int    `json:"attempt"`
}

// worker is an agent: it asks the model what to do, does it with the
// tools, checks what the tools said, and answers.
type worker struct {
	cfg   WorkerConfig
	model *modelClient
	tools map[string]*toolClient // by tool name
}

func newWorker(cfg WorkerConfig, llm, mcpRT http.RoundTripper) *worker {
	retries := 2
	if cfg.Flaws.RetryForever {
		retries = 0
	}
	ledger := newToolClient(cfg.Name, "http://ledger/mcp", mcpRT)
	tickets := newToolClient(cfg.Name, "http://tickets/mcp", mcpRT)
	return &worker{cfg: cfg, model: newModelClient(cfg.Provider, cfg.Stream, llm, retries),
		tools: map[string]*toolClient{"pay": ledger, "receipt": ledger, "open_ticket": tickets, "get_ticket": tickets}}
}

func (w *worker) close() {
	for _, tc := range w.tools {
		tc.close()
	}
}

func (w *worker) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var task TaskRequest
	if err := json.NewDecoder(r.Body).Decode(&task); err != nil || task.ID == "" {
		http.Error(rw, "want a task: {id, text}", http.StatusBadRequest)
		return
	}
	res := w.do(r.Context(), task)
	res.Task, res.Worker = task.ID, w.cfg.Name
	writeJSON(rw, res)
}

// do runs a task: the model's first turn names a tool call; the call is
// made (retried with the task's idempotency key) and its result checked
// against the store's own record; the model's second turn sums up.
func (w *worker) do(ctx context.Context, task TaskRequest) Result {
	conv := w.model.start(fmt.Sprintf("%s#%d", task.ID, task.Attempt), task.Text)
	first, err := w.ask(ctx, conv)
	if err != nil {
		return Result{Status: "failed", Error: "model: " + err.Error()}
	}
	if first.tool == "" {
		return Result{Status: "failed", Error: "the model called no tool: " + first.text}
	}
	input := first.input
	out, err := w.call(ctx, task.ID, first.tool, input)
	var res Result
	switch {
	case err != nil && !w.cfg.Flaws.TrustTools:
		return Result{Status: "failed", Error: "tool " + first.tool + ": " + err.Error()}
	case err != nil:
		conv.answer(err.Error(), true)
		res = Result{Status: "done"} // the flaw: done without what the tool was to give
	default:
		res, err = w.verify(ctx, task.ID, first.tool, input, out)
		if err != nil {
			return Result{Status: "failed", Error: err.Error()}
		}
		conv.answer(string(out), false)
	}
	last, err := w.ask(ctx, conv)
	if err != nil {
		return Result{Status: "failed", Error: "model: " + err.Error()}
	}
	res.Summary = last.text
	return res
}

// ask is one turn of the model, retried by the worker's policy.
func (w *worker) ask(ctx context.Context, conv conversation) (turn, error) {
	for attempt := 1; ; attempt++ {
		t, err := conv.ask(ctx)
		if err == nil || ctx.Err() != nil {
			return t, err
		}
		if w.cfg.Flaws.RetryForever {
			if !pause(ctx, 50*time.Millisecond) {
				return t, ctx.Err()
			}
			continue
		}
		if attempt >= ModelAttempts || !retryable(err) {
			return t, err
		}
		if !pause(ctx, ModelBackoff) {
			return t, ctx.Err()
		}
	}
}

// effects are the tools that change something: their calls carry an
// idempotency key.
var effects = map[string]bool{"pay": true, "open_ticket": true}

// call makes a tool call, retried by the worker's policy; every attempt
// carries the task's idempotency key.
func (w *worker) call(ctx context.Context, taskID, tool string, input map[string]any) (json.RawMessage, error) {
	tc := w.tools[tool]
	if tc == nil {
		return nil, fmt.Errorf("no tool %q", tool)
	}
	args := map[string]any{}
	for k, v := range input {
		args[k] = v
	}
	var err error
	backoff := ToolBackoff
	for attempt := 1; attempt <= ToolAttempts; attempt++ {
		if effects[tool] {
			args["key"] = taskID
			if w.cfg.Flaws.NewKeyPerAttempt {
				args["key"] = fmt.Sprintf("%s/%d", taskID, attempt)
			}
		}
		var out json.RawMessage
		if out, err = tc.call(ctx, tool, args); err == nil {
			return out, nil
		}
		if ctx.Err() != nil || attempt == ToolAttempts || !pause(ctx, backoff) {
			break
		}
		backoff *= 2
	}
	return nil, err
}

// verify reads the store's own record of what the tool said it did (the
// receipt, the ticket) through another tool, checks it is what was asked
// for, and answers from that record.
func (w *worker) verify(ctx context.Context, taskID, tool string, asked map[string]any, out json.RawMessage) (Result, error) {
	switch tool {
	case "pay":
		var said Payment
		if err := json.Unmarshal(out, &said); err != nil {
			return Result{}, fmt.Errorf("pay: %v", err)
		}
		if w.cfg.Flaws.TrustTools {
			return Result{Status: "done", Payment: &said}, nil
		}
		rec, err := w.call(ctx, taskID, "receipt", map[string]any{"receipt": said.Receipt})
		var truth Payment
		if err == nil {
			err = json.Unmarshal(rec, &truth)
		}
		if err != nil {
			return Result{}, fmt.Errorf("pay: receipt %s could not be checked: %v", said.Receipt, err)
		}
		if truth.Account != asked["account"] || float64(truth.Amount) != asked["amount"] {
			return Result{}, fmt.Errorf("pay: receipt %s is for %d to %s, not what was asked (%v to %v)", said.Receipt, truth.Amount, truth.Account, asked["amount"], asked["account"])
		}
		return Result{Status: "done", Payment: &truth}, nil
	case "open_ticket":
		var said Ticket
		if err := json.Unmarshal(out, &said); err != nil {
			return Result{}, fmt.Errorf("open_ticket: %v", err)
		}
		if w.cfg.Flaws.TrustTools {
			return Result{Status: "done", Ticket: &said}, nil
		}
		rec, err := w.call(ctx, taskID, "get_ticket", map[string]any{"ticket": said.Ticket})
		var truth Ticket
		if err == nil {
			err = json.Unmarshal(rec, &truth)
		}
		if err != nil {
			return Result{}, fmt.Errorf("open_ticket: ticket %s could not be checked: %v", said.Ticket, err)
		}
		if truth.Title != asked["title"] {
			return Result{}, fmt.Errorf("open_ticket: ticket %s is %q, not what was asked (%v)", said.Ticket, truth.Title, asked["title"])
		}
		return Result{Status: "done", Ticket: &truth}, nil
	}
	return Result{}, fmt.Errorf("no check for tool %q", tool)
}

// toolClient is a worker's MCP session with one server, reconnected when
// the server forgot it or the connection broke.
type toolClient struct {
	client *mcp.Client
	tr     *mcp.StreamableClientTransport

	mu         sync.Mutex
	cs         *mcp.ClientSession
	connecting chan struct{} // closed when the connect under way ends
}

func newToolClient(agent, endpoint string, rt http.RoundTripper) *toolClient {
	return &toolClient{
		client: mcp.NewClient(&mcp.Implementation{Name: agent, Version: "1.0.0"}, nil),
		tr:     &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: withoutDelete(rt)}},
	}
}

// withoutDelete keeps a session's DELETE off the network: the worker closes
// a session only when it broke (drop) or when the worker's node stops (a
// killed process sends nothing), and the servers reap what is left
// (SessionTimeout). It also keeps simulated time going: go-sdk's
// ClientSession.Close sends the DELETE while it holds its connection's lock
// (jsonrpc2.Connection.updateInFlight), and a call's cancel notification
// waits for that lock; in a synctest bubble a goroutine waiting on a lock is
// not durably blocked, so a DELETE that waits on the network (a paused
// server, latency) would stop simulated time for good.
func withoutDelete(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if r.Method != http.MethodDelete {
			return rt.RoundTrip(r)
		}
		return &http.Response{StatusCode: http.StatusNoContent, Status: "204 No Content", Header: http.Header{},
			Body: http.NoBody, Request: r}, nil
	})
}

// session returns the session, connecting one when there is none. The
// lock is never held while connecting: a call waits for a connect under
// way on a channel (in a synctest bubble a goroutine waiting on a lock is
// not durably blocked, and simulated time would stop while the connect
// waits on the network).
func (tc *toolClient) session(ctx context.Context) (*mcp.ClientSession, error) {
	for {
		tc.mu.Lock()
		cs, connecting := tc.cs, tc.connecting
		if cs == nil && connecting == nil {
			tc.connecting = make(chan struct{})
		}
		tc.mu.Unlock()
		switch {
		case cs != nil:
			return cs, nil
		case connecting != nil:
			select {
			case <-connecting:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		cs, err := tc.client.Connect(ctx, tc.tr, nil)
		tc.mu.Lock()
		if err == nil {
			tc.cs = cs
		}
		done := tc.connecting
		tc.connecting = nil
		tc.mu.Unlock()
		close(done)
		return cs, err
	}
}

// drop forgets cs, so that the next call connects anew.
func (tc *toolClient) drop(cs *mcp.ClientSession) {
	tc.mu.Lock()
	if tc.cs == cs {
		tc.cs = nil
	}
	tc.mu.Unlock()
	go cs.Close()
}

func (tc *toolClient) close() {
	tc.mu.Lock()
	cs := tc.cs
	tc.cs = nil
	tc.mu.Unlock()
	if cs != nil {
		cs.Close()
	}
}

// call is one tool call within ToolTimeout: its structured result, or an
// error (a failed call, a result with isError).
func (tc *toolClient) call(ctx context.Context, tool string, args map[string]any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, ToolTimeout)
	defer cancel()
	cs, err := tc.session(ctx)
	if err != nil {
		return nil, err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		// A JSON-RPC error is the server's answer, a deadline the
		// call's; anything else may have broken the session: the next
		// call connects anew.
		if !errors.As(err, new(*jsonrpc.Error)) && !errors.Is(err, context.DeadlineExceeded) {
			tc.drop(cs)
		}
		return nil, err
	}
	if res.IsError {
		text := ""
		if len(res.Content) > 0 {
			if tcx, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tcx.Text
			}
		}
		return nil, fmt.Errorf("%s answered an error: %s", tool, text)
	}
	return json.Marshal(res.StructuredContent)
}
