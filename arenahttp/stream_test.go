package arenahttp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/sse"
)

func httptestServer(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// streamClient reads one event stream.
type streamClient struct {
	resp   *http.Response
	r      *sse.Reader
	cancel context.CancelFunc
}

func dialStream(t testing.TB, s *system, header map[string]string) *streamClient {
	t.Helper()
	return dialStreamURL(t, s.srv.Client(), s.srv.URL+"/arena/stream", header)
}

func dialStreamURL(t testing.TB, client *http.Client, url string, header map[string]string) *streamClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("GET %s = %d %s", url, resp.StatusCode, b)
	}
	return &streamClient{resp: resp, r: sse.NewReader(resp.Body), cancel: cancel}
}

func (c *streamClient) next(t testing.TB) sse.Event {
	t.Helper()
	e, err := c.r.Next()
	if err != nil {
		t.Fatalf("read event: %v", err)
	}
	return e
}

// nextIDs reads n events and returns their ids.
func (c *streamClient) nextIDs(t testing.TB, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		ids = append(ids, c.next(t).ID)
	}
	return ids
}

func (c *streamClient) close() {
	c.resp.Body.Close()
	c.cancel()
}

// execute lands n actions: pause and resume of worker-1 in turn.
func execute(t testing.TB, svc *engine.Service, n int) {
	t.Helper()
	for range n {
		typ := fault.PauseAgent
		if svc.Stats().Succeeded%2 == 1 {
			typ = fault.ResumeAgent
		}
		if res := svc.Execute(context.Background(), fault.Action{Type: typ, TargetID: "worker-1"}); !res.Success {
			t.Fatalf("execute %s: %s", typ, res.Error)
		}
	}
}

// TestStreamFrameFormat checks the bytes on the wire: the retry frame,
// then one frame per event with its version as id, its type as event and
// the event as JSON data.
func TestStreamFrameFormat(t *testing.T) {
	s := newSystem(t, systemConfig{clock: clock.NewVirtual(time.Time{})})
	s.svc.Execute(context.Background(), fault.Action{ID: "a1", Type: fault.KillAgent, TargetID: "nobody"})

	conn, err := net.Dial("tcp", s.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /arena/stream HTTP/1.1\r\nHost: arena\r\nLast-Event-ID: 0\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The body never ends: closing it would drain it forever; the deferred
	// conn.Close ends the stream.
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	body := bufio.NewReader(resp.Body)
	var got strings.Builder
	for frames := 0; frames < 2; {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v (so far %q)", err, got.String())
		}
		got.WriteString(line)
		if line == "\n" {
			frames++
		}
	}
	want := "retry: 3000\n\n" +
		"id: 1\n" +
		"event: arena.action.failed\n" +
		`data: {"id":"arena-1","stream":"arena","type":"arena.action.failed","version":1,"sequence":1,` +
		`"time":"2025-01-01T00:00:00Z","data":{"action_id":"a1","type":"kill_agent","target_id":"nobody","success":false,` +
		`"error":"fakes: agent \"nobody\": no such agent","duration":"0s"}}` + "\n\n"
	if got.String() != want {
		t.Errorf("stream bytes:\n got %q\nwant %q", got.String(), want)
	}
}

func TestStreamHeartbeat(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithHeartbeat(20 * time.Millisecond), WithRetry(1500 * time.Millisecond)}})
	c := dialStream(t, s, nil)
	defer c.close()
	br := bufio.NewReader(c.resp.Body)
	var lines []string
	for len(lines) < 6 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	want := []string{"retry: 1500\n", "\n", ": heartbeat\n", "\n", ": heartbeat\n", "\n"}
	if strings.Join(lines, "") != strings.Join(want, "") {
		t.Errorf("quiet stream = %q, want %q", lines, want)
	}
}

