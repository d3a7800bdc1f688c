package fault

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"
	"unicode"
)

// The network degradation faults: latency, bandwidth limits and connection
// resets on an agent's links. They land through capabilities of their own
// (LatencyInjector, BandwidthLimiter, ConnectionResetter); the fakes
// simulate them in virtual time, package netfault lands them on a Go
// service in the same process, and the containers runtime through proxies.
const (
	NetworkLatency   Type = "network_latency"
	NetworkBandwidth Type = "network_bandwidth"
	ConnectionReset  Type = "connection_reset"
)

// Metadata keys of the network faults.
const (
	MetaLatency   = "latency"
	MetaJitter    = "jitter"
	MetaDirection = "direction"
	MetaPeer      = "peer"
	MetaRate      = "rate"
	MetaAfter     = "after"
)

// Defaults of the network faults' metadata.
const (
	DefaultLatency = 200 * time.Millisecond
	// DefaultRate is network_bandwidth's rate when none is given: 100 kB/s.
	DefaultRate int64 = 100_000
	// MaxRate is the largest rate network_bandwidth takes, 1 TB/s: a cap
	// above it caps nothing.
	MaxRate int64 = 1_000_000_000_000
)

// Direction says which way of a link a network fault slows down, seen from
// the target agent.
type Direction string

// Directions of network_latency.
const (
	DirectionBoth     Direction = "both"     // requests and responses (the default)
	DirectionInbound  Direction = "inbound"  // what the agent receives
	DirectionOutbound Direction = "outbound" // what the agent sends
)

// Latency is what network_latency adds to an agent's links. Each request
// (or, on a raw connection, each chunk of data) is delayed by Latency plus
// a uniform draw in [−Jitter, +Jitter], never below zero; with a Peer only
// the links between the agent and that peer are slowed.
type Latency struct {
	Latency   time.Duration `json:"latency"`
	Jitter    time.Duration `json:"jitter,omitempty"`
	Direction Direction     `json:"direction,omitempty"`
	Peer      string        `json:"peer,omitempty"`
}

// LatencyInjector delays an agent's network traffic: network_latency.
type LatencyInjector interface {
	InjectLatency(ctx context.Context, agentID string, l Latency) (Lift, error)
}

// BandwidthLimiter caps the throughput of an agent's links, in bytes per
// second, each way: network_bandwidth.
type BandwidthLimiter interface {
	LimitBandwidth(ctx context.Context, agentID string, bytesPerSecond int64) (Lift, error)
}

// ConnectionResetter makes an agent's connections fail with a TCP reset:
// at once (after 0) or once a connection has been open for after:
// connection_reset. New connections are reset as well until the fault is
// lifted.
type ConnectionResetter interface {
	ResetConnections(ctx context.Context, agentID string, after time.Duration) (Lift, error)
}

var (
	metaLatency = MetaKey{Name: MetaLatency, Kind: MetaKindDuration, Positive: true, Default: DefaultLatency, Max: MaxDelay,
		Doc: "Added to each request through the agent's links (default 200ms)."}
	metaJitter = MetaKey{Name: MetaJitter, Kind: MetaKindDuration, Max: MaxDelay,
		Doc: "Each delay is latency plus a uniform draw in [-jitter, +jitter], never below zero (default 0)."}
	metaDirection = MetaKey{Name: MetaDirection, Kind: MetaKindString, Default: string(DirectionBoth),
		Enum: []string{string(DirectionBoth), string(DirectionInbound), string(DirectionOutbound)},
		Doc:  "Which way is slowed, seen from the agent: both (default), inbound (what it receives) or outbound (what it sends)."}
	metaPeer = MetaKey{Name: MetaPeer, Kind: MetaKindString, Check: checkPeer, MaxLen: 256,
		Doc: "An agent ID: only the links between the target and this peer are slowed (default: every link)."}
	metaRate = MetaKey{Name: MetaRate, Kind: MetaKindNumber, Positive: true, Default: DefaultRate, Check: checkRate,
		Min: 1.0, Max: float64(MaxRate),
		Doc: "The cap in bytes per second, each way: a whole number (1000000 is 1 MB/s; default 100000)."}
	metaAfter = MetaKey{Name: MetaAfter, Kind: MetaKindDuration,
		Doc: "How long a connection stays open before it is reset (default 0: at once)."}
)

