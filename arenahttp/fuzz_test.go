package arenahttp

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// FuzzHandler sends any request (method, path and query, one header, body)
// to the handler over a fake cluster in virtual time: whatever it is, the
// answer is never a 5xx (every dependency is configured, so a 5xx is a bug:
// a panic becomes a 500) and never a panic. Requests that net/http itself
// would refuse to parse never reach a handler and are skipped.
func FuzzHandler(f *testing.F) {
	for _, s := range []struct{ method, target, header, body string }{
		{"POST", "/arena/agent/worker-1/kill", "", ""},
		{"POST", "/arena/agent/random/pause", "Content-Type: application/json", `{"metadata":{"duration":"1s"}}`},
		{"POST", "/arena/edge/remove", "", `{"source_id":"orchestrator-0","target_id":"worker-2"}`},
		{"POST", "/arena/scenario/validate", "", "name: x\nactions:\n  - action: {type: kill_leader}\n"},
		{"POST", "/arena/scenario/run?seed=3", "", "leader-failover"},
		{"POST", "/arena/survival", "", `{"duration":"1h","interval":"1m","seed":2}`},
		{"POST", "/arena/survival/stop", "", ""},
		{"GET", "/arena/history?after=1&limit=2", "", ""},
		{"GET", "/arena/flight/timeline?limit=0", "", ""},
		{"GET", "/arena/stream", "Last-Event-ID: 0", ""},
		{"GET", "/metrics", "", ""},
		{"DELETE", "/arena/stats", "", "x"},
		{"GET", "/arena/agent/%E2%80%AE/kill", "X-API-Key: nope", ""},
		{"GET", "/arena/history?before=18446744073709551615&limit=3", "", ""},
		{"POST", "/arena/scenario/start?seed=4", "", "leader-failover"},
		{"POST", "/arena/scenario/stop", "", ""},
		{"GET", "/arena/run", "", ""},
		{"GET", "/arena/report", "", ""},
		{"GET", "/arena/scenarios", "", ""},
		{"DELETE", "/arena/faults", "Sec-Fetch-Site: cross-site", ""},
		{"GET", "/arena/ui/app.js", "", ""},
		{"POST", "/arena/session", "Cookie: arena_session=x", `{"key":"k"}`},
		{"DELETE", "/arena/session", "Origin: http://evil.example", ""},
	} {
		f.Add(s.method, s.target, s.header, []byte(s.body))
	}
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(1))
	store := events.NewMemoryStore(events.WithRetention(1000))
	defer store.Close()
	reg := prometheus.NewRegistry()
	flight := fakes.NewFlightRecorder(fakes.WithFlightCapacity(100))
	svc := engine.NewService(fault.NewInjector(cluster, cluster), store, nil, engine.WithClock(clk),
		engine.WithRegisterer(reg), engine.WithFlightRecorder(flight), engine.WithProbe(cluster.Probe))
	h := NewHandler(svc, WithLogger(quiet), WithEvents(store), WithGatherer(reg), WithFlightRecorder(flight),
		WithBodyLimit(64<<10), WithMaxSurvival(2*time.Hour))
	defer h.Close()

	f.Fuzz(func(t *testing.T, method, target, header string, body []byte) {
		raw := method + " " + target + " HTTP/1.1\r\nHost: arena\r\n"
		if header != "" {
			raw += header + "\r\n"
		}
		raw += "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw + string(body))))
		if err != nil || strings.ContainsAny(method+target+header, "\r\n") {
			return // not a request net/http would hand to a handler
		}
		// A stream lasts as long as its client: this one leaves at once.
		// Any other request gets the time it needs (a scenario run in
		// virtual time takes a while under the race detector): a client
		// that leaves early is answered 500, which is not the server's fault.
		timeout := 30 * time.Second
		if strings.HasPrefix(req.URL.Path, "/arena/stream") {
			timeout = 20 * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req = req.WithContext(ctx)
		req.RemoteAddr = "127.0.0.1:1234"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s (%q, %d body bytes) = %d %s", method, target, header, len(body), rec.Code, bytes.TrimSpace(rec.Body.Bytes()))
		}
	})
}
