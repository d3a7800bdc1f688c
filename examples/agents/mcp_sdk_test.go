package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/agentwire"
	"github.com/ares-arena/arena/sim"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpRig is a ledger served on node "ledger" and an agent's go-sdk
// session to it through agentwire.
type mcpRig struct {
	w      *sim.World
	a      *agentwire.Agents
	store  *Store
	client *mcp.Client
	tr     *mcp.StreamableClientTransport
}

func newMCPRig(t *testing.T) *mcpRig {
	r := &mcpRig{w: sim.New(sim.WithSeed(1)), a: agentwire.New(), store: NewStore()}
	serveNode(t, r.w, "ledger", "tool", func() (http.Handler, func()) { return mcpServe(LedgerServer(r.store)) })
	agent, _ := r.w.AddNode("agent", sim.NodeConfig{Type: "worker"})
	r.client = mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	r.tr = &mcp.StreamableClientTransport{Endpoint: "http://ledger/mcp",
		HTTPClient: &http.Client{Transport: r.a.MCP("agent", agent.HTTPTransport())}}
	return r
}

func (r *mcpRig) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	cs, err := r.client.Connect(context.Background(), r.tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func pay(ctx context.Context, cs *mcp.ClientSession, key string) (*mcp.CallToolResult, error) {
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: "pay", Arguments: PayIn{Account: "acct-1", Amount: 100, Key: key}})
}

// describe says what a CallTool returned, for the table.
func describe(res *mcp.CallToolResult, err error) string {
	switch {
	case errors.Is(err, mcp.ErrSessionMissing):
		return "error: mcp.ErrSessionMissing"
	case errors.Is(err, syscall.ECONNRESET):
		return "error: ECONNRESET"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "error: ECONNREFUSED"
	case errors.Is(err, context.DeadlineExceeded):
		return "error: context.DeadlineExceeded"
	case err != nil && strings.Contains(err.Error(), "-32001"), err != nil && strings.Contains(err.Error(), "timed out"):
		return "error: JSON-RPC -32001 timed out"
	case err != nil:
		return "error: " + err.Error()
	case res.IsError:
		return "result isError: " + res.Content[0].(*mcp.TextContent).Text
	}
	b, _ := json.Marshal(res.StructuredContent)
	return "result " + string(b)
}

// faultTable is the rows of a table of what go-sdk returned.
type faultTable []string

func (tab *faultTable) row(fault, what, got string, payments int, waited time.Duration) {
	*tab = append(*tab, fmt.Sprintf("| %s | %s | %s | %d | %v |", fault, what, got, payments, waited))
}

func (tab faultTable) String() string { return strings.Join(tab, "\n") }