func checkPeer(v any) error {
	s := v.(string)
	switch {
	case s == "":
		return errors.New("empty: leave the key out to slow every link")
	case strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || unicode.IsSpace(r) || unicode.IsControl(r) }):
		return errors.New("contains white space or control characters")
	}
	return nil
}

func checkRate(v any) error {
	f := v.(float64)
	if f != math.Trunc(f) {
		return errors.New("want a whole number of bytes per second")
	}
	return nil
}

// latencyOf reads network_latency's parameters.
func latencyOf(p Params) Latency {
	l := Latency{Latency: DefaultLatency, Direction: DirectionBoth}
	if d, ok := p.Values[MetaLatency].(time.Duration); ok {
		l.Latency = d
	}
	if d, ok := p.Values[MetaJitter].(time.Duration); ok {
		l.Jitter = d
	}
	if s, ok := p.Values[MetaDirection].(string); ok {
		l.Direction = Direction(s)
	}
	if s, ok := p.Values[MetaPeer].(string); ok {
		l.Peer = s
	}
	return l
}

// rateOf reads network_bandwidth's rate in bytes per second.
func rateOf(p Params) int64 {
	if f, ok := p.Values[MetaRate].(float64); ok {
		return int64(f)
	}
	return DefaultRate
}

// afterOf reads connection_reset's delay.
func afterOf(p Params) time.Duration {
	d, _ := p.Values[MetaAfter].(time.Duration)
	return d
}

var networkSpecs = []Spec{
	{
		Type: NetworkLatency, Doc: "Delays an agent's network traffic by latency ± jitter, on every link or the one to peer.",
		Scope: ScopeNetwork, Target: TargetAgent, Metadata: []MetaKey{metaLatency, metaJitter, metaDirection, metaPeer, metaDuration}, Lifts: true,
		Route: "/arena/agent/{id}/latency",
		capability: liftVia(func(rt LatencyInjector, ctx context.Context, a Action, p Params) (Lift, error) {
			return rt.InjectLatency(ctx, a.TargetID, latencyOf(p))
		}),
		Category: CategoryRuntime, Fix: "target a running agent whose links the runtime can slow (a proxy or a wrapped transport)",
		Priority: 3, Suggestion: "put deadlines on calls, hedge or retry slow requests and shed load to faster peers",
	},
	{
		Type: NetworkBandwidth, Doc: "Caps the throughput of an agent's links at rate bytes per second.",
		Scope: ScopeNetwork, Target: TargetAgent, Metadata: []MetaKey{metaRate, metaDuration}, Lifts: true,
		Route: "/arena/agent/{id}/bandwidth",
		capability: liftVia(func(rt BandwidthLimiter, ctx context.Context, a Action, p Params) (Lift, error) {
			return rt.LimitBandwidth(ctx, a.TargetID, rateOf(p))
		}),
		Category: CategoryRuntime, Fix: "target a running agent whose links the runtime can throttle (a proxy or a wrapped transport)",
		Priority: 3, Suggestion: "stream or compress large payloads and time out transfers that cannot finish",
	},
	{
		Type: ConnectionReset, Doc: "Resets an agent's connections (TCP RST), at once or after they have been open for after.",
		Scope: ScopeNetwork, Target: TargetAgent, Metadata: []MetaKey{metaAfter, metaDuration}, Lifts: true,
		Route: "/arena/agent/{id}/connection-reset",
		capability: liftVia(func(rt ConnectionResetter, ctx context.Context, a Action, p Params) (Lift, error) {
			return rt.ResetConnections(ctx, a.TargetID, afterOf(p))
		}),
		Category: CategoryRuntime, Fix: "target a running agent whose connections the runtime can reset (a proxy or a wrapped dialer)",
		Priority: 5, Suggestion: "retry idempotent calls on a fresh connection with backoff, and open a circuit breaker on repeated resets",
	},
}
