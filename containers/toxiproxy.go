package containers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	zlog "github.com/rs/zerolog/log"

	"github.com/ares-arena/arena"
)

var (
	_ arena.RuntimeProvider    = (*Proxied)(nil)
	_ arena.LatencyInjector    = (*Proxied)(nil)
	_ arena.BandwidthLimiter   = (*Proxied)(nil)
	_ arena.ConnectionResetter = (*Proxied)(nil)
	_ arena.FaultLifter        = (*Proxied)(nil)
)

// ErrPeerNotProxied: network_latency named a peer, but only the path from
// the host to each agent runs through a proxy so far.
var ErrPeerNotProxied = errors.New("links between agents are not proxied")

// Proxied is a Runtime whose agents are reached through Toxiproxy proxies,
// one in front of each agent's control port, so that it lands the network
// faults too: network_latency, network_bandwidth and connection_reset are
// Toxiproxy toxics on the agent's proxy, lifted by removing them.
//
// The proxies run in this process, on the Toxiproxy library
// (github.com/Shopify/toxiproxy/v2): a toxic is a method call, with no
// image to build or container to start, and the proxies, with their toxics,
// end with the process that owns them, so a crashed test leaves no fault
// behind. The probe's path (Runtime.Probe and the checks) goes through the
// proxies; the fault-control path does not, so faults can always be landed
// and lifted. A client of your own reaches an agent through its proxy at
// ProxyEndpoint.
//
// A latency is split between the two streams of the proxy (both: half on
// what the agent receives, half on what it sends), so a request's round
// trip takes latency longer; each stream gets its share of the jitter.
// Toxiproxy caps bandwidth in whole kB/s (1000 bytes): rate is rounded
// down to one, and to at least 1 kB/s, on each stream. A reset is
// Toxiproxy's reset_peer on what the agent receives, after `after`.
type Proxied struct {
	*Runtime
	srv *toxiproxy.ApiServer

	mu      sync.Mutex
	proxies map[string]*toxiproxy.Proxy // agent ID → its proxy
	toxics  map[string]map[arena.ActionType][]string
	closed  bool
}

// NewProxied starts a proxy in front of each agent of rt, and routes rt's
// probe through them. Call it before rt is probed. Close stops the proxies
// and closes rt.
func NewProxied(rt *Runtime) (*Proxied, error) {
	quietToxics.Do(func() { zlog.Logger = zerolog.Nop() })
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	p := &Proxied{Runtime: rt, srv: srv, proxies: map[string]*toxiproxy.Proxy{}, toxics: map[string]map[arena.ActionType][]string{}}
	via := map[string]string{}
	for _, a := range rt.Agents() {
		u, err := url.Parse(a.Endpoint())
		if err != nil {
			p.stop()
			return nil, fmt.Errorf("containers: agent %s: endpoint %q: %w", a.ID, a.Endpoint(), err)
		}
		px := toxiproxy.NewProxy(srv, a.ID, net.JoinHostPort(u.Hostname(), "0"), u.Host)
		if err := px.Start(); err != nil {
			p.stop()
			return nil, fmt.Errorf("containers: agent %s: proxy: %w", a.ID, err)
		}
		p.proxies[a.ID] = px
		via[u.Host] = px.Listen
	}
	rt.probeC.Transport = &viaProxy{base: rt.probeC.Transport, via: via}
	return p, nil
}

// quietToxics silences zerolog's global logger, through which Toxiproxy's
// toxics write a trace line per interrupted transfer to stderr; arena's own
// logging does not use zerolog.
var quietToxics sync.Once

// viaProxy sends a request for an agent's endpoint to its proxy instead.
type viaProxy struct {
	base http.RoundTripper
	via  map[string]string // agent endpoint host:port → proxy host:port
}

func (v *viaProxy) RoundTrip(req *http.Request) (*http.Response, error) {
	if addr, ok := v.via[req.URL.Host]; ok {
		req = req.Clone(req.Context())
		req.URL.Host = addr
	}
	return v.base.RoundTrip(req)
}

// ProxyEndpoint returns the base URL of the agent's control port through its
// proxy, such as "http://127.0.0.1:40111".
func (p *Proxied) ProxyEndpoint(agentID string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	px, ok := p.proxies[agentID]
	if !ok {
		return "", fmt.Errorf("containers: agent %q: %w", agentID, ErrNoAgent)
	}
	return "http://" + px.Listen, nil
}

// toxic is one Toxiproxy toxic to add.
type toxic struct {
	typ, stream string
	attrs       string // JSON object
}

