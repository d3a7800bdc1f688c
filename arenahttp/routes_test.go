package arenahttp

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// routeCase is one route of the table: a good request and a bad one.
type routeCase struct {
	pattern  string // as registered, to check the table covers every route
	path     string // a concrete path
	good     string // body of the good request
	goodCode int
	bad      request // path, body or header at fault; method and key are filled in
	badField string  // the field the 400 must name
	public   bool    // served without a key (the good request is sent without one)
}

func routeTable() []routeCase {
	post := func(pattern, path, good, bad, field string) routeCase {
		return routeCase{pattern: "POST " + pattern, path: path, good: good, goodCode: 200, bad: request{path: path, body: bad}, badField: field}
	}
	get := func(path string) routeCase {
		return routeCase{pattern: "GET " + path, path: path, goodCode: 200, bad: request{path: path + "?bogus=1"}, badField: "bogus"}
	}
	table := []routeCase{
		post("/arena/leader/kill", "/arena/leader/kill", `{}`, `{"metadata":{"delay":"1s"}}`, "metadata.delay"),
		post("/arena/orchestrator/kill", "/arena/orchestrator/kill", ``, `{"metadata":{"duration":"1s"}}`, "metadata.duration"),
		post("/arena/agent/{id}/kill", "/arena/agent/worker-1/kill", ``, `{"bogus":1}`, "bogus"),
		post("/arena/agent/{id}/pause", "/arena/agent/worker-3/pause", `{"metadata":{"duration":"1s"}}`, `{"metadata":{"duration":"-1s"}}`, "metadata.duration"),
		post("/arena/agent/{id}/resume", "/arena/agent/worker-3/resume", `{}`, `{"metadata":{"duration":"1s"}}`, "metadata.duration"),
		post("/arena/agent/{id}/slow", "/arena/agent/worker-3/slow", `{"metadata":{"delay":"2s","duration":1.5}}`, `{"metadata":{"dealy":"2s"}}`, "metadata.dealy"),
		post("/arena/agent/{id}/partition", "/arena/agent/worker-3/partition", `{"metadata":{"duration":"500ms"}}`, `{"metadata":{"duration":"soon"}}`, "metadata.duration"),
		post("/arena/agent/{id}/tool-timeout", "/arena/agent/random/tool-timeout", `{"metadata":{"timeout":"3s"}}`, `{"metadata":{"timeout":true}}`, "metadata.timeout"),
		post("/arena/agent/{id}/memory-corrupt", "/arena/agent/type:worker/memory-corrupt", `{"id":"corrupt-1"}`, `{"target_id":"worker-2"}`, "target_id"),
		post("/arena/agent/{id}/mcp-disconnect", "/arena/agent/worker-3/mcp-disconnect", `{"id":"mcp-held"}`, `[1,2]`, "body"),
		post("/arena/agent/{id}/llm-failure", "/arena/agent/worker-3/llm-failure", `{"metadata":{"error_type":"overloaded"}}`, `{"metadata":{"error_type":"meltdown"}}`, "metadata.error_type"),
		post("/arena/agent/{id}/latency", "/arena/agent/worker-3/latency", `{"metadata":{"latency":"300ms","jitter":"50ms","duration":"2s"}}`, `{"metadata":{"direction":"sideways"}}`, "metadata.direction"),
		post("/arena/agent/{id}/bandwidth", "/arena/agent/worker-2/bandwidth", `{"metadata":{"rate":50000,"duration":"2s"}}`, `{"metadata":{"rate":"1MB/s"}}`, "metadata.rate"),
		post("/arena/agent/{id}/connection-reset", "/arena/agent/worker-1/connection-reset", `{"metadata":{"after":"100ms","duration":"2s"}}`, `{"metadata":{"after":-1}}`, "metadata.after"),
		post("/arena/agent/{id}/{action}", "/arena/agent/worker-3/explode", ``, ``, "action"), // no good request: 400 either way
		post("/arena/node/{id}/remove", "/arena/node/worker-3/remove", `{}`, `{"source_id":"x"}`, "source_id"),
		post("/arena/edge/remove", "/arena/edge/remove", `{"source_id":"orchestrator-0","target_id":"worker-2"}`, `{"source_id":"orchestrator-0"}`, "target_id"),
		post("/arena/fault/{type}", "/arena/fault/pause_agent", `{"target_id":"worker-2","metadata":{"duration":"1s"}}`, `{"target_id":"worker-2","metadata":{"duration":"x"}}`, "metadata.duration"),
		get("/arena/faults"),
		{pattern: "DELETE /arena/faults/{id}", path: "/arena/faults/mcp-held", goodCode: 200, bad: request{path: "/arena/faults/a%20b"}, badField: "id"},
		{pattern: "DELETE /arena/faults", path: "/arena/faults", goodCode: 200, bad: request{path: "/arena/faults?bogus=1"}, badField: "bogus"},
		get("/arena/stats"),
		{pattern: "GET /arena/history", path: "/arena/history?limit=2", goodCode: 200, bad: request{path: "/arena/history?limit=0"}, badField: "limit"},
		get("/arena/score"),
		get("/arena/metrics"),
		{pattern: "GET /arena/stream", path: "/arena/stream", goodCode: 200, bad: request{path: "/arena/stream", header: map[string]string{"Last-Event-ID": "seven"}}, badField: "Last-Event-ID"},
		{pattern: "POST /arena/survival", path: "/arena/survival", good: `{"duration":"1h","interval":"1s","seed":11}`, goodCode: 202, bad: request{path: "/arena/survival", body: `{"duration":"forever"}`}, badField: "duration"},
		get("/arena/survival/status"),
		{pattern: "POST /arena/survival/stop", path: "/arena/survival/stop", goodCode: 200, bad: request{path: "/arena/survival/stop?now=1"}, badField: "now"},
		{pattern: "POST /arena/scenario/run", path: "/arena/scenario/run", good: tinyScenario, goodCode: 200, bad: request{path: "/arena/scenario/run", body: "name: broken\nactions:\n  - action: {type: kill_agent}\n"}, badField: "actions[0].action.target_id"},
		{pattern: "POST /arena/scenario/validate", path: "/arena/scenario/validate", good: `leader-failover`, goodCode: 200, bad: request{path: "/arena/scenario/validate", body: "name: x\nbogus: 1\nactions: []\n"}, badField: "bogus"},
		// Started in the background, in its five-minute cooldown when the next row stops it.
		{pattern: "POST /arena/scenario/start", path: "/arena/scenario/start", good: strings.Replace(tinyScenario, "cooldown: 300ms", "cooldown: 5m\n  allow_unhealthy_start: true", 1), goodCode: 202, bad: request{path: "/arena/scenario/start?seed=-1", body: tinyScenario}, badField: "seed"},
		{pattern: "POST /arena/scenario/stop", path: "/arena/scenario/stop", goodCode: 200, bad: request{path: "/arena/scenario/stop?now=1"}, badField: "now"},
		get("/arena/scenarios"),
		get("/arena/run"),
		get("/arena/report"),
		{pattern: "GET /arena/flight/timeline", path: "/arena/flight/timeline?after=0&limit=5", goodCode: 200, bad: request{path: "/arena/flight/timeline?after=-1"}, badField: "after"},
		{pattern: "GET /arena/flight/diagnostics", path: "/arena/flight/diagnostics?limit=5", goodCode: 200, bad: request{path: "/arena/flight/diagnostics?limit=100000"}, badField: "limit"},
		get("/metrics"),
		{pattern: "GET /arena/ui/{asset...}", path: "/arena/ui/", goodCode: 200, bad: request{path: "/arena/ui/?bogus=1"}, badField: "bogus", public: true},
		{pattern: "POST /arena/session", path: "/arena/session", good: `{"key":"` + testKey + `"}`, goodCode: 200, bad: request{path: "/arena/session", body: `{"key":7}`}, badField: "key", public: true},
		get("/arena/session"),
		{pattern: "DELETE /arena/session", path: "/arena/session", goodCode: 200, bad: request{path: "/arena/session?bogus=1"}, badField: "bogus"},
	}
	return withFaultRoutes(table)
}

