package netfault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/fault"
)

// httpAgents are the agents of httpSystem: a client and a server.
var httpAgents = []Option{WithAgent("client", "client"), WithAgent("api", "service", "api.local")}

// httpSystem is a client agent and a server agent on a network in a
// bubble; the server answers its path and records when it saw each
// request.
type httpSystem struct {
	n      *Network
	client *http.Client
	seen   []string
}

func newHTTPSystem(n *Network) *httpSystem {
	s := &httpSystem{n: n}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.seen = append(s.seen, r.URL.Path+"@"+at(s.n).String())
		io.WriteString(w, strings.Repeat("x", 10_000))
	})
	s.client = &http.Client{Transport: s.n.Transport("client", HandlerTransport(h))}
	return s
}

// call makes one request and returns what happened, with the simulated
// instants it started and ended; the next call starts a minute later.
func (s *httpSystem) call(url string, timeout time.Duration) string {
	ctx := context.Background()
	start := at(s.n)
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := s.client.Do(req)
	var out string
	switch {
	case errors.Is(err, syscall.ECONNRESET):
		out = "reset"
	case errors.Is(err, syscall.ECONNREFUSED):
		out = "refused"
	case errors.Is(err, context.DeadlineExceeded):
		out = "timeout"
	case err != nil:
		out = err.Error()
	default:
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out = fmt.Sprintf("%d %dB", resp.StatusCode, len(b))
	}
	out += fmt.Sprintf(" %s..%s", start, at(s.n))
	time.Sleep(time.Minute)
	return out
}

func TestTransport(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		fault  func(n *Network) error
		url    string
		tmo    time.Duration
		want   string
		served string // when the server saw it; "" = never
	}{
		{"no fault", func(*Network) error { return nil }, "http://api.local/q", 0, "200 10000B 0s..0s", "/q@0s"},
		{"latency both ways: half on each leg",
			func(n *Network) error {
				return errOf(n.InjectLatency(ctx, "api", fault.Latency{Latency: 200 * time.Millisecond}))
			},
			"http://api.local:8080/q", 0, "200 10000B 0s..200ms", "/q@100ms"},
		{"callee's inbound latency is the request leg",
			func(n *Network) error {
				return errOf(n.InjectLatency(ctx, "api", fault.Latency{Latency: 200 * time.Millisecond, Direction: fault.DirectionInbound}))
			},
			"http://api/q", 0, "200 10000B 0s..200ms", "/q@200ms"},
		{"caller's inbound latency is the response leg",
			func(n *Network) error {
				return errOf(n.InjectLatency(ctx, "client", fault.Latency{Latency: 200 * time.Millisecond, Direction: fault.DirectionInbound}))
			},
			"http://api/q", 0, "200 10000B 0s..200ms", "/q@0s"},
		{"latency to another peer: none here",
			func(n *Network) error {
				return errOf(n.InjectLatency(ctx, "api", fault.Latency{Latency: time.Second, Peer: "api"}))
			},
			"http://api/q", 0, "200 10000B 0s..0s", "/q@0s"},
		{"latency past the deadline",
			func(n *Network) error {
				return errOf(n.InjectLatency(ctx, "api", fault.Latency{Latency: 400 * time.Millisecond}))
			},
			"http://api/q", 150 * time.Millisecond, "timeout 0s..150ms", ""}, // the request leg (200ms) ran into the deadline
		{"bandwidth: 10 kB at 100 kB/s",
			func(n *Network) error { return errOf(n.LimitBandwidth(ctx, "api", 100_000)) },
			"http://api/q", 0, "200 10000B 0s..100ms", "/q@0s"},
		{"reset at once never reaches the server",
			func(n *Network) error { return errOf(n.ResetConnections(ctx, "api", 0)) },
			"http://api/q", 0, "reset 0s..0s", ""},
		{"reset after 150ms, on the response leg",
			func(n *Network) error {
				if _, err := n.InjectLatency(ctx, "api", fault.Latency{Latency: 200 * time.Millisecond}); err != nil {
					return err
				}
				return errOf(n.ResetConnections(ctx, "api", 150*time.Millisecond))
			},
			"http://api/q", 0, "reset 0s..150ms", "/q@100ms"},
		{"partition: refused, never reaches the server",
			func(n *Network) error { return errOf(n.PartitionNetwork(ctx, "api")) },
			"http://api/q", 0, "refused 0s..0s", ""},
		{"partition of the caller: refused too",
			func(n *Network) error { return errOf(n.PartitionNetwork(ctx, "client")) },
			"http://api/q", 0, "refused 0s..0s", ""},
		{"partition landing on the request leg: reset then",
			func(n *Network) error {
				time.AfterFunc(50*time.Millisecond, func() { n.PartitionNetwork(ctx, "api") })
				return errOf(n.InjectLatency(ctx, "api", fault.Latency{Latency: 200 * time.Millisecond}))
			},
			"http://api/q", 0, "reset 0s..50ms", ""},
		{"http_error on a route and under it",
			func(n *Network) error { return n.FailRoute(ctx, "api", "/q", 503) },
			"http://api/q/sub", 0, "503 42B 0s..0s", ""},
		{"http_error on another route",
			func(n *Network) error { return n.FailRoute(ctx, "api", "/q", 503) },
			"http://api/qq", 0, "200 10000B 0s..0s", "/qq@0s"},
		{"unknown host: no faults",
			func(n *Network) error { return errOf(n.ResetConnections(ctx, "api", 0)) },
			"http://elsewhere/q", 0, "200 10000B 0s..0s", "/q@0s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			simulated(t, func(t *testing.T, n *Network) {
				s := newHTTPSystem(n)
				if err := tc.fault(s.n); err != nil {
					t.Fatal(err)
				}
				if got := s.call(tc.url, tc.tmo); got != tc.want {
					t.Errorf("call = %q, want %q", got, tc.want)
				}
				var want []string
				if tc.served != "" {
					want = []string{tc.served}
				}
				if diff := cmp.Diff(want, s.seen); diff != "" {
					t.Errorf("served (-want +got):\n%s", diff)
				}
			}, httpAgents...)
		})
	}
}

