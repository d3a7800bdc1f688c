package agentwire

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// toolServer speaks enough of MCP's streamable HTTP for the transport:
// initialize gives session "s1", tools/call runs the tool (counted) and
// answers {"balance": 100} as JSON or as an event stream, GET opens the
// session's stream until the caller goes.
type toolServer struct {
	sse  bool
	mu   sync.Mutex
	runs int
}

func (s *toolServer) ran() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs
}

func (s *toolServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		pr, pw := io.Pipe()
		go func() { <-r.Context().Done(); pw.CloseWithError(r.Context().Err()) }()
		h := http.Header{}
		h.Set("Content-Type", "text/event-stream")
		return &http.Response{StatusCode: 200, Header: h, Body: pr, Request: r, ContentLength: -1}, nil
	}
	b, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(b, &m)
	res := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`
	if m.Method == "tools/call" {
		s.mu.Lock()
		s.runs++
		s.mu.Unlock()
		res = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"{\"balance\":100,\"account\":7}"}],"structuredContent":{"balance":100,"account":7}}}`
	}
	ctype, body := "application/json", res
	if s.sse {
		ctype, body = "text/event-stream", "id: 1\nevent: message\ndata: "+res+"\n\n"
	}
	out := respond(r, 200, ctype, body)
	if m.Method == "initialize" {
		out.Header.Set(sessionHeader, "s1")
	}
	return out, nil
}

func call(t *testing.T, rt http.RoundTripper, ctx context.Context, sid, method, tool string) (*http.Response, error) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":5,"method":"` + method + `","params":{"name":"` + tool + `","arguments":{}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://tools/mcp", strings.NewReader(body))
	if sid != "" {
		req.Header.Set(sessionHeader, sid)
	}
	return rt.RoundTrip(req)
}