// TestStreamResume: Last-Event-ID resumes after that version of the arena
// stream (not the store-wide sequence), replaying what was missed and then
// following live, without gaps or repeats.
func TestStreamResume(t *testing.T) {
	s := newSystem(t, systemConfig{})
	other := func() { // another stream's events shift sequences away from versions
		if _, err := s.store.Append(context.Background(), "other", []events.Event{{Type: "x"}, {Type: "y"}}, events.AnyVersion); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		other()
		execute(t, s.svc, 1)
	}

	live := dialStream(t, s, nil) // no Last-Event-ID: from now on
	defer live.close()
	c := dialStream(t, s, map[string]string{"Last-Event-ID": "2"})
	defer c.close()
	if got := c.nextIDs(t, 3); strings.Join(got, ",") != "3,4,5" {
		t.Errorf("replay after 2 = %v, want 3,4,5", got)
	}
	q := dialStreamURL(t, s.srv.Client(), s.srv.URL+"/arena/stream?last_event_id=4", nil)
	defer q.close()
	if got := q.nextIDs(t, 1); got[0] != "5" {
		t.Errorf("replay after ?last_event_id=4 = %v, want 5", got)
	}
	all := dialStream(t, s, map[string]string{"Last-Event-ID": "0"})
	defer all.close()
	if got := all.nextIDs(t, 5); strings.Join(got, ",") != "1,2,3,4,5" {
		t.Errorf("replay after 0 = %v, want 1…5", got)
	}

	other()
	execute(t, s.svc, 2)
	for name, cl := range map[string]*streamClient{"live": live, "resumed": c, "query": q, "all": all} {
		e1, e2 := cl.next(t), cl.next(t)
		if e1.ID != "6" || e2.ID != "7" || e1.Event != engine.EventActionExecuted {
			t.Errorf("%s client: live events %s %s, want 6 and 7", name, e1.ID, e2.ID)
		}
		var ev events.Event
		if err := json.Unmarshal(e1.Data, &ev); err != nil || ev.Version != 6 || ev.Stream != engine.EventStream || ev.Sequence != 18 {
			t.Errorf("%s client: data %s (%v), want the event with version 6, sequence 18", name, e1.Data, err)
		}
	}
	// The last id a client saw resumes it exactly.
	again := dialStream(t, s, map[string]string{"Last-Event-ID": c.r.LastID()})
	defer again.close()
	execute(t, s.svc, 1)
	if e := again.next(t); e.ID != "8" {
		t.Errorf("resumed from %s: got %s, want 8", c.r.LastID(), e.ID)
	}
}

// TestStreamGap: resuming from an id whose successors are no longer
// retained, or that the stream never had, says so before going on.
func TestStreamGap(t *testing.T) {
	s := newSystem(t, systemConfig{storeOpts: []events.Option{events.WithRetention(4)}})
	execute(t, s.svc, 10) // versions 7…10 retained

	for id, want := range map[string]StreamGap{"1": {1, 7}, "99": {99, 7}} {
		c := dialStream(t, s, map[string]string{"Last-Event-ID": id})
		e := c.next(t)
		var gap StreamGap
		if e.Event != EventStreamGap || json.Unmarshal(e.Data, &gap) != nil || gap != want || e.ID != "" {
			t.Errorf("resume from %s: first event %q %s (id %q), want a gap %+v", id, e.Event, e.Data, e.ID, want)
		}
		if got := c.nextIDs(t, 4); strings.Join(got, ",") != "7,8,9,10" {
			t.Errorf("resume from %s: %v, want 7…10", id, got)
		}
		c.close()
	}
	c := dialStream(t, s, map[string]string{"Last-Event-ID": "8"}) // retained: no gap
	defer c.close()
	if e := c.next(t); e.Event == EventStreamGap || e.ID != "9" {
		t.Errorf("resume from 8: %q id %s, want 9", e.Event, e.ID)
	}
}

// TestStreamLaggedClientIsDropped: a client that stops reading falls
// behind; the store drops the streams' subscription (a buffer of 8)
// instead of waiting, Execute goes on, and the handler closes the stream
// and frees its place.
func TestStreamLaggedClientIsDropped(t *testing.T) {
	s := newSystem(t, systemConfig{
		storeOpts:   []events.Option{events.WithSubscriberBuffer(8)},
		handlerOpts: []Option{WithWriteTimeout(200 * time.Millisecond)},
	})
	stalled := stallStream(t, s.srv.Listener.Addr().String())
	defer stalled.Close()
	waitFor(t, "the stalled stream to open", func() bool { return s.h.streams.Load() == 1 })

	start := time.Now()
	n := 0
	for s.store.Stats().LaggedSubscribers == 0 {
		if n >= 500_000 || time.Since(start) > 60*time.Second {
			t.Fatalf("no lag after %d actions in %s", n, time.Since(start))
		}
		execute(t, s.svc, 100)
		n += 100
	}
	t.Logf("the stalled client was dropped after %d actions (%s)", n, time.Since(start))
	waitFor(t, "the handler to close the stalled stream", func() bool { return s.h.streams.Load() == 0 })

	// A reading client is served as before.
	c := dialStream(t, s, nil)
	defer c.close()
	execute(t, s.svc, 1)
	if e := c.next(t); e.ID != strconv.Itoa(n+1) {
		t.Errorf("after the drop a new client got %s, want %d", e.ID, n+1)
	}
}

// stallStream opens an event stream on a connection that never reads, with
// a small receive buffer so that it fills soon.
func stallStream(t testing.TB, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(conn, "GET /arena/stream HTTP/1.1\r\nHost: arena\r\n\r\n")
	return conn
}

