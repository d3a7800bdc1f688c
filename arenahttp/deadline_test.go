package arenahttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestAnswersHaveAWriteDeadline is issue 34's first attack at the handler:
// a client that pipelines requests for the dashboard's script and never
// reads was written to for as long as it liked (holding a read slot); now
// it is dropped at the write deadline.
func TestAnswersHaveAWriteDeadline(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithWriteTimeout(100 * time.Millisecond)}})
	const get = "GET /arena/ui/app.js HTTP/1.1\r\nHost: arena\r\n\r\n"
	c, err := net.Dial("tcp", strings.TrimPrefix(s.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// 22 MB of answers: more than the kernel's buffers hold. Then one more
	// request now and then, never reading, until a write finds the
	// connection closed.
	if _, err := io.WriteString(c, strings.Repeat(get, 1000)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		_ = c.SetWriteDeadline(time.Now().Add(20 * time.Millisecond))
		_, err := io.WriteString(c, get)
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			break // dropped
		}
		if time.Now().After(deadline) {
			t.Fatal("a client that never reads its answers was not dropped within 15s (write timeout 100ms)")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := s.do(t, request{method: "GET", path: "/arena/faults", key: testKey}); r.code != http.StatusOK {
		t.Errorf("GET /arena/faults after the drop = %d %s", r.code, r.body)
	}
}

// TestHTTP2StreamOutlivesTheWriteTimeout: on HTTP/2 a write deadline left
// set resets the stream when it passes, write or no write. An event stream
// idle between heartbeats longer than the write timeout must stay open.
func TestHTTP2StreamOutlivesTheWriteTimeout(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithWriteTimeout(50 * time.Millisecond), WithHeartbeat(200 * time.Millisecond)}})
	srv := httptest.NewUnstartedServer(s.h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/arena/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /arena/stream: %s %s, want HTTP/2 200", resp.Proto, resp.Status)
	}
	lines := bufio.NewScanner(resp.Body)
	for beats := 0; beats < 3; {
		if !lines.Scan() {
			t.Fatalf("the stream ended after %d heartbeats (write timeout 50ms, heartbeat 200ms): %v", beats, lines.Err())
		}
		if strings.HasPrefix(lines.Text(), ": heartbeat") {
			beats++
		}
	}
}