type rpcAnswer struct {
	Result struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Structured map[string]float64 `json:"structuredContent"`
		IsError    bool               `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeAnswer(t *testing.T, res *http.Response) rpcAnswer {
	t.Helper()
	body := readAll(t, res)
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		_, data, ok := strings.Cut(body, "data: ")
		if !ok {
			t.Fatalf("no data in %q", body)
		}
		body, _, _ = strings.Cut(data, "\n")
	}
	var a rpcAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("answer %q: %v", body, err)
	}
	return a
}

func TestToolFaults(t *testing.T) {
	for _, sse := range []bool{false, true} {
		name := map[bool]string{false: "json", true: "sse"}[sse]
		t.Run(name+"/error", func(t *testing.T) {
			a, srv := New(), &toolServer{sse: sse}
			rt := a.MCP("w1", srv)
			a.FailTools(context.Background(), "w1", ToolFault{Kind: ToolError, Tools: []string{"pay"}, Message: "ledger down"})
			res, err := call(t, rt, context.Background(), "s1", "tools/call", "pay")
			if err != nil {
				t.Fatal(err)
			}
			if ans := decodeAnswer(t, res); !ans.Result.IsError || ans.Result.Content[0].Text != "ledger down" || srv.ran() != 0 {
				t.Errorf("%+v, tool ran %d times; want isError without running it", ans, srv.ran())
			}
			res, _ = call(t, rt, context.Background(), "s1", "tools/call", "balance")
			if ans := decodeAnswer(t, res); ans.Result.IsError || srv.ran() != 1 {
				t.Errorf("another tool: %+v, want it run", ans)
			}
		})
		t.Run(name+"/lie", func(t *testing.T) {
			a, srv := New(), &toolServer{sse: sse}
			rt := a.MCP("w1", srv)
			lift, _ := a.FailTools(context.Background(), "w1", ToolFault{Kind: ToolLie, Field: "balance", Offset: 50})
			res, err := call(t, rt, context.Background(), "s1", "tools/call", "balance")
			if err != nil {
				t.Fatal(err)
			}
			ans := decodeAnswer(t, res)
			if ans.Result.Structured["balance"] != 150 || ans.Result.Structured["account"] != 7 ||
				ans.Result.Content[0].Text != `{"account":7,"balance":150}` || srv.ran() != 1 {
				t.Errorf("%+v; want balance 150 in both forms, the account untouched, the tool run", ans)
			}
			lift(context.Background())
			res, _ = call(t, rt, context.Background(), "s1", "tools/call", "balance")
			if ans := decodeAnswer(t, res); ans.Result.Structured["balance"] != 100 {
				t.Errorf("after the lift: %+v", ans)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a, srv := New(), &toolServer{}
			rt := a.MCP("w1", srv)
			a.ToolTimeout(context.Background(), "w1", 5*time.Second)
			start := time.Now()
			res, err := call(t, rt, context.Background(), "s1", "tools/call", "pay")
			if err != nil {
				t.Fatal(err)
			}
			ans := decodeAnswer(t, res)
			if ans.Error == nil || ans.Error.Code != -32001 || time.Since(start) != 5*time.Second {
				t.Errorf("%+v after %v; want a JSON-RPC timeout after 5s", ans, time.Since(start))
			}
			synctest.Wait()
			if srv.ran() != 1 {
				t.Errorf("tool ran %d times, want once: the server got the call", srv.ran())
			}
			// A caller that gives up first sees its own deadline.
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if _, err := call(t, rt, ctx, "s1", "tools/call", "pay"); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("caller's deadline: %v", err)
			}
			synctest.Wait()
			// Other messages pass.
			res, err = call(t, rt, context.Background(), "s1", "tools/list", "")
			if err != nil || decodeAnswer(t, res).Error != nil {
				t.Errorf("tools/list under tool_timeout: %v", err)
			}
		})
	})
}

// TestDisconnectCutsAHeldCall: a drop cuts a caller waiting out a
// tool_timeout, as it cuts any exchange in flight.
func TestDisconnectCutsAHeldCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, srv := New(), &toolServer{}
		rt := a.MCP("w1", srv)
		a.ToolTimeout(context.Background(), "w1", 5*time.Second)
		start := time.Now()
		done := make(chan error)
		go func() {
			res, err := call(t, rt, context.Background(), "s1", "tools/call", "pay")
			if err == nil {
				res.Body.Close()
			}
			done <- err
		}()
		time.Sleep(time.Second)
		a.DisconnectMCP(context.Background(), "w1")
		if err := <-done; !errors.Is(err, syscall.ECONNRESET) || time.Since(start) != time.Second {
			t.Errorf("the held call got %v after %v, want the drop (ECONNRESET) at 1s", err, time.Since(start))
		}
		synctest.Wait()
		if srv.ran() != 1 {
			t.Errorf("the server ran the call %d times, want once (it had it before the drop)", srv.ran())
		}
		if h := a.Hits("w1"); h["mcp:disconnect"] != 1 {
			t.Errorf("hits %v, want the one call cut counted once", h)
		}
	})
}

func TestDisconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, srv := New(), &toolServer{}
		rt := a.MCP("w1", srv)
		req, _ := http.NewRequest(http.MethodGet, "http://tools/mcp", nil)
		req.Header.Set(sessionHeader, "s1")
		res, err := rt.RoundTrip(req) // the session's event stream
		if err != nil {
			t.Fatal(err)
		}
		read := make(chan error)
		go func() {
			_, err := io.ReadAll(res.Body)
			res.Body.Close()
			read <- err
		}()
		time.Sleep(time.Minute)
		lift, err := a.DisconnectMCP(context.Background(), "w1")
		if err != nil {
			t.Fatal(err)
		}
		var dropped *DroppedError
		if err := <-read; !errors.As(err, &dropped) || !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("stream read: %v, want the drop (ECONNRESET)", err)
		}
		_, err = call(t, rt, context.Background(), "s1", "tools/call", "pay")
		if !errors.Is(err, syscall.ECONNREFUSED) || srv.ran() != 0 {
			t.Errorf("call while down: %v, want ECONNREFUSED", err)
		}
		time.Sleep(DefaultMCPReconnect)
		res, err = call(t, rt, context.Background(), "s1", "tools/call", "pay")
		if err != nil || decodeAnswer(t, res).Result.IsError {
			t.Errorf("after the reconnect time: %v", err)
		}
		lift(context.Background()) // after it came back: nothing to do
		if h := a.Hits("w1"); h["mcp:disconnect"] != 1 || h["mcp:refused"] != 1 {
			t.Errorf("hits %v", h)
		}

		// Held down until lifted.
		b := New(WithMCPReconnect(-1))
		rt = b.MCP("w2", srv)
		lift, _ = b.DisconnectMCP(context.Background(), "w2")
		time.Sleep(time.Hour)
		if _, err := call(t, rt, context.Background(), "s1", "tools/list", ""); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("an hour later, unlifted: %v", err)
		}
		lift(context.Background())
		if res, err := call(t, rt, context.Background(), "s1", "tools/list", ""); err != nil {
			t.Errorf("lifted: %v", err)
		} else {
			readAll(t, res)
		}
	})
}

func TestForgetSessions(t *testing.T) {
	a, srv := New(), &toolServer{}
	rt := a.MCP("w1", srv)
	res, err := call(t, rt, context.Background(), "", "initialize", "")
	if err != nil || res.Header.Get(sessionHeader) != "s1" {
		t.Fatalf("initialize: %v", err)
	}
	readAll(t, res)
	if err := a.ForgetSessions(context.Background(), "w1"); err != nil {
		t.Fatal(err)
	}
	res, err = call(t, rt, context.Background(), "s1", "tools/call", "pay")
	if err != nil || res.StatusCode != 404 || readAll(t, res) != "session not found\n" || srv.ran() != 0 {
		t.Errorf("old session: %v %v, want 404 session not found", res.StatusCode, err)
	}
	res, err = call(t, rt, context.Background(), "s2", "tools/call", "pay")
	if err != nil || res.StatusCode != 200 || srv.ran() != 1 {
		t.Errorf("a session given after: %v", err)
	}
	readAll(t, res)
}

func TestMCPRefusals(t *testing.T) {
	a := New()
	a.LLM("model-only", OpenAI, nil)
	if _, err := a.DisconnectMCP(context.Background(), "model-only"); err == nil || !strings.Contains(err.Error(), "no MCP client") {
		t.Errorf("DisconnectMCP on an agent without MCP: %v", err)
	}
	if _, err := a.FailTools(context.Background(), "model-only", ToolFault{Kind: "explode"}); err == nil || !strings.Contains(err.Error(), `"explode"`) {
		t.Errorf("bad kind: %v", err)
	}
}

// TestCallerRequestUnchanged: the MCP transport sends a clone; the caller's
// request keeps its body and headers as they were.
func TestCallerRequestUnchanged(t *testing.T) {
	a, srv := New(), &toolServer{}
	rt := a.MCP("w1", srv)
	req, _ := http.NewRequest(http.MethodPost, "http://tools/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"pay"}}`))
	body, getBody := req.Body, req.GetBody
	res, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, res)
	if req.Body != body || req.GetBody == nil || getBody == nil {
		t.Errorf("the caller's request was changed")
	}
	if srv.ran() != 1 {
		t.Errorf("tool ran %d times", srv.ran())
	}
}

// TestLieInMultiLineData: an answer whose event data spans several lines
// is lied in, and goes back as one event with one data line.
func TestLieInMultiLineData(t *testing.T) {
	ev := "id: 4\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\r\ndata: \"result\":{\"structuredContent\":{\"balance\":100}}}\r\n\r\n"
	out, ok := lie([]byte(ev), true, json.RawMessage("5"), ToolFault{Kind: ToolLie, Offset: 1})
	want := "id: 4\r\nevent: message\r\ndata: {\"id\":5,\"jsonrpc\":\"2.0\",\"result\":{\"structuredContent\":{\"balance\":101}}}\r\n\r\n"
	if !ok || string(out) != want {
		t.Errorf("lie: %v %q, want %q", ok, out, want)
	}
}
