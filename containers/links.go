package containers

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/ares-arena/arena/fault"
)

// A link is one agent reaching another through a Toxiproxy proxy of the
// runtime's own, so that Proxied can slow, throttle or reset that link
// alone. The proxy listens on the agents' network's gateway, an address of
// this host that the containers reach, and forwards to the destination's
// fixed host port (the one Agent.Endpoint uses): that port stays the same
// through the destination's kills, restarts and partitions, where its
// container IP does not, so the proxy's upstream never needs updating.
type link struct {
	from, to string
	port     network.Port // the destination's port the link reaches
	px       *toxiproxy.Proxy
}

// name is the link's proxy's name: "from->to".
func (l *link) name() string { return l.from + "->" + l.to }

type linkSpec struct{ from, to, port string }

func (l linkSpec) apply(o *options) { o.links = append(o.links, l) }

// LinkOption configures one link of WithLink.
type LinkOption interface{ applyLink(*linkSpec) }

type linkPort string

func (p linkPort) applyLink(l *linkSpec) { l.port = string(p) }

// LinkPort makes a link reach this port of the destination, such as
// "6222/tcp" (default its control port). The port must be one the
// destination exposes.
func LinkPort(port string) LinkOption { return linkPort(port) }

// WithLink routes agent from's connections to agent to through a proxy of
// the runtime, so that network faults can land on that link (see Proxied).
// The from container gets the proxy's address in its environment, named
// after to (upper case, other characters than letters and digits as "_"):
//
//	ARENA_LINK_<TO>_HOST  the proxy's IP address (the network's gateway)
//	ARENA_LINK_<TO>_PORT  its port
//	ARENA_LINK_<TO>_URL   http://<host>:<port>
//
// Your agent opts in by dialling those instead of <to>:<port>. The
// reference agents' links to their routes are proxied without asking.
// Links need the runtime to run on the Docker daemon's host (the containers
// reach the proxies at the network's gateway): elsewhere NewRuntime fails.
func WithLink(from, to string, opts ...LinkOption) Option {
	l := linkSpec{from: from, to: to}
	for _, o := range opts {
		o.applyLink(&l)
	}
	return l
}

// LinkEnv is the prefix of a link's environment variables in the from
// container: LinkEnv("worker-1") is "ARENA_LINK_WORKER_1_".
func LinkEnv(to string) string {
	return "ARENA_LINK_" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, to) + "_"
}

// startLinks starts a proxy for each link (WithLink and the reference
// agents' routes) and puts its address in the from agent's environment. It
// runs once the ports are planned and before any agent starts.
func (r *Runtime) startLinks(ctx context.Context, specs []agentSpec) error {
	byID := map[string]int{}
	for i, s := range specs {
		byID[s.id] = i
	}
	var want []linkSpec
	for _, s := range specs {
		if s.reference {
			for _, to := range s.routes {
				want = append(want, linkSpec{from: s.id, to: to})
			}
		}
	}
	user := len(r.opts.links) > 0
	for _, l := range r.opts.links {
		if !slices.ContainsFunc(want, func(w linkSpec) bool { return w.from == l.from && w.to == l.to }) {
			want = append(want, l)
		} else if l.port != "" {
			return fmt.Errorf("containers: WithLink(%s, %s, LinkPort(%s)): there is a link from %s to %s already", l.from, l.to, l.port, l.from, l.to)
		}
	}
	if len(want) == 0 {
		return nil
	}
	gw, err := r.gateway(ctx)
	if err != nil {
		if user {
			return fmt.Errorf("containers: links through proxies: %w", err)
		}
		return nil // reference agents reach their routes directly
	}
	envs := map[string]map[string]string{} // from → its link variables
	routeURLs := map[string][]string{}
	for _, l := range want {
		to := &specs[byID[l.to]]
		port := to.ctlPort
		if l.port != "" {
			if port, err = network.ParsePort(l.port); err != nil {
				return fmt.Errorf("containers: WithLink(%s, %s): port: %w", l.from, l.to, err)
			}
		}
		hp, ok := to.hostPorts[port]
		if !ok {
			return fmt.Errorf("containers: WithLink(%s, %s): agent %s does not expose %s", l.from, l.to, l.to, port)
		}
		// The listen port comes from the host ports' allocator: where the
		// agents' ports are published on every interface, a port the kernel
		// gave the proxy could be one planned for an agent.
		lp, err := r.hostPort()
		if err != nil {
			return err
		}
		lk := &link{from: l.from, to: l.to, port: port}
		lk.px = toxiproxy.NewProxy(r.tox, lk.name(), net.JoinHostPort(gw.String(), strconv.Itoa(lp)), net.JoinHostPort(r.host, strconv.Itoa(hp)))
		if err := lk.px.Start(); err != nil {
			return fmt.Errorf("containers: link %s: proxy: %w", lk.name(), err)
		}
		r.links = append(r.links, lk)
		host, lport, _ := net.SplitHostPort(lk.px.Listen)
		if envs[l.from] == nil {
			envs[l.from] = map[string]string{}
		}
		pre := LinkEnv(l.to)
		envs[l.from][pre+"HOST"], envs[l.from][pre+"PORT"], envs[l.from][pre+"URL"] = host, lport, "http://"+lk.px.Listen
		if specs[byID[l.from]].reference && slices.Contains(specs[byID[l.from]].routes, l.to) {
			routeURLs[l.from] = append(routeURLs[l.from], l.to+"=http://"+lk.px.Listen)
		}
	}
	for from, env := range envs {
		s := &specs[byID[from]]
		e := maps.Clone(s.req.Env)
		if e == nil {
			e = map[string]string{}
		}
		maps.Copy(e, env)
		if urls := routeURLs[from]; len(urls) > 0 && e["AGENTD_ROUTE_URLS"] == "" {
			e["AGENTD_ROUTE_URLS"] = strings.Join(urls, ",")
		}
		s.req.Env = e
	}
	return nil
}