// withFaultRoutes adds a row for each built-in fault's route that table
// leaves out: it lands on worker-1 with its defaults, and an unknown field
// is refused. So a new built-in type has its route checked without a row
// written for it (write one to check its metadata).
func withFaultRoutes(table []routeCase) []routeCase {
	for _, spec := range fault.Specs() {
		pattern := "POST " + spec.Route
		if slices.ContainsFunc(table, func(c routeCase) bool { return c.pattern == pattern }) {
			continue
		}
		path := strings.ReplaceAll(spec.Route, "{id}", "worker-1")
		table = append(table, routeCase{pattern: pattern, path: path, good: `{}`, goodCode: 200,
			bad: request{path: path, body: `{"bogus":1}`}, badField: "bogus"})
	}
	return table
}

// TestRoutes runs, for every route: no key 401, wrong key 401 (a public
// route: the good request without a key succeeds), a good request 2xx, a
// bad one 400 naming its field, an oversize body 413. Survival and scenario
// start and stop are in the order that makes them succeed.
func TestRoutes(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	table := routeTable()

	var patterns []string
	for _, rt := range s.h.routes() {
		patterns = append(patterns, rt.pattern)
	}
	var covered []string
	for _, c := range table {
		covered = append(covered, c.pattern)
	}
	slices.Sort(patterns)
	slices.Sort(covered)
	if !slices.Equal(patterns, covered) {
		t.Fatalf("the table covers %q,\nthe handler has %q", covered, patterns)
	}

	oversize := strings.Repeat("x", DefaultBodyLimit+1)
	for _, c := range table {
		method, _, _ := strings.Cut(c.pattern, " ")
		t.Run(c.pattern, func(t *testing.T) {
			for _, key := range []string{"", "wrong-key"} {
				if c.public {
					break
				}
				r := s.do(t, request{method: method, path: c.path, body: c.good, key: key})
				if r.code != http.StatusUnauthorized {
					t.Errorf("key %q: %s %s = %d %s, want 401", key, method, c.path, r.code, r.body)
				} else {
					errorOf(t, r)
				}
			}
			if c.public {
				if r := s.do(t, request{method: method, path: c.path, body: c.good}); r.code != c.goodCode {
					t.Errorf("without a key: %s %s = %d %s, want %d (a public route)", method, c.path, r.code, r.body, c.goodCode)
				}
			}

			if c.goodCode != 0 && c.badField != "action" {
				if method == "GET" && strings.HasPrefix(c.path, "/arena/stream") {
					code, ct := openStream(t, s, c.path, testKey)
					if code != 200 || ct != "text/event-stream" {
						t.Errorf("GET %s = %d %q, want 200 text/event-stream", c.path, code, ct)
					}
				} else {
					r := s.do(t, request{method: method, path: c.path, body: c.good, key: testKey})
					if r.code != c.goodCode {
						t.Errorf("%s %s = %d %s, want %d", method, c.path, r.code, r.body, c.goodCode)
					}
				}
			}

			bad := c.bad
			bad.method, bad.key = method, testKey
			r := s.do(t, bad)
			if r.code != http.StatusBadRequest {
				t.Errorf("%s %s %q = %d %s, want 400", method, bad.path, bad.body, r.code, r.body)
			} else if e := errorOf(t, r); e.Field != c.badField || !strings.Contains(e.Error, c.badField+": ") {
				t.Errorf("%s %s %q: error %+v, want it to name %q", method, bad.path, bad.body, e, c.badField)
			}

			r = s.do(t, request{method: method, path: c.path, body: oversize, key: testKey})
			if r.code != http.StatusRequestEntityTooLarge {
				t.Errorf("%s %s with %d bytes = %d, want 413", method, c.path, len(oversize), r.code)
			} else {
				errorOf(t, r)
			}
		})
	}
}

