package netfault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/netrules"
)

// pipeDial dials an in-memory connection whose far end drains whatever is
// written to it, so that a Write returns once its wait is over.
func pipeDial(ctx context.Context, network, addr string) (net.Conn, error) {
	near, far := net.Pipe()
	go func() {
		io.Copy(io.Discard, far)
		far.Close()
	}()
	return near, nil
}

// Every wait of the Dialer's connections ends with its deadline, the
// connection's Close, the fault's lift or the Network's Close. Before issue
// 26 they slept on context.Background(): a 2,048-byte write at 1 B/s was
// still blocked 6s in, whatever happened. In real time, on the fake clock
// of a synctest bubble.
func TestDialerWaitsEnd(t *testing.T) {
	for _, tc := range []struct {
		name    string
		after6s func(n *Network, c net.Conn, lift fault.Lift)
		setup   func(c net.Conn)
		want    error
	}{
		{"deadline", nil, func(c net.Conn) { c.SetWriteDeadline(time.Now().Add(6 * time.Second)) }, os.ErrDeadlineExceeded},
		{"close", func(_ *Network, c net.Conn, _ fault.Lift) { c.Close() }, nil, net.ErrClosed},
		{"lift", func(_ *Network, _ net.Conn, lift fault.Lift) {
			if err := lift(context.Background()); err != nil {
				panic(err)
			}
		}, nil, nil},
		{"network close", func(n *Network, _ net.Conn, _ fault.Lift) { n.Close() }, nil, ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := New(clock.Real{}, WithAgent("app", "client"), WithAgent("db", "service"))
				defer n.Close()
				lift, err := n.LimitBandwidth(context.Background(), "db", 1)
				if err != nil {
					t.Fatal(err)
				}
				c, err := n.Dialer("app", pipeDial)(context.Background(), "tcp", "db:5432")
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if tc.setup != nil {
					tc.setup(c)
				}
				start := time.Now()
				done := make(chan error, 1)
				go func() {
					_, err := c.Write(make([]byte, 2048))
					done <- err
				}()
				if tc.after6s != nil {
					time.Sleep(6 * time.Second)
					tc.after6s(n, c, lift)
				}
				err = <-done
				if took := time.Since(start); took != 6*time.Second || !errors.Is(err, tc.want) {
					t.Errorf("Write of 2048 bytes at 1 B/s = %v after %s, want %v after 6s", err, took, tc.want)
				}
			})
		})
	}
}

// An http.Transport that gives up on a request (the client's timeout)
// closes the connection, and with it the wait under way: no goroutine is
// left behind (the package's TestMain checks), and it ends at the timeout.
func TestHTTPTransportTimeoutLeavesNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New(clock.Real{}, WithAgent("app", "client"), WithAgent("api", "service"))
		defer n.Close()
		srvConn := make(chan net.Conn, 8)
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			near, far := net.Pipe()
			srvConn <- far
			return near, nil
		}
		go func() { // a server that reads requests and never answers
			for c := range srvConn {
				go func() {
					io.Copy(io.Discard, c)
					c.Close()
				}()
			}
		}()
		defer close(srvConn)
		if _, err := n.InjectLatency(context.Background(), "api", fault.Latency{Latency: time.Hour, Direction: fault.DirectionInbound}); err != nil {
			t.Fatal(err)
		}
		tr := &http.Transport{DialContext: n.Dialer("app", dial)}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: 2 * time.Second}
		start := time.Now()
		for range 3 {
			if _, err := client.Get("http://api/slow"); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Get = %v, want the client's timeout", err)
			}
		}
		if took := time.Since(start); took != 6*time.Second {
			t.Errorf("3 requests took %s, want 2s each", took)
		}
		synctest.Wait() // every goroutine of the timed-out requests has ended or is idle
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if n := strings.Count(stacks, "netfault.(*conn).Write"); n > 0 {
			t.Errorf("%d goroutines still wait in a Write of a closed connection", n)
		}
	})
}

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// endless is a body that never ends: a streaming response.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	n := min(len(p), 100)
	for i := range n {
		p[i] = 'x'
	}
	return n, nil
}

