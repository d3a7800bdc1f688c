package agentwire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// streamServer is an MCP server on a newline-delimited stream: each
// tools/call runs (counted) for work and answers {"balance": 100}; any
// other request is answered at once; it records what reached it.
type streamServer struct {
	conn net.Conn
	work time.Duration

	mu   sync.Mutex
	runs int
	got  []string // the messages that reached it
	at   []time.Time
	eof  chan struct{}
	wmu  sync.Mutex
}

func newStreamServer(conn net.Conn, work time.Duration) *streamServer {
	s := &streamServer{conn: conn, work: work, eof: make(chan struct{})}
	go s.serve()
	return s
}

func (s *streamServer) serve() {
	defer close(s.eof)
	defer s.conn.Close()
	sc := bufio.NewScanner(s.conn)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		s.got = append(s.got, line)
		s.at = append(s.at, time.Now())
		s.mu.Unlock()
		var m streamMessage
		if json.Unmarshal([]byte(line), &m) != nil || len(m.ID) == 0 || m.Method == "" {
			continue
		}
		if m.Method != "tools/call" {
			s.write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
			continue
		}
		go func() {
			time.Sleep(s.work)
			s.mu.Lock()
			s.runs++
			s.mu.Unlock()
			s.write(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"{\"balance\":100,\"account\":7}"}],"structuredContent":{"balance":100,"account":7}}}`)
		}()
	}
}

func (s *streamServer) write(msg string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.conn.Write([]byte(msg + "\n"))
}

func (s *streamServer) ran() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs
}

func (s *streamServer) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// streamRig is agent w1's stream to a streamServer through MCPConn, and
// what the client reads from it, message by message.
type streamRig struct {
	srv  *streamServer
	conn io.ReadWriteCloser
	msgs chan string
	err  chan error
}

func newStreamRig(a *Agents, work time.Duration) *streamRig {
	c1, c2 := net.Pipe()
	r := &streamRig{srv: newStreamServer(c1, work), conn: a.MCPConn("w1", c2), msgs: make(chan string, 16), err: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(r.conn)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			r.msgs <- sc.Text()
		}
		r.err <- sc.Err()
	}()
	return r
}

func (r *streamRig) send(t *testing.T, msg string) {
	t.Helper()
	if _, err := r.conn.Write([]byte(msg + "\n")); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func toolCallMsg(id, tool string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

// next is the client's next message, or "" when none comes in d.
func (r *streamRig) next(d time.Duration) string {
	select {
	case m := <-r.msgs:
		return m
	default:
	}
	select {
	case m := <-r.msgs:
		return m
	case <-time.After(d):
		return ""
	}
}

func TestMCPConnToolFaults(t *testing.T) {
	cases := []struct {
		name   string
		fault  ToolFault
		want   string // in the answer
		runs   int
		waited time.Duration
	}{
		{"no fault", ToolFault{Kind: ToolError, Tools: []string{"other"}}, `"structuredContent":{"balance":100,"account":7}`, 1, time.Second},
		{"tool_error", ToolFault{Kind: ToolError, Message: "ledger down"}, `"isError":true`, 0, 0},
		{"tool_timeout", ToolFault{Kind: ToolHang, Timeout: 5 * time.Second}, `"code":-32001`, 1, 5 * time.Second},
		{"tool_lie", ToolFault{Kind: ToolLie, Field: "balance", Offset: 1000}, `"structuredContent":{"account":7,"balance":1100}`, 1, time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := New()
				r := newStreamRig(a, time.Second)
				defer r.conn.Close()
				if _, err := a.FailTools(context.Background(), "w1", tc.fault); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				r.send(t, toolCallMsg(`"c-1"`, "pay"))
				got := r.next(time.Minute)
				if !strings.Contains(got, tc.want) || !strings.Contains(got, `"id":"c-1"`) {
					t.Errorf("answer %s, want %s for id c-1", got, tc.want)
				}
				if waited := time.Since(start); waited != tc.waited {
					t.Errorf("answered after %v, want %v", waited, tc.waited)
				}
				time.Sleep(time.Minute) // the held call's own answer, if any
				synctest.Wait()
				if extra := r.next(0); extra != "" {
					t.Errorf("the client got another message: %s", extra)
				}
				if n := r.srv.ran(); n != tc.runs {
					t.Errorf("the server ran the tool %d times, want %d", n, tc.runs)
				}
			})
		})
	}
}

func TestMCPConnHeldCallCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, time.Second)
		defer r.conn.Close()
		a.ToolTimeout(context.Background(), "w1", 5*time.Second)
		r.send(t, toolCallMsg("7", "pay"))
		time.Sleep(2 * time.Second)
		r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7.0}}`)
		r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
		if got := r.next(time.Minute); got != "" {
			t.Errorf("a cancelled call was answered: %s", got)
		}
		if got := r.srv.received(); len(got) != 3 {
			t.Errorf("the server got %d messages, want the call and both notifications: %q", len(got), got)
		}
	})
}

func TestMCPConnLieOnlyInItsAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, time.Second)
		defer r.conn.Close()
		a.FailTools(context.Background(), "w1", ToolFault{Kind: ToolLie, Tools: []string{"pay"}})
		r.send(t, toolCallMsg("1", "receipt")+"\n"+toolCallMsg("2", "pay")) // two messages in one write
		got := map[string]string{}
		for range 2 {
			m := r.next(time.Minute)
			var v struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal([]byte(m), &v)
			got[string(v.ID)] = m
		}
		if !strings.Contains(got["1"], `"balance":100,`) {
			t.Errorf("receipt's answer changed: %s", got["1"])
		}
		if !strings.Contains(got["2"], `"balance":101`) || !strings.Contains(got["2"], `"account":8`) {
			t.Errorf("pay's answer: %s, want every number +1", got["2"])
		}
	})
}

func TestMCPConnSplitWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, 0)
		defer r.conn.Close()
		msg := `{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
		for _, part := range []string{msg[:5], msg[5:20], msg[20:]} {
			if _, err := r.conn.Write([]byte(part)); err != nil {
				t.Fatal(err)
			}
		}
		if got := r.next(time.Second); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
			t.Errorf("answer %q", got)
		}
		if got := r.srv.received(); len(got) != 1 || got[0]+"\n" != msg {
			t.Errorf("the server got %q, want the message whole", got)
		}
	})
}

func TestMCPConnLongMessagesPass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, 0)
		defer r.conn.Close()
		a.FailTools(context.Background(), "w1", ToolFault{Kind: ToolError})
		long := toolCallMsg("9", "pay")
		long = long[:len(long)-1] + `,"pad":"` + strings.Repeat("x", maxMessage) + `"}`
		r.send(t, long)
		r.send(t, toolCallMsg("10", "pay"))
		answers := map[bool]string{} // by whether it is call 10's
		for range 2 {
			m := r.next(time.Minute)
			answers[strings.Contains(m, `"id":10`)] = m
		}
		if got := answers[true]; !strings.Contains(got, `"isError":true`) {
			t.Errorf("call 10: %.200s, want isError", got)
		}
		if got := answers[false]; !strings.Contains(got, `"id":9`) || !strings.Contains(got, `"balance":100`) {
			t.Errorf("the long call: %.200s, want the server's answer", got)
		}
		if got := r.srv.received(); len(got) != 1 || got[0] != long {
			t.Errorf("the server got %d messages, want the long one whole", len(got))
		}
	})
}

func TestMCPConnDisconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, 10*time.Second)
		defer r.conn.Close()
		r.send(t, toolCallMsg("1", "pay"))
		time.Sleep(time.Second)
		if _, err := a.DisconnectMCP(context.Background(), "w1"); err != nil {
			t.Fatal(err)
		}
		err := <-r.err
		var d *DroppedError
		if !errors.As(err, &d) || !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("the client read %v, want a DroppedError (ECONNRESET)", err)
		}
		<-r.srv.eof // the server read EOF
		if _, err := r.conn.Write([]byte("{}\n")); !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("a write after the drop: %v, want ECONNRESET", err)
		}

		down := newStreamRig(a, 0)
		if err := <-down.err; !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("a stream opened while down read %v, want ECONNREFUSED", err)
		}
		<-down.srv.eof
		down.conn.Close()

		time.Sleep(DefaultMCPReconnect)
		again := newStreamRig(a, 0)
		defer again.conn.Close()
		again.send(t, toolCallMsg("2", "pay"))
		if got := again.next(time.Minute); !strings.Contains(got, `"balance":100`) {
			t.Errorf("after the reconnect time: %s", got)
		}
		if h := a.Hits("w1"); h["mcp:disconnect"] != 1 || h["mcp:refused"] != 1 {
			t.Errorf("hits %v", h)
		}
		time.Sleep(time.Minute) // the cut call's work ends
	})
}

func TestMCPConnServerGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, 0)
		defer r.conn.Close()
		if err := a.ForgetSessions(context.Background(), "w1"); err != nil {
			t.Fatal(err)
		}
		if err := <-r.err; err != nil {
			t.Errorf("the client read %v, want EOF (a server that exited)", err)
		}
		<-r.srv.eof
		if _, err := r.conn.Write([]byte("{}\n")); !errors.Is(err, syscall.EPIPE) {
			t.Errorf("a write after the server went: %v, want EPIPE", err)
		}
		again := newStreamRig(a, 0)
		defer again.conn.Close()
		again.send(t, toolCallMsg("2", "pay"))
		if got := again.next(time.Minute); !strings.Contains(got, `"balance":100`) {
			t.Errorf("a new stream: %s", got)
		}
		if h := a.Hits("w1"); h["mcp:session_lost"] != 1 {
			t.Errorf("hits %v", h)
		}
	})
}

func TestMCPConnSlowAgent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, 0)
		defer r.conn.Close()
		lift, err := a.SlowAgent(context.Background(), "w1", 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		r.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		r.send(t, `{"jsonrpc":"2.0","id":1,"result":{}}`) // an answer to the server: not slowed, but behind
		if time.Since(start) != 0 {
			t.Errorf("the writes took %v, want them queued at once", time.Since(start))
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		r.srv.mu.Lock()
		at := append([]time.Time(nil), r.srv.at...)
		r.srv.mu.Unlock()
		if len(at) != 2 || at[0].Sub(start) != 3*time.Second || at[1] != at[0] {
			t.Errorf("reached the server at %v (start %v), want the request 3s late and the answer right after", at, start)
		}
		if got := r.next(0); !strings.Contains(got, `"id":1`) {
			t.Errorf("the ping's answer: %q", got)
		}
		lift(context.Background())
		start = time.Now()
		r.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		if got := r.next(time.Minute); got == "" || time.Since(start) != 0 {
			t.Errorf("after the lift: %q after %v", got, time.Since(start))
		}
	})
}

func TestMCPConnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, time.Second)
		a.ToolTimeout(context.Background(), "w1", 5*time.Second)
		r.send(t, toolCallMsg("1", "pay"))
		if err := r.conn.Close(); err != nil {
			t.Fatal(err)
		}
		<-r.srv.eof
		if err := <-r.err; !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("a read after Close: %v", err)
		}
		if _, err := r.conn.Write([]byte("{}\n")); err == nil {
			t.Error("a write after Close succeeded")
		}
		time.Sleep(time.Minute) // no timer left to answer
		a.mu.Lock()
		n := len(a.agents["w1"].mcp.flights)
		a.mu.Unlock()
		if n != 0 {
			t.Errorf("%d flights left after Close", n)
		}
	})
}

// readMessages reads the messages the client gets from conn until it
// ends, and hands them over then.
func readMessages(conn io.Reader) <-chan []string {
	got := make(chan []string, 1)
	go func() {
		var msgs []string
		sc := bufio.NewScanner(conn)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			msgs = append(msgs, sc.Text())
		}
		got <- msgs
	}()
	return got
}

// shortened is msgs for a failure message: each cut short, with its length.
func shortened(msgs []string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = fmt.Sprintf("%.60s…(%d bytes)", m, len(m))
	}
	return out
}

// TestMCPConnLongHeldAnswerDropped: the answer to a held tool_timeout call
// is dropped even when it is too long to read whole; the client gets the
// fault's error alone.
func TestMCPConnLongHeldAnswerDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		c1, c2 := net.Pipe()
		conn := a.MCPConn("w1", c2)
		defer conn.Close()
		a.ToolTimeout(context.Background(), "w1", 5*time.Second)
		go func() {
			br := bufio.NewReader(c1)
			br.ReadBytes('\n')
			c1.Write([]byte(`{"jsonrpc":"2.0","id":4,"result":{"pad":"` + strings.Repeat("x", maxMessage+100<<10) + `"}}` + "\n"))
			c1.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/progress"}` + "\n"))
		}()
		got := readMessages(conn)
		conn.Write([]byte(toolCallMsg("4", "pay") + "\n"))
		time.Sleep(time.Minute)
		c1.Close()
		msgs := <-got
		if len(msgs) != 2 || !strings.Contains(msgs[0], "progress") || !strings.Contains(msgs[1], `"code":-32001`) {
			t.Errorf("the client got %q, want the notification and then the fault's -32001 alone", shortened(msgs))
		}
	})
}