// openStream opens an event stream, reads its status and content type, and
// closes it.
func openStream(t *testing.T, s *system, path, key string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Content-Type")
}

func TestAuthHeaders(t *testing.T) {
	s := newSystem(t, systemConfig{bare: true})
	if r := s.do(t, request{method: "GET", path: "/arena/stats"}); r.code != 200 {
		t.Fatalf("without a key set, GET /arena/stats = %d, want 200", r.code)
	}
	s.h.SetAPIKey(testKey)
	for _, tc := range []struct {
		header map[string]string
		want   int
	}{
		{map[string]string{"X-API-Key": testKey}, 200},
		{map[string]string{"Authorization": "Bearer " + testKey}, 200},
		{map[string]string{"Authorization": "bearer " + testKey}, 200},
		{map[string]string{"Authorization": "Basic " + testKey}, 401},
		{map[string]string{"Authorization": "Bearer"}, 401},
		{map[string]string{"X-API-Key": testKey + "x"}, 401},
		{map[string]string{"X-API-Key": testKey[:3]}, 401},
		{nil, 401},
	} {
		r := s.do(t, request{method: "GET", path: "/arena/stats", header: tc.header})
		if r.code != tc.want {
			t.Errorf("headers %v: %d, want %d", tc.header, r.code, tc.want)
		}
		if r.code == 401 && r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("headers %v: 401 without WWW-Authenticate", tc.header)
		}
	}
	s.h.SetAPIKey("")
	if r := s.do(t, request{method: "GET", path: "/arena/stats"}); r.code != 200 {
		t.Errorf("after SetAPIKey(\"\"), GET /arena/stats = %d, want 200", r.code)
	}
}