// minimalWriter hides every optional interface of the ResponseWriter
// beneath (no http.Flusher), as many middlewares do, but has Unwrap.
type minimalWriter struct{ w http.ResponseWriter }

func (m minimalWriter) Header() http.Header         { return m.w.Header() }
func (m minimalWriter) Write(b []byte) (int, error) { return m.w.Write(b) }
func (m minimalWriter) WriteHeader(code int)        { m.w.WriteHeader(code) }
func (m minimalWriter) Unwrap() http.ResponseWriter { return m.w }

func TestStreamBehindMiddleware(t *testing.T) {
	s := newSystem(t, systemConfig{})
	wrapped := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := any(minimalWriter{w}).(http.Flusher); ok {
			t.Error("minimalWriter is a Flusher")
		}
		s.h.ServeHTTP(minimalWriter{w}, r)
	}))
	c := dialStreamURL(t, wrapped.Client(), wrapped.URL+"/arena/stream", nil)
	defer c.close()
	execute(t, s.svc, 1)
	if e := c.next(t); e.ID != "1" || e.Event != engine.EventActionExecuted {
		t.Errorf("behind middleware: %+v", e)
	}
}

// TestStreamNoGoroutineLeft: clients that disconnect, are dropped, or are
// ended by Close leave no goroutine behind.
func TestStreamNoGoroutineLeft(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithHeartbeat(5 * time.Millisecond)}})
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	ignore := goleak.IgnoreCurrent()

	var clients []*streamClient
	for range 5 {
		clients = append(clients, dialStreamURL(t, client, s.srv.URL+"/arena/stream", nil))
	}
	execute(t, s.svc, 3)
	for _, c := range clients {
		c.nextIDs(t, 3)
		c.close()
	}
	waitFor(t, "every stream to end", func() bool { return s.h.streams.Load() == 0 && s.store.Stats().Subscribers == 0 })
	tr.CloseIdleConnections()
	if err := goleak.Find(ignore); err != nil {
		t.Errorf("after the clients left: %v", err)
	}

	// Close ends the streams still open.
	c := dialStreamURL(t, client, s.srv.URL+"/arena/stream", nil)
	s.h.Close()
	for {
		if _, err := c.r.Next(); err != nil {
			break
		}
	}
	c.close()
	waitFor(t, "every stream to end", func() bool { return s.h.streams.Load() == 0 && s.store.Stats().Subscribers == 0 })
	tr.CloseIdleConnections()
	if err := goleak.Find(ignore); err != nil {
		t.Errorf("after Close: %v", err)
	}
}

// Idle clients could hold every stream slot for good (issue 26): a stream
// ends at its maximum age, after which a waiting client gets the slot.
func TestStreamMaxAgeFreesTheSlot(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithMaxSubscribers(1), WithMaxStreamAge(200 * time.Millisecond), WithHeartbeat(20 * time.Millisecond)}})
	idle := dialStream(t, s, nil)
	defer idle.close()
	if r := s.do(t, request{method: "GET", path: "/arena/stream"}); r.code != http.StatusServiceUnavailable {
		t.Fatalf("a second stream at the cap = %d, want 503", r.code)
	}
	if _, err := io.Copy(io.Discard, idle.resp.Body); err != nil {
		t.Fatalf("the idle stream ended with %v, want its end at the max age", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := s.srv.Client().Get(s.srv.URL + "/arena/stream")
		if err == nil && c.StatusCode == http.StatusOK {
			c.Body.Close()
			return
		}
		if err == nil {
			c.Body.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stream slot free 10s after the idle stream's max age: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestIdleStreamEnds: a stream with nothing but heartbeats to send ends
// after WithStreamIdle (an idle client held its slot until the maximum
// age), telling its client to come back at once; events keep it open.
func TestIdleStreamEnds(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithMaxSubscribers(1), WithStreamIdle(300 * time.Millisecond), WithHeartbeat(20 * time.Millisecond)}})
	c := dialStream(t, s, nil)
	defer c.close()
	// Events every 50ms: the stream stays open past the idle period.
	for i := range 12 {
		s.do(t, request{method: "POST", path: "/arena/agent/nobody/kill", body: `{"id":"k` + strconv.Itoa(i) + `"}`})
		c.next(t)
		time.Sleep(50 * time.Millisecond)
	}
	for {
		if _, err := c.r.Next(); err != nil {
			break
		}
	}
	if got := c.r.Retry(); got != idleRetry {
		t.Errorf("the idle stream's end says retry %s, want %s", got, idleRetry)
	}
	waitFor(t, "the idle stream's slot", func() bool { return s.h.streams.Load() == 0 })
	dialStream(t, s, nil).close()
}