// TestMCPConnWriteErrors: what a write fails with once the stream ended;
// a message still waiting out slow_agent then never leaves.
func TestMCPConnWriteErrors(t *testing.T) {
	cases := []struct {
		name string
		end  func(a *Agents, r *streamRig)
		want error
	}{
		{"server gone", func(a *Agents, r *streamRig) { a.ForgetSessions(context.Background(), "w1") }, syscall.EPIPE},
		{"server closed its end", func(a *Agents, r *streamRig) { r.srv.conn.Close() }, syscall.EPIPE},
		{"drop", func(a *Agents, r *streamRig) { a.DisconnectMCP(context.Background(), "w1") }, syscall.ECONNRESET},
		{"own close", func(a *Agents, r *streamRig) { r.conn.Close() }, io.ErrClosedPipe},
	}
	for _, tc := range cases {
		for _, slow := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/slow=%v", tc.name, slow), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := New()
					r := newStreamRig(a, 0)
					defer r.conn.Close()
					if slow {
						a.SlowAgent(context.Background(), "w1", time.Minute)
					}
					start := time.Now()
					if _, err := r.conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")); err != nil || time.Since(start) != 0 {
						t.Fatalf("write: %v after %v, want it queued at once", err, time.Since(start))
					}
					time.Sleep(time.Second)
					tc.end(a, r)
					time.Sleep(time.Hour)
					if got := len(r.srv.received()); got != map[bool]int{false: 1, true: 0}[slow] {
						t.Errorf("the server got %d messages; a message still waiting when the stream ended must not leave", got)
					}
					if _, err := r.conn.Write([]byte("{}\n")); !errors.Is(err, tc.want) {
						t.Errorf("a write after: %v, want %v", err, tc.want)
					}
				})
			})
		}
	}
}