func TestSurvivalConflicts(t *testing.T) {
	s := newSystem(t, systemConfig{})
	start := request{method: "POST", path: "/arena/survival", body: `{"duration":"1h","interval":"200ms"}`}
	r := s.do(t, start)
	if r.code != http.StatusAccepted {
		t.Fatalf("start = %d %s", r.code, r.body)
	}
	started := decode[SurvivalStarted](t, r)
	if started.Seed == 0 || !started.Status.Running || started.Status.Seed != started.Seed {
		t.Errorf("start answered %+v, want the drawn seed and a running status", started)
	}
	if r.header.Get("Location") != "/arena/survival/status" {
		t.Errorf("Location = %q", r.header.Get("Location"))
	}
	if r := s.do(t, start); r.code != http.StatusConflict {
		t.Errorf("second start = %d %s, want 409", r.code, r.body)
	} else {
		errorOf(t, r)
	}

	var st SurvivalStatusView
	waitFor(t, "the survival run to make progress", func() bool {
		st = decode[SurvivalStatusView](t, s.do(t, request{method: "GET", path: "/arena/survival/status"}))
		return !st.Running || st.Progress > 0
	})
	if !st.Running || st.Progress <= 0 || st.Progress >= 1 || st.Elapsed <= 0 || st.Duration != clock.Duration(time.Hour) {
		t.Errorf("status = %+v, want running with some progress", st.SurvivalStatus)
	}
	if sv := decode[ScoreView](t, s.do(t, request{method: "GET", path: "/arena/score"})); sv.Source != "survival" || sv.Score == nil {
		t.Errorf("score during survival = %+v, want the live survival score", sv)
	}

	r = s.do(t, request{method: "POST", path: "/arena/survival/stop"})
	if r.code != 200 {
		t.Fatalf("stop = %d %s", r.code, r.body)
	}
	if rep := decode[engine.SurvivalReport](t, r); !rep.Stopped || rep.Config.Seed != started.Seed {
		t.Errorf("stop answered stopped=%v seed=%d, want a stopped report with seed %d", rep.Stopped, rep.Config.Seed, started.Seed)
	}
	if r := s.do(t, request{method: "POST", path: "/arena/survival/stop"}); r.code != http.StatusConflict {
		t.Errorf("stop with none running = %d %s, want 409", r.code, r.body)
	}
	st = decode[SurvivalStatusView](t, s.do(t, request{method: "GET", path: "/arena/survival/status"}))
	if st.Running || st.Last == nil || st.Last.Config.Seed != started.Seed {
		t.Errorf("status after stop: running %v, last %v; want the last report", st.Running, st.Last != nil)
	}

	// Started outside the handler (the CLI, a test): still a 409.
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Hour, Interval: time.Second})
	}()
	waitFor(t, "the other survival run to start", func() bool { return s.svc.SurvivalStatus().Running })
	if r := s.do(t, start); r.code != http.StatusConflict {
		t.Errorf("start while another caller's run goes = %d %s, want 409", r.code, r.body)
	}
	s.svc.StopSurvival()
	<-done

	// Bad configs name their field, whether JSON or RunSurvival refuses them.
	for body, field := range map[string]string{
		`{"interval":"2h","duration":"1h"}`: "interval",
		`{"mix":{"explode":1}}`:             "mix.explode",
		`{"targets":{"bogus":[]}}`:          "targets.bogus",
		`{"duration":"1h"} {}`:              "body",
	} {
		r := s.do(t, request{method: "POST", path: "/arena/survival", body: body})
		if e := errorOf(t, r); r.code != 400 || e.Field != field {
			t.Errorf("start %s = %d %+v, want 400 naming %q", body, r.code, e, field)
		}
	}
}