func TestTransportLiftAndJitter(t *testing.T) {
	ctx := context.Background()
	draws := func(seed uint64) (out []string) {
		simulated(t, func(t *testing.T, n *Network) {
			s := newHTTPSystem(n)
			lift, err := s.n.InjectLatency(ctx, "api", fault.Latency{Latency: 100 * time.Millisecond, Jitter: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				out = append(out, s.call("http://api/q", 0))
			}
			for range 2 { // lifting twice changes nothing
				if err := lift(ctx); err != nil {
					t.Errorf("lift of the latency = %v", err)
				}
			}
			last := s.call("http://api/q", 0)
			span := last[strings.LastIndex(last, " ")+1:]
			if from, to, _ := strings.Cut(span, ".."); !strings.HasPrefix(last, "200 10000B ") || from != to {
				t.Errorf("after the lift: %q, want no delay", last)
			}
		}, append(httpAgents, WithSeed(seed))...)
		return out
	}
	a, b, c := draws(1), draws(1), draws(2)
	if !cmp.Equal(a, b) {
		t.Errorf("same seed, different delays: %q vs %q", a, b)
	}
	if cmp.Equal(a, c) {
		t.Errorf("seeds 1 and 2 drew the same delays: %q", a)
	}
}

// A partition that lands while the callee works cuts a call that started
// under no fault at all: the answer does not cross.
func TestPartitionCutsACallUnderWay(t *testing.T) {
	ctx := context.Background()
	simulated(t, func(t *testing.T, n *Network) {
		s := &httpSystem{n: n}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.seen = append(s.seen, r.URL.Path+"@"+at(n).String())
			time.Sleep(time.Second) // the work
			io.WriteString(w, "done")
		})
		s.client = &http.Client{Transport: n.Transport("client", HandlerTransport(h))}
		time.AfterFunc(500*time.Millisecond, func() { n.PartitionNetwork(ctx, "api") })
		if got := s.call("http://api/q", 0); got != "reset 0s..1s" || !cmp.Equal(s.seen, []string{"/q@0s"}) {
			t.Errorf("call = %q, served %q; want the answer cut at 1s, the request served at 0s", got, s.seen)
		}
	}, httpAgents...)
}

