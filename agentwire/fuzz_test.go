package agentwire

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
)

// FuzzToolMessages: whatever an MCP request or answer holds, reading a
// tools/call sends the body as it was, in a clone of the request, and a lie rewrites only an answer
// to the call, into valid JSON, never panicking.
func FuzzToolMessages(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"pay"}}`),
		[]byte(`{"jsonrpc":"2.0","id":5,"result":{"structuredContent":{"balance":100},"content":[{"type":"text","text":"balance: 100"}]}}`), false)
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/call"}`),
		[]byte("id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"content\":[]}}\n\n"), true)
	f.Add([]byte(`[`), []byte("data: {\n\n"), true)
	f.Add([]byte(`{"id":[1],"method":"tools/call"}`), []byte(`{"id":[1],"result":{}}`), false) // an array id panicked sameID
	f.Fuzz(func(t *testing.T, req, answer []byte, sse bool) {
		r, _ := http.NewRequest(http.MethodPost, "http://tools/mcp", bytes.NewReader(req))
		out, call, err := toolCall(r)
		if err != nil {
			t.Fatal(err)
		}
		if out == r && len(req) > 0 { // an empty body is NoBody: nothing read, nothing to clone
			t.Fatal("toolCall hands back the caller's request: it must send a clone")
		}
		if back, _ := io.ReadAll(out.Body); !bytes.Equal(back, req) {
			t.Fatalf("body sent as %q, want %q", back, req)
		}
		if call == nil {
			return
		}
		lied, ok := lie(answer, sse, call.id, ToolFault{Kind: ToolLie, Offset: 1, Field: "balance"})
		if !ok {
			return
		}
		if !sse && !json.Valid(lied) {
			t.Fatalf("lie made invalid JSON of %q: %q", answer, lied)
		}
		if sse && strings.Count(string(lied), "\n\n") != strings.Count(string(answer), "\n\n") {
			t.Fatalf("lie changed the events of %q: %q", answer, lied)
		}
	})
}

// FuzzStreamFault: whatever a model's answer holds, a stream fault hands
// out a prefix of it (stream_cut), all of it (slow_first_token,
// stream_stall), or all of it with one event added (malformed_event).
func FuzzStreamFault(f *testing.F) {
	f.Add([]byte("event: a\ndata: {}\n\nevent: b\ndata: {}\n\n"), true, 1)
	f.Add([]byte(`{"id":"x"}`), false, 1)
	f.Add([]byte("data: 1\r\n\r\ndata: 2\n\n"), true, 0)
	f.Fuzz(func(t *testing.T, body []byte, sse bool, after int) {
		after = max(0, min(after, 64))
		for _, k := range []ErrorKind{ErrStreamCut, ErrStreamStall, ErrMalformedEvent, ErrSlowFirstToken} {
			f := LLMFault{Error: k, AfterEvents: after, Delay: 1}
			rc := newStreamFault(context.Background(), io.NopCloser(bytes.NewReader(body)), f, OpenAI, sse)
			out, err := io.ReadAll(rc)
			switch k {
			case ErrStreamCut:
				if !bytes.HasPrefix(body, out) || err != nil && err != io.ErrUnexpectedEOF {
					t.Fatalf("%s: %q, %v from %q", k, out, err, body)
				}
			case ErrMalformedEvent:
				if err != nil || len(out) < len(body) {
					t.Fatalf("%s: %q, %v from %q", k, out, err, body)
				}
			default:
				if err != nil || !bytes.Equal(out, body) {
					t.Fatalf("%s: %q, %v from %q", k, out, err, body)
				}
			}
		}
	})
}

// FuzzMCPConn: whatever the client and the server write on a stream, and
// however the client's writes are cut, the server gets the client's
// messages whole and in order, and the client gets each of the server's
// messages, as it came or (an answer to a lied-in call) as valid JSON.
func FuzzMCPConn(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay"}}`+"\n"+`{"id":2}`+"\n"),
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"balance":100}}}`+"\n"), uint8(7))
	f.Add([]byte("not json\n\n{\"method\":\"tools/call\",\"id\":[1]}\npartial"), []byte("{\"id\":[1],\"result\":{}}\nx"), uint8(1))
	f.Fuzz(func(t *testing.T, in, out []byte, cut uint8) {
		synctest.Test(t, func(t *testing.T) {
			a := New()
			c1, c2 := net.Pipe()
			conn := a.MCPConn("w1", c2)
			defer conn.Close()
			a.FailTools(context.Background(), "w1", ToolFault{Kind: ToolLie})
			got := make(chan []byte)
			go func() { b, _ := io.ReadAll(c1); got <- b }()
			step := max(1, int(cut))
			for i := 0; i < len(in); i += step {
				if _, err := conn.Write(in[i:min(i+step, len(in))]); err != nil {
					t.Fatalf("write: %v", err)
				}
			}
			whole := in[:bytes.LastIndexByte(in, '\n')+1]
			synctest.Wait()
			read := make(chan []byte)
			go func() { b, _ := io.ReadAll(conn); read <- b }()
			if _, err := c1.Write(out); err != nil && len(out) > 0 {
				t.Fatalf("server write: %v", err)
			}
			c1.Close()
			if b := <-got; !bytes.Equal(b, whole) {
				t.Fatalf("the server got %q, want %q", b, whole)
			}
			back := bytes.SplitAfter(<-read, []byte("\n"))
			sent := bytes.SplitAfter(out, []byte("\n"))
			if len(back) != len(sent) {
				t.Fatalf("the client got %q, want the messages of %q", back, sent)
			}
			for i := range sent {
				if !bytes.Equal(back[i], sent[i]) && !json.Valid(back[i]) {
					t.Fatalf("message %d: %q, want %q or a lie in valid JSON", i, back[i], sent[i])
				}
			}
		})
	})
}