// Test503 covers every missing dependency, and the subscriber cap.
func Test503(t *testing.T) {
	bare := newSystem(t, systemConfig{bare: true, noDAG: true})
	for _, rq := range []request{
		{method: "GET", path: "/arena/flight/timeline"},
		{method: "GET", path: "/arena/flight/diagnostics"},
		{method: "GET", path: "/metrics"},
		{method: "GET", path: "/arena/stream"},
		{method: "POST", path: "/arena/node/worker-1/remove"},
		{method: "POST", path: "/arena/edge/remove", body: `{"source_id":"leader-0","target_id":"orchestrator-0"}`},
		{method: "POST", path: "/arena/scenario/run", body: "dag-surgery"},
	} {
		if r := bare.do(t, rq); r.code != http.StatusServiceUnavailable {
			t.Errorf("%s %s without the dependency = %d %s, want 503", rq.method, rq.path, r.code, r.body)
		} else {
			errorOf(t, r)
		}
	}
	if st := bare.svc.Stats(); st.Total != 0 {
		t.Errorf("refused actions reached the service: %d executed", st.Total)
	}

	// A recorder that cannot be read back.
	writeOnly := newSystem(t, systemConfig{bare: true, handlerOpts: []Option{WithFlightRecorder(writeOnlyRecorder{})}})
	if r := writeOnly.do(t, request{method: "GET", path: "/arena/flight/timeline"}); r.code != 503 || !strings.Contains(errorOf(t, r).Error, "FlightReader") {
		t.Errorf("write-only recorder: %d %s, want 503 saying it is not a FlightReader", r.code, r.body)
	}

	// The subscriber cap.
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithMaxSubscribers(1)}})
	c := dialStream(t, s, nil)
	r := s.do(t, request{method: "GET", path: "/arena/stream"})
	if r.code != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("stream over the cap = %d (Retry-After %q), want 503 with Retry-After", r.code, r.header.Get("Retry-After"))
	}
	c.close()
	waitFor(t, "the stream to be released", func() bool { return s.h.streams.Load() == 0 })
	c = dialStream(t, s, nil)
	c.close()

	// A closed handler.
	s.h.Close()
	if r := s.do(t, request{method: "GET", path: "/arena/stats"}); r.code != 503 {
		t.Errorf("after Close: %d, want 503", r.code)
	}
}

type writeOnlyRecorder struct{}

func (writeOnlyRecorder) RecordEvent(context.Context, engine.FlightEvent) error     { return nil }
func (writeOnlyRecorder) RecordDiagnostic(context.Context, engine.Diagnostic) error { return nil }

// panickyRecorder panics when read.
type panickyRecorder struct{ writeOnlyRecorder }

func (panickyRecorder) Timeline(context.Context) ([]engine.FlightEvent, error) { panic("boom") }
func (panickyRecorder) Diagnostics(context.Context) ([]engine.Diagnostic, error) {
	panic(http.ErrAbortHandler)
}

func TestPanicIs500AndTheServerLives(t *testing.T) {
	s := newSystem(t, systemConfig{bare: true, handlerOpts: []Option{WithFlightRecorder(panickyRecorder{})}})
	for range 3 {
		r := s.do(t, request{method: "GET", path: "/arena/flight/timeline"})
		if r.code != http.StatusInternalServerError {
			t.Fatalf("panicking route = %d %s, want 500", r.code, r.body)
		}
		if e := errorOf(t, r); e.Error != "internal error" {
			t.Errorf("500 body %+v leaks or lacks the error", e)
		}
		if r := s.do(t, request{method: "GET", path: "/arena/stats"}); r.code != 200 {
			t.Fatalf("after a panic GET /arena/stats = %d", r.code)
		}
	}
	// http.ErrAbortHandler aborts the response, as net/http means it to.
	req, _ := http.NewRequest("GET", s.srv.URL+"/arena/flight/diagnostics", nil)
	if resp, err := s.srv.Client().Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("ErrAbortHandler: got a response %d, want the connection aborted", resp.StatusCode)
	}
}

func TestRecoverMiddleware(t *testing.T) {
	h := recoverMiddleware(quiet, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/late" {
			w.WriteHeader(http.StatusAccepted)
		}
		panic("boom")
	}))
	srv := httptestServer(t, h)
	for path, want := range map[string]int{"/early": 500, "/late": 202} {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("panic in %s: %d, want %d (no second header after the response started)", path, resp.StatusCode, want)
		}
	}
	if RecoverMiddleware(h) == nil {
		t.Error("RecoverMiddleware returned nil")
	}
}