// A call cut while its callee works stays cut, even when base does not
// heed the context and the fault is lifted before the answer: the
// partition lands at 1s, is lifted at 2s, the handler answers at 3s.
func TestTransportResetSticks(t *testing.T) {
	ctx := context.Background()
	simulated(t, func(t *testing.T, n *Network) {
		s := &httpSystem{n: n}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(3 * time.Second)
			io.WriteString(w, "done")
		})
		s.client = &http.Client{Transport: n.Transport("client", HandlerTransport(h))}
		time.AfterFunc(time.Second, func() {
			lift, err := n.PartitionNetwork(ctx, "api")
			if err != nil {
				t.Error(err)
				return
			}
			time.AfterFunc(time.Second, func() { lift(ctx) })
		})
		if got := s.call("http://api/q", 0); got != "reset 0s..3s" {
			t.Errorf("call = %q, want reset at the answer, 3s", got)
		}
		if k := openConns(n); k != 0 {
			t.Errorf("%d ties left in the network's set after the call", k)
		}
	}, httpAgents...)
}

// A partition lifted: the calls go through again.
func TestPartitionLift(t *testing.T) {
	ctx := context.Background()
	simulated(t, func(t *testing.T, n *Network) {
		s := newHTTPSystem(n)
		lift, err := n.PartitionNetwork(ctx, "api")
		if err != nil {
			t.Fatal(err)
		}
		before := s.call("http://api/q", 0)
		if err := lift(ctx); err != nil {
			t.Fatal(err)
		}
		if after := s.call("http://api/q", 0); before != "refused 0s..0s" || after != "200 10000B 1m0s..1m0s" {
			t.Errorf("partitioned: %q, lifted: %q; want refused, then served", before, after)
		}
	}, httpAgents...)
}

func TestFaultErrors(t *testing.T) {
	ctx := context.Background()
	n := New(nil, WithAgent("api", "service"))
	defer n.Close()
	for name, err := range map[string]error{
		"unknown peer":   errOf(n.InjectLatency(ctx, "api", fault.Latency{Latency: time.Second, Peer: "db"})),
		"zero latency":   errOf(n.InjectLatency(ctx, "api", fault.Latency{})),
		"zero rate":      errOf(n.LimitBandwidth(ctx, "api", 0)),
		"negative after": errOf(n.ResetConnections(ctx, "api", -time.Second)),
		"status 200":     n.FailRoute(ctx, "api", "/", 200),
	} {
		if err == nil {
			t.Errorf("%s: nil error", name)
		}
	}
	if _, err := n.InjectLatency(ctx, "db", fault.Latency{Latency: time.Second}); !errors.Is(err, fault.ErrNoAgent) {
		t.Errorf("InjectLatency(unknown agent) = %v, want fault.ErrNoAgent", err)
	}
	agents, err := n.ListAgents(ctx)
	if err != nil || len(agents) != 1 || agents[0] != (fault.AgentInfo{ID: "api", Type: "service", Status: fault.StatusRunning}) {
		t.Errorf("ListAgents = %v, %v", agents, err)
	}
}

// errOf is the error of a landing, without its lift.
func errOf(_ fault.Lift, err error) error { return err }

