package netfaultexample

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/netfault"
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

// System is the quotes system on a netfault network, with its callers
// running, and an arena service whose runtime is the network.
type System struct {
	Net     *netfault.Network
	Client  *Client
	Service *arena.Service

	mu    sync.Mutex
	calls []call // within the last Window
}

type call struct {
	at      time.Time
	latency time.Duration
	failed  bool
}

// NewSystem starts the system on clock (virtual in the tests), seeded; with
// breaker the client has a circuit breaker. Close ends it.
func NewSystem(clock arena.Clock, seed uint64, breaker bool) *System {
	n := netfault.New(clock, netfault.WithSeed(seed),
		netfault.WithAgent("client", "client"),
		netfault.WithAgent("quotes", "service", "quotes.internal"),
		netfault.WithAgent("cache", "cache", "cache.internal"))
	var b *Breaker
	if breaker {
		b = NewBreaker()
	}
	s := &System{Net: n, Client: NewClient(n, hosts{"quotes.internal": quotes(n, false), "cache.internal": quotes(n, true)}, b)}
	in := arena.NewInjectorFor(n, arena.WithFault(netfault.HTTPErrorFault(n)))
	s.Service = arena.NewService(in, events.NewMemoryStore(), nil,
		arena.WithClock(clock), arena.WithSeed(seed), arena.WithProbe(n.Probe(s.Probe)))
	for i := range Callers {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		symbols := []string{"ACME", "GLOBEX", "INITECH", "UMBRELLA"}
		n.Go(func(ctx context.Context) { s.caller(ctx, rng, symbols[i%len(symbols)]) })
	}
	return s
}

// caller asks for a quote every Interval ± 30% until the network closes.
func (s *System) caller(ctx context.Context, rng *rand.Rand, symbol string) {
	for {
		jitter := time.Duration(rng.Int64N(int64(Interval)*6/10+1)) - Interval*3/10
		if err := s.Net.Sleep(ctx, Interval+jitter); err != nil {
			return
		}
		start := s.Net.Now()
		_, err := s.Client.Quote(ctx, symbol)
		if ctx.Err() != nil {
			return
		}
		s.record(call{at: s.Net.Now(), latency: s.Net.Now().Sub(start), failed: err != nil})
	}
}

func (s *System) record(c call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

// Probe is healthy while, over the last Window, at most MaxErrors of the
// calls failed and the 90th percentile latency is at most MaxLatency.
func (s *System) Probe(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := s.Net.Now()
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

// Close stops the callers.
func (s *System) Close() { s.Net.Close() }
