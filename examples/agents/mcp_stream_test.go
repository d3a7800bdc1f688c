package agents

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/agentwire"
	"github.com/ares-arena/arena/arenatest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipeRig is a ledger served in memory (go-sdk's IOTransport over one end
// of a net.Pipe, as mcp.NewInMemoryTransports does) and an agent's
// session to it over the other end, through agentwire.MCPConn.
type pipeRig struct {
	a     *agentwire.Agents
	store *Store
}

// connect opens a new stream to a new server session of the ledger.
func (r *pipeRig) connect(t *testing.T) (*mcp.ClientSession, error) {
	t.Helper()
	c1, c2 := net.Pipe()
	ss, err := LedgerServer(r.store).Connect(context.Background(), &mcp.IOTransport{Reader: c1, Writer: c1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn := r.a.MCPConn("agent", c2)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	return client.Connect(context.Background(), &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
}

func (r *pipeRig) mustConnect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	cs, err := r.connect(t)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// describeStream says what a call over a stream returned, for the table.
func describeStream(res *mcp.CallToolResult, err error) string {
	switch {
	case errors.Is(err, mcp.ErrConnectionClosed):
		return "error: mcp.ErrConnectionClosed"
	case errors.Is(err, io.EOF):
		return "error: EOF"
	}
	return describe(res, err)
}

// TestGoSDKUnderStreamFaults is the table of what go-sdk's client returns,
// over its in-memory transport (the stdio transport's framing), under each
// MCP and tool fault, and what the ledger did meanwhile.
func TestGoSDKUnderStreamFaults(t *testing.T) {
	var tab faultTable
	row := tab.row
	run := func(name string, f func(t *testing.T, r *pipeRig)) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f(t, &pipeRig{a: agentwire.New(), store: NewStore()})
			})
		})
	}
	run("mcp_disconnect", func(t *testing.T, r *pipeRig) {
		cs := r.mustConnect(t)
		defer cs.Close()
		start := time.Now()
		done := make(chan string)
		go func() { done <- describeStream(pay(context.Background(), cs, "k1")) }()
		time.Sleep(ToolWork / 2) // the call is on the server
		r.a.DisconnectMCP(context.Background(), "agent")
		got := <-done
		synctest.Wait()
		row("mcp_disconnect", "call in flight", got, len(r.store.Payments()), time.Since(start))
		expect(t, got, "error: ECONNRESET")
		got = describeStream(pay(context.Background(), cs, "k2"))
		row("mcp_disconnect", "next call, same session", got, len(r.store.Payments()), 0)
		expect(t, got, "error: mcp.ErrConnectionClosed")
		_, err := r.connect(t)
		got = describeStream(nil, err)
		row("mcp_disconnect", "a new stream while down (refused: go-sdk does not pass ECONNREFUSED on)", got, len(r.store.Payments()), 0)
		expect(t, got, "error: mcp.ErrConnectionClosed")
		if n := r.a.Hits("agent")["mcp:refused"]; n != 1 {
			t.Errorf("%d streams refused, want the one opened while down", n)
		}
		time.Sleep(agentwire.DefaultMCPReconnect)
		cs2 := r.mustConnect(t)
		defer cs2.Close()
		got = describeStream(pay(context.Background(), cs2, "k1"))
		row("mcp_disconnect", "a new stream 1s later, same key", got, len(r.store.Payments()), 0)
		expect(t, got, `result {"account":"acct-1","amount":100,"balance":100,"receipt":"r-1"}`)
	})
	run("mcp_session_loss", func(t *testing.T, r *pipeRig) {
		cs := r.mustConnect(t)
		defer cs.Close()
		r.a.ForgetSessions(context.Background(), "agent")
		synctest.Wait()
		got := describeStream(pay(context.Background(), cs, "k1"))
		row("mcp_session_loss", "next call", got, len(r.store.Payments()), 0)
		expect(t, got, "error: mcp.ErrConnectionClosed")
		cs2 := r.mustConnect(t)
		defer cs2.Close()
		got = describeStream(pay(context.Background(), cs2, "k1"))
		row("mcp_session_loss", "a new stream", got, len(r.store.Payments()), 0)
		expect(t, got, "result ")
	})
	run("tool_timeout", func(t *testing.T, r *pipeRig) {
		cs := r.mustConnect(t)
		defer cs.Close()
		lift, _ := r.a.ToolTimeout(context.Background(), "agent", 5*time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		start := time.Now()
		got := describeStream(pay(ctx, cs, "k1"))
		cancel()
		row("tool_timeout 5s", "caller's deadline 10s", got, len(r.store.Payments()), time.Since(start))
		expect(t, got, "error: JSON-RPC -32001")
		ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
		start = time.Now()
		got = describeStream(pay(ctx, cs, "k2"))
		cancel()
		waited := time.Since(start)
		time.Sleep(time.Minute) // no late answer breaks the session
		lift(context.Background())
		got2 := describeStream(cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "receipt", Arguments: ReceiptIn{Receipt: "r-2"}}))
		row("tool_timeout 5s", "caller's deadline 2s", got, len(r.store.Payments()), waited)
		expect(t, got, "error: context.DeadlineExceeded")
		if n := len(r.store.Payments()); n != 2 {
			t.Errorf("%d payments, want 2: the server ran both calls their callers saw fail", n)
		}
		expect(t, got2, `result {"account":"acct-1","amount":100,"balance":200,"receipt":"r-2"}`)
	})
	run("tool_error", func(t *testing.T, r *pipeRig) {
		cs := r.mustConnect(t)
		defer cs.Close()
		r.a.FailTools(context.Background(), "agent", agentwire.ToolFault{Kind: agentwire.ToolError, Message: "ledger unavailable"})
		got := describeStream(pay(context.Background(), cs, "k1"))
		row("tool_error", "call", got, len(r.store.Payments()), 0)
		expect(t, got, "result isError: ledger unavailable")
	})
	run("tool_lie", func(t *testing.T, r *pipeRig) {
		cs := r.mustConnect(t)
		defer cs.Close()
		r.a.FailTools(context.Background(), "agent", agentwire.ToolFault{Kind: agentwire.ToolLie, Tools: []string{"pay"}, Field: "balance", Offset: 1000})
		got := describeStream(pay(context.Background(), cs, "k1"))
		row("tool_lie balance +1000", "call", got, len(r.store.Payments()), 0)
		expect(t, got, `result {"account":"acct-1","amount":100,"balance":1100,"receipt":"r-1"}`)
		got = describeStream(cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "receipt", Arguments: ReceiptIn{Receipt: "r-1"}}))
		row("tool_lie balance +1000", "receipt (another tool)", got, len(r.store.Payments()), 0)
		expect(t, got, `result {"account":"acct-1","amount":100,"balance":100,"receipt":"r-1"}`)
	})
	t.Logf("fault | call | go-sdk returned (in-memory stream) | payments applied | waited (simulated)\n%s", tab)
}