func TestPathIDs(t *testing.T) {
	s := newSystem(t, systemConfig{bare: true})
	for path, field := range map[string]string{
		"/arena/agent/a%20b/kill":                             "id",
		"/arena/agent/a%09b/pause":                            "id",
		"/arena/agent/" + strings.Repeat("w", 257) + "/kill":  "id",
		"/arena/node/" + strings.Repeat("n", 300) + "/remove": "id",
	} {
		r := s.do(t, request{method: "POST", path: path})
		if e := errorOf(t, r); r.code != 400 || e.Field != field {
			t.Errorf("POST %.60s = %d %+v, want 400 naming %q", path, r.code, e, field)
		}
	}
	if r := s.do(t, request{method: "POST", path: "/arena/agent/" + strings.Repeat("w", 256) + "/kill"}); r.code != 200 {
		t.Errorf("a 256-byte ID = %d %s, want 200 (it is allowed; no such agent)", r.code, r.body)
	}
	// An empty segment never reaches a handler: the mux cleans the path.
	req, _ := http.NewRequest("POST", s.srv.URL+"/arena/agent//kill", nil)
	s.srv.Client().CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 300 {
		t.Errorf("POST /arena/agent//kill = %d, want no success", resp.StatusCode)
	}
	for _, id := range []string{"", " ", "a b", "a\nb", strings.Repeat("x", 257)} {
		if checkID("id", id) == nil {
			t.Errorf("checkID(%q) = nil, want an error", id)
		}
	}
	for _, id := range []string{"worker-1", "type:worker", "random", strings.Repeat("x", 256)} {
		if err := checkID("id", id); err != nil {
			t.Errorf("checkID(%q) = %v", id, err)
		}
	}
}

func TestActions(t *testing.T) {
	s := newSystem(t, systemConfig{})
	r := s.do(t, request{method: "POST", path: "/arena/agent/worker-1/slow", body: `{"id":"slow-1","metadata":{"delay":"1.5s","duration":2}}`})
	res := decode[fault.Result](t, r)
	if r.code != 200 || !res.Success || res.Action.ID != "slow-1" || res.Action.Type != fault.SlowAgent || res.Action.TargetID != "worker-1" {
		t.Errorf("slow = %d %s", r.code, r.body)
	}
	// A fault that does not land is a 200 with success false.
	r = s.do(t, request{method: "POST", path: "/arena/agent/nobody/kill"})
	if res := decode[fault.Result](t, r); r.code != 200 || res.Success || res.Error == "" {
		t.Errorf("kill of no such agent = %d %s, want 200 with success false", r.code, r.body)
	}
	// A selector is resolved and the result says to what.
	r = s.do(t, request{method: "POST", path: "/arena/agent/type:worker/pause"})
	if res := decode[fault.Result](t, r); !res.Success || !strings.HasPrefix(res.Action.TargetID, "worker-") {
		t.Errorf("pause type:worker = %s", r.body)
	}
	if st := s.svc.Stats(); st.Total != 3 || st.Succeeded != 2 {
		t.Errorf("stats after three actions: %+v", st)
	}
	hist := decode[[]fault.Result](t, s.do(t, request{method: "GET", path: "/arena/history?limit=1"}))
	if len(hist) != 1 || hist[0].Action.Type != fault.PauseAgent {
		t.Errorf("history?limit=1 = %+v, want the newest action", hist)
	}
	m := decode[engine.MetricsSnapshot](t, s.do(t, request{method: "GET", path: "/arena/metrics"}))
	if m.Actions[fault.KillAgent]["failed"] != 1 {
		t.Errorf("metrics snapshot = %+v", m)
	}
	tl := decode[[]engine.FlightEvent](t, s.do(t, request{method: "GET", path: "/arena/flight/timeline"}))
	dg := decode[[]engine.Diagnostic](t, s.do(t, request{method: "GET", path: "/arena/flight/diagnostics"}))
	if len(tl) != 3 || len(dg) != 1 || dg[0].TargetID != "nobody" {
		t.Errorf("flight: %d timeline events, diagnostics %+v; want 3 and the failed kill", len(tl), dg)
	}
	// Chunked bodies over the limit are cut off too.
	req, _ := http.NewRequest("POST", s.srv.URL+"/arena/agent/worker-1/pause", strings.NewReader(strings.Repeat(" ", DefaultBodyLimit+10)))
	req.ContentLength = -1
	resp, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked oversize body = %d, want 413", resp.StatusCode)
	}
}