// A response body streams through: RoundTrip answers at the response leg's
// end, each chunk read takes its bytes/rate, and a reset landing mid-stream
// cuts it at the next chunk. Before issue 26 the Transport read every body
// whole: a streaming response never returned, and a reset mid-stream never
// applied.
func TestTransportStreams(t *testing.T) {
	simulated(t, func(t *testing.T, n *Network) {
		base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Body: io.NopCloser(endless{}), ContentLength: -1, Request: r}, nil
		})
		client := &http.Client{Transport: n.Transport("client", base)}
		ctx := context.Background()
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(errOf(n.InjectLatency(ctx, "feed", fault.Latency{Latency: 200 * time.Millisecond})))
		must(errOf(n.LimitBandwidth(ctx, "feed", 1000)))
		var log []string
		done := make(chan struct{})
		go func() {
			defer close(done)
			resp, err := client.Get("http://feed/events")
			if err != nil {
				log = append(log, err.Error())
				return
			}
			defer resp.Body.Close()
			log = append(log, fmt.Sprintf("answered@%s", at(n)))
			buf := make([]byte, 100)
			for i := 0; ; i++ {
				if _, err := resp.Body.Read(buf); err != nil {
					log = append(log, fmt.Sprintf("chunk %d: reset=%v@%s", i, errors.Is(err, syscall.ECONNRESET), at(n)))
					return
				}
				if i == 9 {
					log = append(log, fmt.Sprintf("10 chunks@%s", at(n)))
				}
			}
		}()
		time.Sleep(2050 * time.Millisecond)
		must(errOf(n.ResetConnections(ctx, "feed", 0))) // lands mid-stream, halfway through chunk 18
		<-done
		want := "answered@200ms, 10 chunks@1.2s, chunk 18: reset=true@2.05s"
		if got := strings.Join(log, ", "); got != want {
			t.Errorf("stream = %q, want %q", got, want)
		}
	}, WithAgent("client", "client"), WithAgent("feed", "service"))
}

// A request body of unknown length is under the bandwidth cap too, paced
// as base reads it: a ContentLength of -1, and of 0 with a body, which is
// what http.NewRequest gives a pipe or a file (a streamed upload). Before
// issue 26 the first skipped the cap, before issue 34 the others did.
func TestTransportPacesBodiesOfUnknownLength(t *testing.T) {
	const size = 10_000
	for _, tc := range []struct {
		name string
		req  func(t *testing.T) *http.Request
	}{
		{"ContentLength -1", func(t *testing.T) *http.Request {
			body := io.MultiReader(bytes.NewReader(make([]byte, size/2)), strings.NewReader(strings.Repeat("y", size/2)))
			req, _ := http.NewRequest(http.MethodPost, "http://api/upload", io.NopCloser(body))
			req.ContentLength = -1
			return req
		}},
		{"io.Pipe, ContentLength 0", func(t *testing.T) *http.Request {
			pr, pw := io.Pipe()
			go func() {
				for range size / 1000 {
					pw.Write(make([]byte, 1000))
				}
				pw.Close()
			}()
			req, _ := http.NewRequest(http.MethodPost, "http://api/upload", pr)
			return req
		}},
		{"file, ContentLength 0", func(t *testing.T) *http.Request {
			name := filepath.Join(t.TempDir(), "upload")
			if err := os.WriteFile(name, make([]byte, size), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() }) // if the request never reaches the transport
			req, _ := http.NewRequest(http.MethodPost, "http://api/upload", f)
			return req
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			simulated(t, func(t *testing.T, n *Network) {
				var got int
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					b, _ := io.ReadAll(r.Body)
					got = len(b)
				})
				client := &http.Client{Transport: n.Transport("client", HandlerTransport(h))}
				if _, err := n.LimitBandwidth(context.Background(), "api", 1000); err != nil {
					t.Fatal(err)
				}
				req := tc.req(t)
				if req.ContentLength > 0 {
					t.Fatalf("the request has ContentLength %d, want an unknown length", req.ContentLength)
				}
				start := at(n)
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if took := at(n) - start; got != size || took != 10*time.Second {
					t.Errorf("%d bytes of unknown length at 1000 B/s: %d bytes in %s, want all of them in 10s", size, got, took)
				}
			}, WithAgent("client", "client"), WithAgent("api", "service"))
		})
	}
}