// stdioServerEnv makes the test binary a ledger served over stdio
// (TestMain), for mcp.CommandTransport's case.
const stdioServerEnv = "AGENTS_STDIO_LEDGER"

// serveStdioLedger serves a ledger of its own over stdin and stdout until
// stdin ends.
func serveStdioLedger() error {
	return LedgerServer(NewStore()).Run(context.Background(), &mcp.StdioTransport{})
}

// command is a command's stdout and stdin as one stream.
type command struct {
	io.ReadCloser
	io.WriteCloser
}

func (c command) Close() error {
	return errors.Join(c.WriteCloser.Close(), c.ReadCloser.Close())
}

// process is a started command: done is closed when it has ended, with
// err.
type process struct {
	done chan struct{}
	err  error
}

// startLedger starts the test binary as a stdio ledger and returns its
// stream, through agentwire.MCPConn, and the process.
func startLedger(t *testing.T, a *agentwire.Agents) (io.ReadWriteCloser, *process) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), stdioServerEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-p.done })
	return a.MCPConn("agent", command{stdout, stdin}), p
}

// TestGoSDKOverCommandUnderFaults puts a go-sdk client of a ledger process
// (the stdio transport of mcp.CommandTransport, a command's stdin and
// stdout) under the tool faults and a disconnect, in real time: the fault
// acts on the process's stream, and a drop ends the process as a broken
// pipe would.
func TestGoSDKOverCommandUnderFaults(t *testing.T) {
	if arenatest.Deterministic() {
		t.Skip("starts the test binary again (os/exec), which wasip1 cannot")
	}
	a := agentwire.New()
	conn, proc := startLedger(t, a)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	lift, _ := a.FailTools(ctx, "agent", agentwire.ToolFault{Kind: agentwire.ToolLie, Tools: []string{"pay"}, Field: "balance", Offset: 1000})
	if got := describeStream(pay(ctx, cs, "k1")); got != `result {"account":"acct-1","amount":100,"balance":1100,"receipt":"r-1"}` {
		t.Errorf("tool_lie: %s", got)
	}
	lift(ctx)
	lift, _ = a.FailTools(ctx, "agent", agentwire.ToolFault{Kind: agentwire.ToolHang, Timeout: 300 * time.Millisecond})
	start := time.Now()
	got := describeStream(pay(ctx, cs, "k2"))
	lift(ctx)
	if !strings.HasPrefix(got, "error: JSON-RPC -32001") || time.Since(start) < 300*time.Millisecond {
		t.Errorf("tool_timeout: %s after %v", got, time.Since(start))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "receipt", Arguments: ReceiptIn{Receipt: "r-2"}})
	if got := describeStream(res, err); got != `result {"account":"acct-1","amount":100,"balance":200,"receipt":"r-2"}` {
		t.Errorf("the call that timed out was not paid in the process: %s", got)
	}

	a.DisconnectMCP(ctx, "agent")
	if got := describeStream(cs.CallTool(ctx, &mcp.CallToolParams{Name: "receipt", Arguments: ReceiptIn{Receipt: "r-1"}})); !strings.HasPrefix(got, "error: ") {
		t.Errorf("a call after the drop: %s", got)
	}
	select {
	case <-proc.done:
		if proc.err != nil {
			t.Errorf("the ledger process ended with %v, want a clean exit on its stdin's end", proc.err)
		}
	case <-time.After(30 * time.Second):
		t.Error("the ledger process did not end after its stream was dropped")
	}
}
