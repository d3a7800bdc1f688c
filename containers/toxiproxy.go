package containers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	zlog "github.com/rs/zerolog/log"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/netrules"
)

var (
	_ fault.RuntimeProvider    = (*Proxied)(nil)
	_ fault.LatencyInjector    = (*Proxied)(nil)
	_ fault.BandwidthLimiter   = (*Proxied)(nil)
	_ fault.ConnectionResetter = (*Proxied)(nil)
	_ fault.Refuser            = (*Proxied)(nil)
)

// ErrPeerNotProxied: no link between the two agents runs through a proxy
// (see WithLink), so a fault cannot land on it alone.
var ErrPeerNotProxied = errors.New("no proxied link between the agents")

// Proxied is a Runtime whose agents are reached through Toxiproxy proxies,
// so that it lands the network faults too: network_latency,
// network_bandwidth and connection_reset are Toxiproxy toxics on the
// agent's proxies, lifted by removing them.
//
// An agent's proxies are the one in front of its control port, on the path
// from this host (the probe, Runtime.Probe and the checks, and clients of
// your own at ProxyEndpoint), and those of its links to and from other
// agents (WithLink, and the reference agents' links to their routes, which
// the Runtime starts). A fault with a peer lands on the links between the
// agent and that peer only, both ways; without one, on every link of the
// agent and on its path from this host. The fault-control path does not go
// through the proxies, so faults can always be landed and lifted.
//
// The proxies run in this process, on the Toxiproxy library
// (github.com/Shopify/toxiproxy/v2): a toxic is a method call, with no
// image to build or container to start, and the proxies, with their toxics,
// end with the process that owns them, so a crashed test leaves no fault
// behind.
//
// A latency is split between the two streams of each proxy by arena's one
// rule of directions (both: half on what the agent sends, the other half,
// with the odd nanosecond, on what it receives), so a request's round trip
// takes latency longer; each stream gets its share of the jitter.
// Inbound is what the agent receives: on its own proxy and the links to it,
// the requests; on its links to others, the responses. Toxiproxy caps
// bandwidth in whole kB/s (1000 bytes): rate is rounded down to one, and
// to at least 1 kB/s, on each stream. A reset is Toxiproxy's reset_peer on
// the requests, after `after`.
type Proxied struct {
	*Runtime

	mu      sync.Mutex
	proxies map[string]*toxiproxy.Proxy // agent ID → its proxy from this host
	toxics  map[string]map[fault.Type][]placed
	closed  bool
}

// placed is a toxic on a proxy.
type placed struct {
	px   *toxiproxy.Proxy
	name string
}

