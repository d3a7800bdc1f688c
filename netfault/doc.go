// Package netfault puts a Go system that runs in the test's process under
// arena's network faults: network_latency, network_bandwidth,
// connection_reset, network_partition, and http_error (HTTP errors per
// route, a fault type of this package: HTTPErrorFault).
//
// A [Network] names the system's agents ([WithAgent]) and is the runtime
// arena injects into: it implements fault.AgentLister, LatencyInjector,
// BandwidthLimiter, ConnectionResetter and Partitioner, each fault handing
// back its Lift. The system's calls go through its wrappers:
// [Network.Transport], an http.RoundTripper for the HTTP client of one
// agent, and [Network.Dialer], for its raw connections (or under an
// http.Transport). A call between two agents is under the faults of both
// ends. A call that a fault stops fails as on a real network: a
// [*ResetError] wraps ECONNRESET, a [*RefusedError] (across a partition)
// ECONNREFUSED.
//
// # Time
//
// Every wait of the wrappers is a timer: in real time the wall clock's;
// inside a testing/synctest bubble the bubble's, where the wait is durable
// and simulated time jumps past it, so the system's own goroutines,
// unmodified, run in simulated time (arenatest.Simulate; package sim for a
// network of nodes in memory). A netfault.Network on an
// *clock.Virtual is refused: netfault no longer has simulated
// goroutines of its own (Network.Go), because one mechanism for in-process
// systems, the bubble, runs any Go code, not only code written for a
// scheduler of arena's.
//
// Every wait ends early: when the link's faults change (a lift ends it at
// once, a new fault lengthens it), with its context, at a connection's
// deadline or Close, when a response body is closed, and at the Network's
// Close. Response bodies stream through, each chunk paced. How the faults
// of a link's two ends combine is arena's one set of network rules
// (internal/netrules), which the fakes and package sim apply too:
// latencies add up (saturating, never past the largest duration), the
// lower bandwidth cap and the earlier reset win, and a partition on either
// end cuts the link. A reset or a partition reaches a connection or call
// that waits on what is beneath it when due, not at its next step: the
// network keeps its open connections and calls (weakly: a dropped one is
// still collected; a closed one leaves at once) on one schedule of the
// resets due, and closes the connection beneath (an RST on TCP) or
// cancels the context of the request base sees. [HandlerTransport] serves
// requests with an http.Handler on the caller's goroutine.
//
// examples/raft-sim/quotes puts http_error on an HTTP client with retries
// and a circuit breaker this way, around package sim's transport, in
// simulated time.
//
// # Index
//
//   - The network: New, Option, WithAgent, WithSeed, Network, Network.Now,
//     Network.Sleep, Network.Close, ErrClosed.
//   - Wrappers: Network.Transport, Network.Dialer, DialFunc,
//     HandlerTransport.
//   - Faults (the runtime): Network.ListAgents, Network.InjectLatency,
//     Network.LimitBandwidth, Network.ResetConnections,
//     Network.PartitionNetwork, Network.FailRoute, HTTPErrorFault,
//     ActionHTTPError, MaxRoutes, Network.Refusals.
//   - Errors: ResetError, RefusedError.
package netfault