// TestMCPConnCancelWhileSlow: a cancel takes effect when the client writes
// it, whatever slow_agent does to its leaving: a held call's late answer
// is not sent, and a call still waiting to leave never does.
func TestMCPConnCancelWhileSlow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, time.Second)
		defer r.conn.Close()
		a.ToolTimeout(context.Background(), "w1", 5*time.Second)
		r.send(t, toolCallMsg("7", "pay"))
		a.SlowAgent(context.Background(), "w1", 10*time.Second)
		time.Sleep(2 * time.Second)
		r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
		r.send(t, toolCallMsg("8", "pay"))
		time.Sleep(time.Second)
		r.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}`)
		if got := r.next(time.Minute); got != "" {
			t.Errorf("a cancelled call was answered: %s", got)
		}
		got := r.srv.received()
		if len(got) != 3 || strings.Contains(strings.Join(got, " "), `"id":8`) {
			t.Errorf("the server got %q, want call 7 and both cancels, never call 8", got)
		}
		if n := r.srv.ran(); n != 1 {
			t.Errorf("the server ran %d calls, want 1", n)
		}
	})
}

// TestMCPConnForgetsUnansweredCalls: a held call whose server never
// answers is forgotten hangGrace after the fault answered it.
func TestMCPConnForgetsUnansweredCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, 24*time.Hour) // the server never answers in time
		defer func() { r.conn.Close(); time.Sleep(25 * time.Hour) }()
		a.ToolTimeout(context.Background(), "w1", 5*time.Second)
		for i := range 3 {
			r.send(t, toolCallMsg(fmt.Sprint(i), "pay"))
			time.Sleep(time.Second)
		}
		time.Sleep(5*time.Second + hangGrace)
		r.send(t, toolCallMsg("9", "pay"))
		synctest.Wait()
		c := r.conn.(*mcpConn)
		c.mu.Lock()
		n := len(c.held)
		c.mu.Unlock()
		if n != 1 {
			t.Errorf("%d calls held, want the last one alone", n)
		}
		for range 3 {
			if got := r.next(time.Minute); !strings.Contains(got, "-32001") {
				t.Errorf("the fault's answer: %q", got)
			}
		}
	})
}

// TestMCPConnLongMessagesWhole: a long message of the server passes whole,
// a fault's answer after it, and a long request of the server whose id is
// a held call's reaches the client (ids of the two sides are apart).
func TestMCPConnLongMessagesWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		c1, c2 := net.Pipe()
		conn := a.MCPConn("w1", c2)
		defer conn.Close()
		a.FailTools(context.Background(), "w1", ToolFault{Kind: ToolError, Tools: []string{"pay"}})
		a.FailTools(context.Background(), "w1", ToolFault{Kind: ToolHang, Tools: []string{"receipt"}, Timeout: time.Hour})
		pad := strings.Repeat("x", maxMessage+200<<10)
		long := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + pad + `"}}`
		request := `{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"pad":"` + pad + `"}}`
		go func() {
			br := bufio.NewReader(c1)
			br.ReadBytes('\n')          // call 4, held
			cut := maxMessage + 100<<10 // past the limit: the client is being given it
			c1.Write([]byte(long[:cut]))
			time.Sleep(time.Second) // the client calls pay meanwhile
			c1.Write([]byte(long[cut:] + "\n"))
			c1.Write([]byte(request + "\n"))
		}()
		got := readMessages(conn)
		conn.Write([]byte(toolCallMsg("4", "receipt") + "\n"))
		time.Sleep(time.Second / 2)
		conn.Write([]byte(toolCallMsg("5", "pay") + "\n"))
		time.Sleep(time.Minute)
		c1.Close()
		msgs := <-got
		if len(msgs) != 3 || msgs[0] != long || !strings.Contains(msgs[1], `"isError":true`) || msgs[2] != request {
			t.Errorf("the client got %q, want the long notification whole, pay's isError, the server's request", shortened(msgs))
		}
	})
}

