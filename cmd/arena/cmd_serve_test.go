package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/internal/sse"
	"github.com/ares-arena/arena/scenario"
)

// served is `arena serve` running in-process.
type served struct {
	url     string
	cancel  context.CancelFunc
	done    chan int      // the exit code
	drained chan struct{} // stdout read to its end
	mu      sync.Mutex
	out     bytes.Buffer // stdout after the first line
	errOut  bytes.Buffer
}

func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &served{cancel: cancel, done: make(chan int, 1)}
	go func() {
		code := run(ctx, append([]string{"serve"}, args...), pw, &lockedWriter{mu: &s.mu, w: &s.errOut})
		pw.Close()
		s.done <- code
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("arena serve printed nothing: %v (exit %d, stderr %s)", err, <-s.done, s.stderr())
	}
	m := regexp.MustCompile(`serving on (http://\S+) `).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("first line %q does not say where it serves", line)
	}
	s.url = m[1]
	s.drained = make(chan struct{})
	go func() { // keep reading, so that serve never blocks on stdout
		defer close(s.drained)
		b, _ := io.ReadAll(br)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.out.WriteString(line)
		s.out.Write(b)
	}()
	return s
}

func (s *served) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		<-s.drained
		return code
	case <-time.After(30 * time.Second):
		t.Fatal("arena serve did not shut down within 30s")
		return -1
	}
}