// NewProxied starts a proxy in front of each agent of rt, and routes rt's
// probe through them. Call it before rt is probed. Close stops the proxies
// and closes rt.
func NewProxied(rt *Runtime) (*Proxied, error) {
	p := &Proxied{Runtime: rt, proxies: map[string]*toxiproxy.Proxy{}, toxics: map[string]map[fault.Type][]placed{}}
	via := map[string]string{}
	for _, a := range rt.Agents() {
		u, err := url.Parse(a.Endpoint())
		if err != nil {
			p.stop()
			return nil, fmt.Errorf("containers: agent %s: endpoint %q: %w", a.ID, a.Endpoint(), err)
		}
		px := toxiproxy.NewProxy(rt.tox, a.ID, net.JoinHostPort(u.Hostname(), "0"), u.Host)
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

// newToxServer is the server the proxies of a runtime belong to; it serves
// no API, its proxies are driven by method calls.
func newToxServer() *toxiproxy.ApiServer {
	quietToxics.Do(func() { zlog.Logger = zerolog.Nop() })
	return toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
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
		return "", fmt.Errorf("containers: agent %q: %w", agentID, fault.ErrNoAgent)
	}
	return "http://" + px.Listen, nil
}

// side is one of an agent's proxies, and which end of it the agent is.
type side struct {
	px     *toxiproxy.Proxy
	server bool // the agent is the proxy's upstream: it receives the requests
}

// receives and sends name the Toxiproxy stream of what the agent receives
// and sends through the proxy: "upstream" is what the client sends.
func (s side) receives() string {
	if s.server {
		return "upstream"
	}
	return "downstream"
}

func (s side) sends() string {
	if s.server {
		return "downstream"
	}
	return "upstream"
}

// sides returns the proxies a fault on agentID with this peer lands on:
// every link between the two; with no peer, every link of the agent and
// its proxy from this host.
func (p *Proxied) sides(agentID, peer string) ([]side, error) {
	var out []side
	if peer == "" {
		px, ok := p.proxies[agentID]
		if !ok || p.closed {
			return nil, fmt.Errorf("containers: agent %q: %w", agentID, fault.ErrNoAgent)
		}
		out = append(out, side{px, true})
	} else if _, ok := p.proxies[agentID]; !ok || p.closed {
		return nil, fmt.Errorf("containers: agent %q: %w", agentID, fault.ErrNoAgent)
	}
	for _, l := range p.links {
		switch {
		case l.from == agentID && (peer == "" || l.to == peer):
			out = append(out, side{l.px, false})
		case l.to == agentID && (peer == "" || l.from == peer):
			out = append(out, side{l.px, true})
		}
	}
	if peer != "" && len(out) == 0 {
		return nil, fmt.Errorf("containers: agent %s: peer %s: %w", agentID, peer, ErrPeerNotProxied)
	}
	return out, nil
}

// toxic is one Toxiproxy toxic to add.
type toxic struct {
	px          *toxiproxy.Proxy
	typ, stream string
	attrs       string // JSON object
}

// land replaces the agent's toxics of kind with those tox makes for each
// of its sides (for the peer, if any).
func (p *Proxied) land(ctx context.Context, agentID, peer string, kind fault.Type, tox func(side) []toxic) (fault.Lift, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sides, err := p.sides(agentID, peer)
	if err != nil {
		return nil, err
	}
	p.removeLocked(ctx, agentID, kind)
	for _, sd := range sides {
		for _, t := range tox(sd) {
			// One toxic per agent, kind and stream on a proxy: the link
			// between two agents may carry a fault of each.
			name := agentID + ":" + string(kind) + "_" + t.stream
			body := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, name, t.typ, t.stream, t.attrs)
			if _, err := t.px.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
				p.removeLocked(ctx, agentID, kind)
				return nil, fmt.Errorf("containers: agent %s: %s: toxic %s on %s: %w", agentID, kind, t.typ, t.px.Name, err)
			}
			if p.toxics[agentID] == nil {
				p.toxics[agentID] = map[fault.Type][]placed{}
			}
			p.toxics[agentID][kind] = append(p.toxics[agentID][kind], placed{t.px, name})
		}
	}
	return func(ctx context.Context) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.removeLocked(ctx, agentID, kind) // the agent's toxics of this kind: the last landing's
		return nil
	}, nil
}