// A fault that lands while base waits is cut then, when base heeds the
// request's context as http.Transport does: for the callee's answer (it
// answers at 3s), or for the next chunk of the body (one chunk at once,
// the next at 3s). The fault lands at 1s on a call started at 0; a reset
// after d cuts it when the call has lasted d; one lifted before it is due
// cuts nothing.
func TestTransportCutsAWaitOnBase(t *testing.T) {
	ctx := context.Background()
	faults := []struct {
		name  string
		fault func(n *Network) error
		want  string // when the call is cut ("": the callee's answer at 3s)
	}{
		{"partition", func(n *Network) error { return errOf(n.PartitionNetwork(ctx, "api")) }, "reset@1s"},
		{"reset at once", func(n *Network) error { return errOf(n.ResetConnections(ctx, "client", 0)) }, "reset@1s"},
		{"reset after 2s", func(n *Network) error { return errOf(n.ResetConnections(ctx, "api", 2*time.Second)) }, "reset@2s"},
		{"reset after 2s, lifted at 1.5s", func(n *Network) error {
			lift, err := n.ResetConnections(ctx, "api", 2*time.Second)
			time.AfterFunc(500*time.Millisecond, func() { lift(ctx) })
			return err
		}, ""},
	}
	for _, waitOn := range []string{"callee", "body"} {
		for _, tc := range faults {
			t.Run(waitOn+"/"+tc.name, func(t *testing.T) {
				simulated(t, func(t *testing.T, n *Network) {
					base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
						body := &slowBody{ctx: r.Context(), chunks: []time.Duration{0, 3 * time.Second}}
						if waitOn == "callee" {
							body.chunks = []time.Duration{0}
							if err := sleepCtx(r.Context(), 3*time.Second); err != nil {
								return nil, err
							}
						}
						return &http.Response{StatusCode: 200, Body: body, ContentLength: -1, Request: r}, nil
					})
					client := &http.Client{Transport: n.Transport("client", base)}
					time.AfterFunc(time.Second, func() {
						if err := tc.fault(n); err != nil {
							t.Error(err)
						}
					})
					var got string
					resp, err := client.Get("http://api/q")
					if err == nil {
						_, err = io.ReadAll(resp.Body)
						resp.Body.Close()
					}
					switch {
					case errors.Is(err, syscall.ECONNRESET):
						got = fmt.Sprintf("reset@%s", at(n))
					case err != nil:
						got = fmt.Sprintf("%v@%s", err, at(n))
					default:
						got = fmt.Sprintf("answered@%s", at(n))
					}
					want := tc.want
					if want == "" {
						want = "answered@3s"
					}
					if got != want {
						t.Errorf("call = %s, want %s", got, want)
					}
					if k := openConns(n); k != 0 {
						t.Errorf("%d ties left in the network's set after the call", k)
					}
				}, WithAgent("client", "client"), WithAgent("api", "service"))
			})
		}
	}
}

// slowBody is a response body whose chunks come at the given offsets from
// its first Read, then EOF; a wait ends with its request's context.
type slowBody struct {
	ctx    context.Context
	chunks []time.Duration
	start  time.Time
	next   int
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.next == len(b.chunks) {
		return 0, io.EOF
	}
	if b.next == 0 {
		b.start = time.Now()
	}
	if err := sleepCtx(b.ctx, time.Until(b.start.Add(b.chunks[b.next]))); err != nil {
		return 0, err
	}
	b.next++
	p[0] = 'x'
	return 1, nil
}

func (b *slowBody) Close() error { return nil }

// sleepCtx sleeps d, or until ctx ends (its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Over real TCP with net/http's own transport beneath: calls go through
// (the connection kept alive between them), and a partition landing while
// the server works cuts the call then: only the cut can end it, as the
// server answers once the call is over.
func TestTransportCutsARealCall(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			entered <- struct{}{}
			<-release
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	defer close(release)
	n := New(nil, WithAgent("client", "client"), WithAgent("api", "service", "127.0.0.1"))
	defer n.Close()
	base := http.DefaultTransport.(*http.Transport).Clone()
	defer base.CloseIdleConnections()
	client := &http.Client{Transport: n.Transport("client", base)}
	for range 2 {
		resp, err := client.Get(srv.URL + "/fast")
		if err != nil {
			t.Fatal(err)
		}
		if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "ok" {
			t.Fatalf("body = %q, %v", b, err)
		}
		resp.Body.Close()
	}
	done := make(chan error, 1)
	go func() {
		resp, err := client.Get(srv.URL + "/slow")
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	<-entered
	if _, err := n.PartitionNetwork(context.Background(), "api"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the call under way when the partition landed ended with %v, want ECONNRESET", err)
	}
	if k := openConns(n); k != 0 {
		t.Errorf("%d ties left in the network's set after the calls", k)
	}
}

// closeCounter is a request body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// TestHandlerTransportClosesTheBody: a RoundTripper must close the request's
// body, whether or not the handler reads it.
func TestHandlerTransportClosesTheBody(t *testing.T) {
	for _, read := range []bool{true, false} {
		body := &closeCounter{Reader: strings.NewReader("payload")}
		req, err := http.NewRequest(http.MethodPost, "http://api/upload", body)
		if err != nil {
			t.Fatal(err)
		}
		rt := HandlerTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if read {
				io.Copy(io.Discard, r.Body)
			}
		}))
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if body.closed == 0 {
			t.Errorf("handler read the body: %v; the body was not closed", read)
		}
	}
}