// Two latencies at the top of a Duration used to sum past MaxInt64 into a
// negative delay, so the call went through at once; the sum saturates now,
// and the call waits until its deadline.
func TestLatenciesSaturate(t *testing.T) {
	simulated(t, func(t *testing.T, n *Network) {
		s := newHTTPSystem(n)
		ctx := context.Background()
		for _, id := range []string{"client", "api"} {
			dir := fault.DirectionOutbound
			if id == "api" {
				dir = fault.DirectionInbound
			}
			if _, err := s.n.InjectLatency(ctx, id, fault.Latency{Latency: math.MaxInt64, Direction: dir}); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := s.call("http://api.local/x", 5*time.Second), "timeout 0s..5s"; got != want {
			t.Errorf("call = %q, want %q", got, want)
		}
	}, httpAgents...)
}

// A lift ends the waits under the lifted fault at once, in simulated time
// too: a call behind an hour of latency is through at the lift.
func TestLiftEndsWaits(t *testing.T) {
	simulated(t, func(t *testing.T, n *Network) {
		s := newHTTPSystem(n)
		ctx := context.Background()
		lift, err := s.n.InjectLatency(ctx, "api", fault.Latency{Latency: time.Hour, Direction: fault.DirectionInbound})
		if err != nil {
			t.Fatal(err)
		}
		out := make(chan string)
		go func() {
			resp, err := s.client.Get("http://api.local/x")
			if err != nil {
				out <- err.Error()
				return
			}
			resp.Body.Close()
			out <- fmt.Sprintf("%d@%s", resp.StatusCode, at(s.n))
		}()
		time.Sleep(10 * time.Second)
		if err := lift(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := <-out, "200@10s"; got != want {
			t.Errorf("call = %q, want %q: the lift ends the wait", got, want)
		}
	}, httpAgents...)
}

// FailRoute keeps one entry per route (100,000 calls used to take 56 MB)
// and at most MaxRoutes of them.
func TestFailRouteIsBounded(t *testing.T) {
	n := New(nil, WithAgent("api", "service"))
	defer n.Close()
	ctx := context.Background()
	for i := range 100_000 {
		if err := n.FailRoute(ctx, "api", "/q", 500+i%10); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(n.routes["api"]); got != 1 {
		t.Errorf("%d routes kept after failing one route 100,000 times, want 1", got)
	}
	if s := n.failedStatus("api", "/q"); s != 509 {
		t.Errorf("status = %d, want the last one given, 509", s)
	}
	for i := range MaxRoutes - 1 {
		if err := n.FailRoute(ctx, "api", fmt.Sprintf("/r%d", i), 503); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.FailRoute(ctx, "api", "/one-too-many", 503); err == nil || !strings.Contains(err.Error(), "lift http_error first") {
		t.Errorf("FailRoute beyond %d routes = %v, want an error", MaxRoutes, err)
	}
	if err := n.liftRoutes(ctx, "api"); err != nil || len(n.routes["api"]) != 0 {
		t.Errorf("lift of http_error = %v, %d routes left", err, len(n.routes["api"]))
	}
}

// Every numeric metadata key of every fault type the network lands, read
// from the specs: at both ends of its range it validates, lands, and a call
// under it ends (through, reset or at its deadline) without a panic; just
// outside its range it is refused.
func TestEveryKeyAtTheEdgesOfItsRange(t *testing.T) {
	simulated(t, func(t *testing.T, n *Network) { everyKeyAtTheEdges(t, n) },
		WithAgent("client", "client"), WithAgent("api", "service", "api.local"))
}

func everyKeyAtTheEdges(t *testing.T, n *Network) {
	in := fault.NewInjectorFor(n, fault.WithFault(HTTPErrorFault(n)))
	svc := engine.NewService(in, nil, nil, engine.WithMaxFaultDuration(fault.MaxMetaDuration))
	client := &http.Client{Transport: n.Transport("client", HandlerTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("z", 4096))
	})))}
	keys := 0
	for _, spec := range in.FaultTypes() {
		if in.Unsupported(spec.Type) != nil {
			continue
		}
		for _, k := range spec.Metadata {
			if k.Kind == fault.MetaKindString {
				continue
			}
			keys++
			lo, hi := k.Range()
			var below, above any
			if d, ok := hi.(time.Duration); ok {
				below, above = lo.(time.Duration)-1, d+1
			} else {
				below, above = math.Nextafter(lo.(float64), -1), math.Nextafter(hi.(float64), math.Inf(1))
			}
			for _, v := range []any{below, above} {
				if err := in.Validate(fault.Action{Type: spec.Type, TargetID: "api", Metadata: map[string]any{k.Name: v}}); err == nil {
					t.Errorf("%s.%s = %v validated, want it refused: outside %s", spec.Type, k.Name, v, k.RangeText())
				}
			}
			for _, v := range []any{lo, hi} {
				if d, ok := v.(time.Duration); ok {
					v = d.String()
				}
				res := svc.Execute(context.Background(), fault.Action{Type: spec.Type, TargetID: "api", Metadata: map[string]any{k.Name: v}})
				if !res.Success {
					t.Errorf("%s.%s = %v: %s", spec.Type, k.Name, v, res.Error)
					continue
				}
				var out string
				func() {
					ctx, cancel := context.WithTimeout(context.Background(), 3*time.Hour)
					defer cancel()
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://api.local/x", nil)
					resp, err := client.Do(req)
					if err != nil {
						out = err.Error()
						return
					}
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					out = fmt.Sprintf("%d %v", resp.StatusCode, err)
				}()
				if out == "" {
					t.Errorf("%s.%s = %v: the call never ended", spec.Type, k.Name, v)
				}
				svc.Rollback(context.Background())
				if got, _ := n.links.Faults("api"); got != (netrules.Faults{}) {
					t.Errorf("%s.%s = %v: after the rollback, faults %+v are left", spec.Type, k.Name, v, got)
				}
			}
		}
	}
	if keys < 6 {
		t.Errorf("%d numeric keys among the network's fault types, want every one", keys)
	}
}