func (p *Proxied) removeLocked(ctx context.Context, agentID string, kind fault.Type) {
	for _, t := range p.toxics[agentID][kind] {
		_ = t.px.Toxics.RemoveToxic(context.WithoutCancel(ctx), t.name) // gone already is gone
	}
	delete(p.toxics[agentID], kind)
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

// InjectLatency adds latency toxics to the agent's proxies (those of its
// links with l.Peer only, when it is set): inbound is what the agent
// receives, outbound what it sends.
func (p *Proxied) InjectLatency(ctx context.Context, agentID string, l fault.Latency) (fault.Lift, error) {
	lat := func(px *toxiproxy.Proxy, stream string, d, j time.Duration) toxic {
		return toxic{px, "latency", stream, fmt.Sprintf(`{"latency":%d,"jitter":%d}`, ms(d), ms(j))}
	}
	sends, receives := netrules.Split(l) // arena's one rule of directions
	return p.land(ctx, agentID, l.Peer, fault.NetworkLatency, func(s side) []toxic {
		var out []toxic
		if receives.Latency > 0 || receives.Jitter > 0 {
			out = append(out, lat(s.px, s.receives(), receives.Latency, receives.Jitter))
		}
		if sends.Latency > 0 || sends.Jitter > 0 {
			out = append(out, lat(s.px, s.sends(), sends.Latency, sends.Jitter))
		}
		return out
	})
}

// LimitBandwidth adds bandwidth toxics on both streams of each of the
// agent's proxies.
func (p *Proxied) LimitBandwidth(ctx context.Context, agentID string, bytesPerSecond int64) (fault.Lift, error) {
	return p.LimitLinkBandwidth(ctx, agentID, "", bytesPerSecond)
}

// LimitLinkBandwidth is LimitBandwidth on the links between the agent and
// peer only (every proxy of the agent when peer is ""). network_bandwidth
// has no peer key: this is for Go tests; its lift removes the agent's
// network_bandwidth toxics.
func (p *Proxied) LimitLinkBandwidth(ctx context.Context, agentID, peer string, bytesPerSecond int64) (fault.Lift, error) {
	kb := max(bytesPerSecond/1000, 1)
	return p.land(ctx, agentID, peer, fault.NetworkBandwidth, func(s side) []toxic {
		return []toxic{
			{s.px, "bandwidth", "upstream", fmt.Sprintf(`{"rate":%d}`, kb)},
			{s.px, "bandwidth", "downstream", fmt.Sprintf(`{"rate":%d}`, kb)},
		}
	})
}

// ResetConnections adds a reset_peer toxic to each of the agent's proxies:
// each connection through it is reset once its client has sent something
// and after has passed.
func (p *Proxied) ResetConnections(ctx context.Context, agentID string, after time.Duration) (fault.Lift, error) {
	return p.ResetLinkConnections(ctx, agentID, "", after)
}

// ResetLinkConnections is ResetConnections on the links between the agent
// and peer only (every proxy of the agent when peer is "").
// connection_reset has no peer key: this is for Go tests; its lift removes
// the agent's connection_reset toxics.
func (p *Proxied) ResetLinkConnections(ctx context.Context, agentID, peer string, after time.Duration) (fault.Lift, error) {
	return p.land(ctx, agentID, peer, fault.ConnectionReset, func(s side) []toxic {
		return []toxic{{s.px, "reset_peer", "upstream", fmt.Sprintf(`{"timeout":%d}`, ms(after))}}
	})
}

// Refusals are the Runtime's but for the network faults, which the
// proxies land.
func (p *Proxied) Refusals() map[fault.Type]string {
	out := p.Runtime.Refusals()
	delete(out, fault.NetworkLatency)
	delete(out, fault.NetworkBandwidth)
	delete(out, fault.ConnectionReset)
	return out
}

// Toxics lists the toxics of the agent's network faults that are still
// landed, as "<proxy>/<kind>_<stream>" (the proxy is the agent's ID for its
// path from this host, "from->to" for a link), sorted.
func (p *Proxied) Toxics(agentID string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, ts := range p.toxics[agentID] {
		for _, t := range ts {
			out = append(out, t.px.Name+"/"+strings.TrimPrefix(t.name, agentID+":"))
		}
	}
	slices.Sort(out)
	return out
}

// ProxyToxics returns the toxics every proxy holds, as Toxiproxy itself
// reports them, by proxy name (proxies without toxics left out): what is
// really in the way of the traffic, whatever Proxied thinks it landed.
func (p *Proxied) ProxyToxics() map[string][]string {
	p.mu.Lock()
	var pxs []*toxiproxy.Proxy
	for _, px := range p.proxies {
		pxs = append(pxs, px)
	}
	p.mu.Unlock()
	for _, l := range p.links {
		pxs = append(pxs, l.px)
	}
	out := map[string][]string{}
	for _, px := range pxs {
		for _, t := range px.Toxics.GetToxicArray() {
			if w, ok := t.(*toxics.ToxicWrapper); ok {
				out[px.Name] = append(out[px.Name], w.Name)
			}
		}
		slices.Sort(out[px.Name])
	}
	maps.DeleteFunc(out, func(_ string, v []string) bool { return len(v) == 0 })
	return out
}

// stop removes every toxic of the proxies and the links, and stops the
// proxies.
func (p *Proxied) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for id, px := range p.proxies {
		px.Toxics.ResetToxics(context.Background())
		px.Stop()
		delete(p.proxies, id)
	}
	for _, l := range p.links {
		l.px.Toxics.ResetToxics(context.Background())
	}
	clear(p.toxics)
}

// Close removes the toxics, stops the proxies and closes the runtime (which
// stops the links' proxies).
func (p *Proxied) Close(ctx context.Context) error {
	p.stop()
	return p.Runtime.Close(ctx)
}
