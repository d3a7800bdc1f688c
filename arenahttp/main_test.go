package arenahttp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testKey = "s3cret-key"

// system is a fake cluster behind a service and a handler on a test server.
type system struct {
	cluster *fakes.Cluster
	store   *events.MemoryStore
	reg     *prometheus.Registry
	flight  *fakes.FlightRecorder
	svc     *engine.Service
	h       *Handler
	srv     *httptest.Server
}

type systemConfig struct {
	clock       clock.Clock // default: real time
	storeOpts   []events.Option
	noDAG       bool
	runtime     func(*fakes.Cluster) fault.AgentLister // wraps the cluster (possibly with fewer capabilities)
	handlerOpts []Option
	bare        bool // no events, flight recorder or registry for the handler
	cluster     []fakes.Option
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newSystem(t testing.TB, cfg systemConfig) *system {
	t.Helper()
	if cfg.clock == nil {
		cfg.clock = clock.Real{}
	}
	s := &system{
		cluster: fakes.NewCluster(append([]fakes.Option{fakes.WithClock(cfg.clock), fakes.WithSeed(7)}, cfg.cluster...)...),
		store:   events.NewMemoryStore(cfg.storeOpts...),
		reg:     prometheus.NewRegistry(),
		flight:  fakes.NewFlightRecorder(),
	}
	var dag fault.DAGProvider = s.cluster
	if cfg.noDAG {
		dag = nil
	}
	var rt fault.AgentLister = s.cluster
	if cfg.runtime != nil {
		rt = cfg.runtime(s.cluster)
	}
	s.svc = engine.NewService(fault.NewInjectorFor(rt, fault.WithDAG(dag)), s.store, nil,
		engine.WithClock(cfg.clock), engine.WithSeed(7), engine.WithRegisterer(s.reg),
		engine.WithFlightRecorder(s.flight), engine.WithProbe(s.cluster.Probe), engine.WithChecks(s.cluster.Checks()...))
	// Tests present wrong keys on every route from one address: the
	// allowance is not theirs to spend (TestKeyGuesses checks it).
	opts := []Option{WithLogger(quiet), WithKeyGuesses(1<<30, time.Nanosecond)}
	if !cfg.bare {
		opts = append(opts, WithEvents(s.store), WithGatherer(s.reg), WithFlightRecorder(s.flight))
	}
	s.h = NewHandler(s.svc, append(opts, cfg.handlerOpts...)...)
	s.srv = httptest.NewServer(s.h)
	t.Cleanup(func() {
		s.h.Close()
		s.svc.Rollback(context.Background()) // no fault outlives its test, nor its lift timer
		s.srv.Close()
		s.store.Close()
	})
	return s
}

// request is one HTTP call of a test.
type request struct {
	method, path string
	body         string
	reader       io.Reader // the body instead of body, when set
	header       map[string]string
	key          string // sent as X-API-Key when set
}

type response struct {
	code   int
	header http.Header
	body   []byte
}

func (s *system) do(t testing.TB, rq request) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	if rq.reader != nil {
		body = rq.reader
	}
	req, err := http.NewRequestWithContext(ctx, rq.method, s.srv.URL+rq.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if rq.key != "" {
		req.Header.Set("X-API-Key", rq.key)
	}
	for k, v := range rq.header {
		req.Header.Set(k, v)
	}
	resp, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", rq.method, rq.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", rq.method, rq.path, err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: b}
}

// errorOf decodes an ErrorResponse, failing the test if the body is not one.
func errorOf(t testing.TB, r response) ErrorResponse {
	t.Helper()
	var e ErrorResponse
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == "" {
		t.Fatalf("body %q is not a JSON error: %v", r.body, err)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error Content-Type = %q, want application/json", ct)
	}
	return e
}

func decode[T any](t testing.TB, r response) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(r.body))
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %T from %q: %v", v, r.body, err)
	}
	return v
}

// tinyScenario runs in well under a second of real time.
const tinyScenario = `name: tiny
description: one kill, a short cooldown
config:
  cooldown: 300ms
actions:
  - label: kill
    action:
      type: kill_agent
      target_id: worker-2
`
