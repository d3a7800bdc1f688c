package quotes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/netfault"
	"github.com/ares-arena/arena/sim"
)

// The callers' service level objective, judged by the probe over the last
// Window.
const (
	Callers    = 4
	Interval   = 100 * time.Millisecond // between a caller's calls, ± 30%
	Window     = time.Second
	MaxErrors  = 0.05
	MaxLatency = 300 * time.Millisecond // at the 90th percentile
)

// System is the quotes system on a sim world: the two services serving,
// the callers calling.
type System struct {
	Client *Client
	// HTTPErrors is netfault's network around the client's transport: it
	// lands http_error (HTTPErrorFault), which sim's network does not.
	HTTPErrors *netfault.Network

	mu    sync.Mutex
	calls []call // within the last Window
	wg    sync.WaitGroup
	stop  context.CancelFunc
}

type call struct {
	at      time.Time
	latency time.Duration
	failed  bool
}

// Start adds the nodes "quotes", "cache" and "client" to w, serves the
// services and starts the callers; with breaker the client has a circuit
// breaker. Stop ends the callers; the world's Close ends the rest.
func Start(w *sim.World, breaker bool) (*System, error) {
	for _, name := range []string{"quotes", "cache"} {
		h := handler(name == "cache")
		var srv *http.Server
		_, err := w.AddNode(name, sim.NodeConfig{Type: "service", RestartAfter: time.Second,
			Start: func(ctx context.Context, n *sim.Node) error {
				l, err := n.Listen(":80")
				if err != nil {
					return err
				}
				srv = &http.Server{Handler: h}
				go srv.Serve(l)
				return nil
			},
			Stop: func(ctx context.Context, n *sim.Node) error { return srv.Close() },
		})
		if err != nil {
			return nil, err
		}
	}
	node, err := w.AddNode("client", sim.NodeConfig{Type: "client"})
	if err != nil {
		return nil, err
	}
	errs := netfault.New(clock.Real{}, netfault.WithAgent("client", "client"),
		netfault.WithAgent("quotes", "service"), netfault.WithAgent("cache", "cache"))
	var b *Breaker
	if breaker {
		b = NewBreaker()
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &System{Client: NewClient(errs.Transport("client", node.HTTPTransport()), b), HTTPErrors: errs, stop: stop}
	symbols := []string{"ACME", "GLOBEX", "INITECH", "UMBRELLA"}
	for i := range Callers {
		rng := rand.New(rand.NewPCG(node.Rand().Uint64(), uint64(i)))
		s.wg.Go(func() { s.caller(ctx, rng, symbols[i%len(symbols)]) })
	}
	return s, nil
}

// Stop ends the callers and waits for them.
func (s *System) Stop() {
	s.stop()
	s.wg.Wait()
	s.HTTPErrors.Close()
}

// caller asks for a quote every Interval ± 30% until stopped.
func (s *System) caller(ctx context.Context, rng *rand.Rand, symbol string) {
	for {
		jitter := time.Duration(rng.Int64N(int64(Interval)*6/10+1)) - Interval*3/10
		select {
		case <-time.After(Interval + jitter):
		case <-ctx.Done():
			return
		}
		start := time.Now()
		_, err := s.Client.Quote(ctx, symbol)
		if ctx.Err() != nil {
			return
		}
		c := call{at: time.Now(), latency: time.Since(start), failed: err != nil}
		s.mu.Lock()
		s.calls = append(s.calls, c)
		s.mu.Unlock()
	}
}

// Probe is healthy while, over the last Window, at most MaxErrors of the
// calls failed and the 90th percentile latency is at most MaxLatency.
func (s *System) Probe(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	i := 0
	for i < len(s.calls) && !s.calls[i].at.After(now.Add(-Window)) {
		i++
	}
	s.calls = s.calls[i:]
	if len(s.calls) == 0 {
		return nil
	}
	failed := 0
	lat := make([]time.Duration, 0, len(s.calls))
	for _, c := range s.calls {
		if c.failed {
			failed++
		}
		lat = append(lat, c.latency)
	}
	if r := float64(failed) / float64(len(s.calls)); r > MaxErrors {
		return fmt.Errorf("%d of %d calls failed", failed, len(s.calls))
	}
	slices.Sort(lat)
	if p90 := lat[(len(lat)*9+9)/10-1]; p90 > MaxLatency {
		return fmt.Errorf("p90 latency %s above %s", p90, MaxLatency)
	}
	return nil
}