// TestMCPConnServerExitKeepsItsAnswers: what the server sent before it
// went is still read after a write found it gone.
func TestMCPConnServerExitKeepsItsAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		c1, c2 := net.Pipe()
		conn := a.MCPConn("w1", c2)
		defer conn.Close()
		go func() {
			bufio.NewReader(c1).ReadBytes('\n')
			c1.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
			c1.Close()
		}()
		conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
		synctest.Wait()
		conn.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
		synctest.Wait()
		if _, err := conn.Write([]byte("{}\n")); !errors.Is(err, syscall.EPIPE) {
			t.Errorf("a write once the server is gone: %v, want EPIPE", err)
		}
		got, err := io.ReadAll(conn)
		if string(got) != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" || err != nil {
			t.Errorf("the client read %q, %v; want the server's answer, then EOF", got, err)
		}
	})
}

// TestMCPConnWriteRightAfterDrop: a write right after a drop or a session
// loss fails, though the stream's end may still be on its way.
func TestMCPConnWriteRightAfterDrop(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(a *Agents)
		want error
	}{
		{"drop", func(a *Agents) { a.DisconnectMCP(context.Background(), "w1") }, syscall.ECONNRESET},
		{"session loss", func(a *Agents) { a.ForgetSessions(context.Background(), "w1") }, syscall.EPIPE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := New()
				r := newStreamRig(a, 0)
				defer r.conn.Close()
				tc.cut(a)
				if _, err := r.conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")); !errors.Is(err, tc.want) {
					t.Errorf("write: %v, want %v", err, tc.want)
				}
			})
		})
	}
}

// TestMCPConnCancelBeforeHold: a call the client cancelled while it was
// queued is not held, so no late answer comes for it.
func TestMCPConnCancelBeforeHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		r := newStreamRig(a, 0)
		defer r.conn.Close()
		c := r.conn.(*mcpConn)
		f := &toolFault{ToolFault: ToolFault{Kind: ToolHang, Timeout: time.Second}.withDefaults()}
		c.unhold(json.RawMessage("3")) // the cancel comes while the sender is between its look and hold
		if c.hold(json.RawMessage("3"), "pay", f) {
			t.Error("a cancelled call was held")
		}
		if got := r.next(time.Minute); got != "" {
			t.Errorf("the client got %s", got)
		}
	})
}