// add replaces the agent's toxics of kind with ts.
func (p *Proxied) add(ctx context.Context, agentID string, kind arena.ActionType, ts ...toxic) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	px, ok := p.proxies[agentID]
	if !ok || p.closed {
		return fmt.Errorf("containers: agent %q: %w", agentID, ErrNoAgent)
	}
	p.removeLocked(ctx, agentID, kind)
	for _, t := range ts {
		name := string(kind) + "_" + t.stream
		body := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, name, t.typ, t.stream, t.attrs)
		if _, err := px.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
			p.removeLocked(ctx, agentID, kind)
			return fmt.Errorf("containers: agent %s: %s: toxic %s: %w", agentID, kind, t.typ, err)
		}
		if p.toxics[agentID] == nil {
			p.toxics[agentID] = map[arena.ActionType][]string{}
		}
		p.toxics[agentID][kind] = append(p.toxics[agentID][kind], name)
	}
	return nil
}

func (p *Proxied) removeLocked(ctx context.Context, agentID string, kind arena.ActionType) {
	px := p.proxies[agentID]
	for _, name := range p.toxics[agentID][kind] {
		_ = px.Toxics.RemoveToxic(context.WithoutCancel(ctx), name) // gone already is gone
	}
	delete(p.toxics[agentID], kind)
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

// InjectLatency adds latency toxics to the agent's proxy: upstream is what
// the agent receives (inbound), downstream what it sends (outbound).
func (p *Proxied) InjectLatency(ctx context.Context, agentID string, l arena.Latency) error {
	if l.Peer != "" {
		return fmt.Errorf("containers: agent %s: peer %s: %w", agentID, l.Peer, ErrPeerNotProxied)
	}
	lat := func(stream string, d, j time.Duration) toxic {
		return toxic{"latency", stream, fmt.Sprintf(`{"latency":%d,"jitter":%d}`, ms(d), ms(j))}
	}
	switch l.Direction {
	case arena.DirectionInbound:
		return p.add(ctx, agentID, arena.ActionNetworkLatency, lat("upstream", l.Latency, l.Jitter))
	case arena.DirectionOutbound:
		return p.add(ctx, agentID, arena.ActionNetworkLatency, lat("downstream", l.Latency, l.Jitter))
	default:
		return p.add(ctx, agentID, arena.ActionNetworkLatency,
			lat("upstream", l.Latency/2, l.Jitter/2), lat("downstream", l.Latency-l.Latency/2, l.Jitter-l.Jitter/2))
	}
}

// LimitBandwidth adds bandwidth toxics on both streams of the agent's proxy.
func (p *Proxied) LimitBandwidth(ctx context.Context, agentID string, bytesPerSecond int64) error {
	kb := max(bytesPerSecond/1000, 1)
	return p.add(ctx, agentID, arena.ActionNetworkBandwidth,
		toxic{"bandwidth", "upstream", fmt.Sprintf(`{"rate":%d}`, kb)},
		toxic{"bandwidth", "downstream", fmt.Sprintf(`{"rate":%d}`, kb)})
}

// ResetConnections adds a reset_peer toxic to the agent's proxy: each
// connection through it is reset once it has been open for after.
func (p *Proxied) ResetConnections(ctx context.Context, agentID string, after time.Duration) error {
	return p.add(ctx, agentID, arena.ActionConnectionReset,
		toxic{"reset_peer", "upstream", fmt.Sprintf(`{"timeout":%d}`, ms(after))})
}

// LiftFault removes the toxics of a network fault; other kinds are the
// Runtime's.
func (p *Proxied) LiftFault(ctx context.Context, kind arena.ActionType, agentID string) error {
	switch kind {
	case arena.ActionNetworkLatency, arena.ActionNetworkBandwidth, arena.ActionConnectionReset:
		p.mu.Lock()
		defer p.mu.Unlock()
		if _, ok := p.proxies[agentID]; !ok {
			return fmt.Errorf("containers: agent %q: %w", agentID, ErrNoAgent)
		}
		p.removeLocked(ctx, agentID, kind)
		return nil
	}
	return p.Runtime.LiftFault(ctx, kind, agentID)
}

// Toxics lists the agent's active toxics by name, sorted: what is still
// landed.
func (p *Proxied) Toxics(agentID string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, names := range p.toxics[agentID] {
		out = append(out, names...)
	}
	slices.Sort(out)
	return out
}

// stop removes every toxic and stops the proxies.
func (p *Proxied) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for id, px := range p.proxies {
		px.Toxics.ResetToxics(context.Background())
		px.Stop()
		delete(p.proxies, id)
	}
	clear(p.toxics)
}

// Close removes the toxics, stops the proxies and closes the runtime.
func (p *Proxied) Close(ctx context.Context) error {
	p.stop()
	return p.Runtime.Close(ctx)
}