// expect fails t unless got begins with want.
func expect(t *testing.T, got, want string) {
	t.Helper()
	if !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestGoSDKUnderMCPFaults is the table of what go-sdk's client returns under
// each MCP and tool fault, and what the ledger did meanwhile.
func TestGoSDKUnderMCPFaults(t *testing.T) {
	var tab faultTable
	row := tab.row
	t.Run("mcp_disconnect", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newMCPRig(t)
			defer r.w.Close(context.Background())
			cs := r.connect(t)
			defer cs.Close()
			start := time.Now()
			done := make(chan string)
			go func() { done <- describe(pay(context.Background(), cs, "k1")) }()
			time.Sleep(ToolWork / 2) // the call is on the server
			r.a.DisconnectMCP(context.Background(), "agent")
			got := <-done
			synctest.Wait()
			row("mcp_disconnect", "call in flight", got, len(r.store.Payments()), time.Since(start))
			expect(t, got, "error: ECONNRESET")
			got = describe(pay(context.Background(), cs, "k2"))
			row("mcp_disconnect", "call while down", got, len(r.store.Payments()), 0)
			expect(t, got, "error: ECONNREFUSED")
			time.Sleep(agentwire.DefaultMCPReconnect)
			got = describe(pay(context.Background(), cs, "k1"))
			row("mcp_disconnect", "same session, 1s later, same key", got, len(r.store.Payments()), 0)
			expect(t, got, `result {"account":"acct-1","amount":100,"balance":100,"receipt":"r-1"}`)
		})
	})
	t.Run("mcp_session_loss", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newMCPRig(t)
			defer r.w.Close(context.Background())
			cs := r.connect(t)
			r.a.ForgetSessions(context.Background(), "agent")
			got := describe(pay(context.Background(), cs, "k1"))
			cs.Close()
			row("mcp_session_loss", "next call", got, len(r.store.Payments()), 0)
			expect(t, got, "error: mcp.ErrSessionMissing")
			cs = r.connect(t)
			got = describe(pay(context.Background(), cs, "k1"))
			cs.Close()
			row("mcp_session_loss", "a new session", got, len(r.store.Payments()), 0)
			expect(t, got, "result ")
		})
	})
	t.Run("tool_timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newMCPRig(t)
			defer r.w.Close(context.Background())
			cs := r.connect(t)
			defer cs.Close()
			r.a.ToolTimeout(context.Background(), "agent", 5*time.Second)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			start := time.Now()
			got := describe(pay(ctx, cs, "k1"))
			cancel()
			row("tool_timeout 5s", "caller's deadline 10s", got, len(r.store.Payments()), time.Since(start))
			expect(t, got, "error: JSON-RPC -32001")
			ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
			start = time.Now()
			got = describe(pay(ctx, cs, "k2"))
			cancel()
			synctest.Wait()
			row("tool_timeout 5s", "caller's deadline 2s", got, len(r.store.Payments()), time.Since(start))
			expect(t, got, "error: context.DeadlineExceeded")
			if n := len(r.store.Payments()); n != 2 {
				t.Errorf("%d payments, want 2: the server ran both calls their callers saw fail", n)
			}
		})
	})
	t.Run("tool_error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newMCPRig(t)
			defer r.w.Close(context.Background())
			cs := r.connect(t)
			defer cs.Close()
			r.a.FailTools(context.Background(), "agent", agentwire.ToolFault{Kind: agentwire.ToolError, Message: "ledger unavailable"})
			got := describe(pay(context.Background(), cs, "k1"))
			row("tool_error", "call", got, len(r.store.Payments()), 0)
			expect(t, got, "result isError: ledger unavailable")
		})
	})
	t.Run("tool_lie", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newMCPRig(t)
			defer r.w.Close(context.Background())
			cs := r.connect(t)
			defer cs.Close()
			r.a.FailTools(context.Background(), "agent", agentwire.ToolFault{Kind: agentwire.ToolLie, Tools: []string{"pay"}, Field: "balance", Offset: 1000})
			got := describe(pay(context.Background(), cs, "k1"))
			row("tool_lie balance +1000", "call", got, len(r.store.Payments()), 0)
			expect(t, got, `result {"account":"acct-1","amount":100,"balance":1100,"receipt":"r-1"}`)
			if p := r.store.Payments(); p[0].Balance != 100 {
				t.Errorf("the ledger says %d", p[0].Balance)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "receipt", Arguments: ReceiptIn{Receipt: "r-1"}})
			got = describe(res, err)
			row("tool_lie balance +1000", "receipt (another tool)", got, len(r.store.Payments()), 0)
			expect(t, got, `result {"account":"acct-1","amount":100,"balance":100,"receipt":"r-1"}`)
		})
	})
	t.Logf("fault | call | go-sdk returned | payments applied | waited (simulated)\n%s", tab)
}

// serveNode serves the handler made by h (anew at each start, with what
// ends it) on the world's node name, port 80.
func serveNode(t *testing.T, w *sim.World, name, typ string, h func() (http.Handler, func())) *sim.Node {
	t.Helper()
	n, err := w.AddNode(name, sim.NodeConfig{Type: typ, RestartAfter: time.Second, Start: startHTTP(h), Stop: stopHTTP})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