// checkLinks checks WithLink's links against the agents: both ends exist
// and differ, and no agent has two links whose variables share a name.
func checkLinks(specs []agentSpec, links []linkSpec) error {
	ids := map[string]bool{}
	names := map[string]string{} // from + its variables' prefix → to
	for _, s := range specs {
		ids[s.id] = true
		for _, to := range s.routes {
			if s.reference {
				names[s.id+" "+LinkEnv(to)] = to
			}
		}
	}
	for _, l := range links {
		switch {
		case l.from == l.to:
			return fmt.Errorf("containers: WithLink(%s, %s): an agent links to another agent", l.from, l.to)
		case !ids[l.from]:
			return fmt.Errorf("containers: WithLink(%s, %s): from: %w", l.from, l.to, fault.ErrNoAgent)
		case !ids[l.to]:
			return fmt.Errorf("containers: WithLink(%s, %s): to: %w", l.from, l.to, fault.ErrNoAgent)
		}
		key := l.from + " " + LinkEnv(l.to)
		if other, ok := names[key]; ok && other != l.to {
			return fmt.Errorf("containers: WithLink(%s, %s): its variables %s* are those of the link to %s", l.from, l.to, LinkEnv(l.to), other)
		}
		names[key] = l.to
	}
	return nil
}

// gateway returns the agents' network's gateway, where the containers reach
// this host, once it is sure that it is an address of this host: a remote
// daemon's gateway is not.
func (r *Runtime) gateway(ctx context.Context) (netip.Addr, error) {
	res, err := r.docker.NetworkInspect(ctx, r.network.ID, client.NetworkInspectOptions{})
	if err != nil {
		return netip.Addr{}, fmt.Errorf("network %s: %w", r.network.Name, err)
	}
	var gw netip.Addr
	for _, c := range res.Network.IPAM.Config {
		if c.Gateway.Is4() {
			gw = c.Gateway
			break
		}
	}
	if !gw.IsValid() {
		return netip.Addr{}, fmt.Errorf("network %s has no IPv4 gateway", r.network.Name)
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return netip.Addr{}, err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == gw {
				return gw, nil
			}
		}
	}
	return netip.Addr{}, fmt.Errorf("gateway %s of network %s is not an address of this host: the Docker daemon is elsewhere", gw, r.network.Name)
}

// retarget points the links to s at its host port again, after a start
// that had to pick new ones.
func (r *Runtime) retarget(s agentSpec) error {
	for _, l := range r.links {
		if l.to != s.id {
			continue
		}
		up := net.JoinHostPort(r.host, strconv.Itoa(s.hostPorts[l.port]))
		if err := l.px.Update(&toxiproxy.Proxy{Listen: l.px.Listen, Upstream: up, Enabled: true}); err != nil {
			return fmt.Errorf("containers: link %s: proxy: %w", l.name(), err)
		}
	}
	return nil
}

// stopLinks removes the links' toxics and stops their proxies.
func (r *Runtime) stopLinks() {
	for _, l := range r.links {
		l.px.Toxics.ResetToxics(context.Background())
		l.px.Stop()
	}
}

// LinkEndpoint returns the base URL of the proxy of the link from → to, such
// as "http://172.18.0.1:40111": what from dials (ARENA_LINK_<TO>_URL), and
// what a client on this host may dial to see what from sees.
func (r *Runtime) LinkEndpoint(from, to string) (string, error) {
	for _, l := range r.links {
		if l.from == from && l.to == to {
			return "http://" + l.px.Listen, nil
		}
	}
	return "", fmt.Errorf("containers: link %s->%s: %w", from, to, ErrPeerNotProxied)
}