func TestScore(t *testing.T) {
	s := newSystem(t, systemConfig{clock: clock.NewVirtual(time.Time{})})
	if v := decode[ScoreView](t, s.do(t, request{method: "GET", path: "/arena/score"})); v.Source != "none" || v.Total != nil || v.Grade != engine.GradeNone {
		t.Errorf("score before any run = %+v", v)
	}
	r := s.do(t, request{method: "POST", path: "/arena/scenario/run?seed=3", body: `"leader-failover"`})
	rep := decode[scenario.Report](t, r)
	if r.code != 200 || rep.Seed != 3 || rep.Scenario != "leader-failover" || !rep.Virtual {
		t.Fatalf("run leader-failover = %d, seed %d", r.code, rep.Seed)
	}
	v := decode[ScoreView](t, s.do(t, request{method: "GET", path: "/arena/score"}))
	if v.Source != "last_run" || v.Total == nil || *v.Total != rep.Score.Total || v.Grade != rep.Score.Grade {
		t.Errorf("score after a run = %+v, want the run's %.1f %s", v, rep.Score.Total, rep.Score.Grade)
	}
}

func TestScenarioRoutes(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithMaxScenarioRun(5 * time.Second)}})
	r := s.do(t, request{method: "POST", path: "/arena/scenario/validate", body: tinyScenario})
	if v := decode[ValidateResponse](t, r); r.code != 200 || !v.Valid || v.Name != "tiny" || v.Steps != 1 || v.PlannedLength != clock.Duration(300*time.Millisecond) {
		t.Errorf("validate = %d %s", r.code, r.body)
	}
	// Every problem, with line and column.
	r = s.do(t, request{method: "POST", path: "/arena/scenario/validate", body: "name: x\nactions:\n  - action: {type: kill_agent}\n  - action: {type: slow_agent, target_id: w, metadata: {dealy: 1}}\n"})
	e := errorOf(t, r)
	if r.code != 400 || len(e.Problems) != 2 || e.Problems[1].Line != 4 || e.Problems[1].Field != "actions[1].action.metadata.dealy" {
		t.Errorf("invalid scenario = %d %+v", r.code, e)
	}
	for body, field := range map[string]string{"": "body", "no-such-scenario": "body", `"no-such"`: "body"} {
		if r := s.do(t, request{method: "POST", path: "/arena/scenario/run", body: body}); r.code != 400 || errorOf(t, r).Field != field {
			t.Errorf("run %q = %d %s, want 400 naming %s", body, r.code, r.body, field)
		}
	}
	// Planned longer than the server's maximum: refused before it starts.
	if r := s.do(t, request{method: "POST", path: "/arena/scenario/run", body: "leader-failover"}); r.code != 400 || errorOf(t, r).Field != "actions" {
		t.Errorf("a 50s scenario on a 5s server = %d %s, want 400", r.code, r.body)
	}
	if r := s.do(t, request{method: "POST", path: "/arena/scenario/run?seed=x", body: tinyScenario}); r.code != 400 || errorOf(t, r).Field != "seed" {
		t.Errorf("seed=x = %d %s", r.code, r.body)
	}

	// One run at a time: the second request comes while the first is in
	// its cooldown (its kill is on the event stream by then).
	long := strings.Replace(tinyScenario, "cooldown: 300ms", "cooldown: 2s", 1)
	before := s.store.Stats().Events
	first := make(chan response, 1)
	go func() { first <- s.do(t, request{method: "POST", path: "/arena/scenario/run", body: long}) }()
	waitFor(t, "the first run's kill", func() bool { return s.store.Stats().Events > before })
	if r := s.do(t, request{method: "POST", path: "/arena/scenario/run", body: tinyScenario}); r.code != http.StatusConflict {
		t.Errorf("second concurrent run = %d, want 409", r.code)
	}
	if r := <-first; r.code != 200 {
		t.Errorf("first run = %d %s", r.code, r.body)
	} else if rep := decode[scenario.Report](t, r); rep.Passed != 1 || rep.Outcome != scenario.OutcomeCompleted {
		t.Errorf("tiny report: passed %d, outcome %s", rep.Passed, rep.Outcome)
	}
}