func (s *served) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errOut.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func call(t *testing.T, method, url, key, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestServeEndToEnd starts `arena serve` on loopback with a key from the
// environment, runs a scenario over HTTP, reads that run's events from the
// stream, scrapes the metrics, and shuts the server down with a stream
// still open.
func TestServeEndToEnd(t *testing.T) {
	const key = "e2e-key"
	t.Setenv("ARENA_API_KEY", key)
	s := startServe(t, "--addr", "127.0.0.1:0", "--seed", "5")
	defer http.DefaultClient.CloseIdleConnections()

	if code, _ := call(t, "GET", s.url+"/arena/stats", "", ""); code != http.StatusUnauthorized {
		t.Errorf("without the key: %d, want 401", code)
	}
	if code, body := call(t, "GET", s.url+"/arena/ui/", "", ""); code != 200 || !strings.Contains(string(body), "<title>arena</title>") {
		t.Errorf("the dashboard without the key: %d, want the page (its data needs a session)", code)
	}
	scen := "name: e2e\nconfig:\n  cooldown: 500ms\n  seed: 9\nactions:\n  - label: kill\n    action: {type: kill_agent, target_id: worker-1}\n  - label: slow\n    action: {type: slow_agent, target_id: worker-2, metadata: {delay: 100ms, duration: 0.2}}\n"
	code, body := call(t, "POST", s.url+"/arena/scenario/run", key, scen)
	if code != 200 {
		t.Fatalf("scenario run = %d %s", code, body)
	}
	var rep scenario.Report
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Scenario != "e2e" || rep.Seed != 9 || rep.Virtual || rep.Passed != 2 {
		t.Errorf("report: scenario %q seed %d virtual %v passed %d", rep.Scenario, rep.Seed, rep.Virtual, rep.Passed)
	}

	// The run's events, from the start of the stream.
	req, _ := http.NewRequest("GET", s.url+"/arena/stream", nil)
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Last-Event-ID", "0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("stream = %d", resp.StatusCode)
	}
	r := sse.NewReader(resp.Body)
	var seen []string
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatalf("stream ended after %q: %v", seen, err)
		}
		var ev events.Event
		if err := json.Unmarshal(e.Data, &ev); err != nil || e.Event != ev.Type || e.ID != ev.ID[len("arena-"):] {
			t.Fatalf("frame %+v does not match its event %+v (%v)", e, ev, err)
		}
		var p engine.ActionEvent
		_ = json.Unmarshal(ev.Data, &p)
		seen = append(seen, e.Event+" "+p.TargetID)
		if e.Event == engine.EventRunCompleted {
			break
		}
	}
	for _, want := range []string{engine.EventActionExecuted + " worker-1", engine.EventActionExecuted + " worker-2", engine.EventRunCompleted + " "} {
		if !contains(seen, want) {
			t.Errorf("stream %q lacks %q", seen, want)
		}
	}

	code, body = call(t, "GET", s.url+"/metrics", key, "")
	for _, want := range []string{`arena_actions_total{outcome="landed",type="kill_agent"} 1`, "arena_score ", "go_goroutines "} {
		if code != 200 || !strings.Contains(string(body), want) {
			t.Errorf("/metrics = %d, lacks %q", code, want)
		}
	}

	// The stream is still open: shutdown must end it, not wait for it.
	start := time.Now()
	if code := s.stop(t); code != exitPass {
		t.Errorf("serve exited %d, want 0; stderr:\n%s", code, s.stderr())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %s with a stream open", d)
	}
	if _, err := r.Next(); err == nil {
		t.Error("the stream is still open after shutdown")
	}
	s.mu.Lock()
	out := s.out.String()
	s.mu.Unlock()
	if !strings.Contains(out, "seed 5, API key required") || !strings.Contains(out, "shutting down") {
		t.Errorf("stdout = %q", out)
	}
	if !strings.Contains(out, "arena: dashboard: "+s.url+"/arena/ui/\n") {
		t.Errorf("stdout = %q, want the dashboard's URL", out)
	}
	if strings.Contains(out+s.stderr(), key) {
		t.Errorf("the key is in serve's output: %q %q", out, s.stderr())
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestServeRefusesAnOpenAddressWithoutKey(t *testing.T) {
	t.Setenv("ARENA_API_KEY", "")
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "example.com:80"} {
		code, out, errOut := cli(t, "serve", "--addr", addr)
		if code != exitBadInput || out != "" || !strings.Contains(errOut, "not a loopback address") {
			t.Errorf("serve --addr %s without a key = %d, stderr %q; want 2 and a refusal", addr, code, errOut)
		}
	}
	for _, args := range [][]string{{"--addr", "nonsense"}, {"--max-streams", "0"}, {"--max-scenario-run", "0s"}, {"--body-limit", "-1"}, {"extra"}} {
		if code, _, _ := cli(t, append([]string{"serve"}, args...)...); code != exitBadInput {
			t.Errorf("serve %q = %d, want 2", args, code)
		}
	}
	// With a key, an open address is allowed (port 0 on every interface is
	// still this machine in a test); stop it at once.
	t.Setenv("ARENA_API_KEY", "k")
	s := startServe(t, "--addr", "0.0.0.0:0")
	if code := s.stop(t); code != exitPass {
		t.Errorf("serve on 0.0.0.0 with a key exited %d", code)
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.5.6.7:1": true, "localhost:80": true, "LOCALHOST:80": true, "[::1]:9": true,
		"0.0.0.0:8080": false, ":8080": false, "[::]:1": false, "10.0.0.1:80": false, "my-host:80": false,
	} {
		got, err := isLoopback(addr)
		if err != nil || got != want {
			t.Errorf("isLoopback(%q) = %v, %v; want %v", addr, got, err, want)
		}
	}
	if _, err := isLoopback("no-port"); err == nil {
		t.Error("isLoopback(\"no-port\"): no error")
	}
}

func TestDashboardURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080/arena/ui/",
		"0.0.0.0:9":      "http://127.0.0.1:9/arena/ui/",
		"[::]:9":         "http://[::1]:9/arena/ui/",
		"[::1]:7":        "http://[::1]:7/arena/ui/",
		"10.1.2.3:80":    "http://10.1.2.3:80/arena/ui/",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := dashboardURL(a); got != want {
			t.Errorf("dashboardURL(%s) = %s, want %s", addr, got, want)
		}
	}
}