// slowKills makes StopAgent take a while, so that a run outlasts its plan.
type slowKills struct {
	*fakes.Cluster
	delay time.Duration
}

func (s slowKills) StopAgent(ctx context.Context, id string) error {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Cluster.StopAgent(ctx, id)
}

// TestScenarioRunMaximum: a run planned within the server's maximum that
// runs into it (a slow injection) is cut short: 504 with the partial report.
func TestScenarioRunMaximum(t *testing.T) {
	s := newSystem(t, systemConfig{
		runtime:     func(c *fakes.Cluster) fault.AgentLister { return slowKills{c, time.Second} },
		handlerOpts: []Option{WithMaxScenarioRun(500 * time.Millisecond)},
	})
	r := s.do(t, request{method: "POST", path: "/arena/scenario/run", body: tinyScenario})
	if r.code != http.StatusGatewayTimeout {
		t.Fatalf("run past the maximum = %d %s, want 504", r.code, r.body)
	}
	if to := decode[ScenarioTimeout](t, r); to.Report == nil || to.Report.Outcome != scenario.OutcomeCancelled || !strings.Contains(to.Error, "500ms") {
		t.Errorf("504 body = %s", r.body)
	}
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// killPause is a runtime with only the kill and pause capabilities.
type killPause struct{ c *fakes.Cluster }

func (k killPause) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	return k.c.ListAgents(ctx)
}
func (k killPause) StopAgent(ctx context.Context, id string) error { return k.c.StopAgent(ctx, id) }
func (k killPause) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	return k.c.PauseAgent(ctx, id)
}
func (k killPause) ResumeAgent(ctx context.Context, id string) error { return k.c.ResumeAgent(ctx, id) }

// TestFaultsTheRuntimeCannotLand: a fault outside the runtime's
// capabilities is a 501 naming the type and the missing capability, on the
// built-in route and on /arena/fault/{type}; one it has lands; an unknown
// type on /arena/fault/{type} is a 404 naming the field.
func TestFaultsTheRuntimeCannotLand(t *testing.T) {
	s := newSystem(t, systemConfig{runtime: func(c *fakes.Cluster) fault.AgentLister { return killPause{c} }})
	const want = "mcp_disconnect is not supported by this runtime (it does not implement fault.MCPDisconnecter)"
	for _, rq := range []request{
		{method: "POST", path: "/arena/agent/worker-1/mcp-disconnect"},
		{method: "POST", path: "/arena/fault/mcp_disconnect", body: `{"target_id":"worker-1"}`},
	} {
		r := s.do(t, rq)
		if r.code != http.StatusNotImplemented {
			t.Errorf("POST %s = %d %s, want 501", rq.path, r.code, r.body)
			continue
		}
		if e := errorOf(t, r); e.Error != want {
			t.Errorf("POST %s: error %q, want %q", rq.path, e.Error, want)
		}
	}
	r := s.do(t, request{method: "POST", path: "/arena/fault/pause_agent", body: `{"target_id":"worker-1"}`})
	if res := decode[fault.Result](t, r); r.code != 200 || !res.Success {
		t.Errorf("POST /arena/fault/pause_agent = %d %+v, want 200 and landed", r.code, res)
	}
	r = s.do(t, request{method: "POST", path: "/arena/fault/acme.disk_full", body: `{}`})
	if r.code != http.StatusNotFound {
		t.Errorf("POST /arena/fault/acme.disk_full = %d %s, want 404", r.code, r.body)
	} else if e := errorOf(t, r); e.Field != "type" || !strings.Contains(e.Error, `unknown fault type "acme.disk_full"`) {
		t.Errorf("POST /arena/fault/acme.disk_full: error %+v, want it to name the type", e)
	}
	sc := "name: mcp\nactions:\n  - action: {type: kill_agent, target_id: worker-1}\n  - action: {type: mcp_disconnect, target_id: worker-2}\n"
	r = s.do(t, request{method: "POST", path: "/arena/scenario/validate", body: sc})
	if r.code != http.StatusBadRequest {
		t.Fatalf("validate = %d %s, want 400", r.code, r.body)
	}
	if e := errorOf(t, r); e.Field != "actions[1].action.type" || !strings.Contains(e.Error, "actions[1].action.type: "+want) {
		t.Errorf("validate: error %+v, want actions[1].action.type: %s", e, want)
	}
}
