// Package netfault puts a Go system that runs in the test's process under
// arena's network faults: network_latency, network_bandwidth,
// connection_reset, and http_error (HTTP errors per route, a fault type of
// this package: HTTPErrorFault).
//
// A [Network] names the system's agents ([WithAgent]) and is the runtime
// arena injects into: it implements arena.AgentLister, LatencyInjector,
// BandwidthLimiter, ConnectionResetter and FaultLifter. The system's calls
// go through its wrappers: [Network.Transport], an http.RoundTripper for
// the HTTP client of one agent, and [Network.Dialer], for its raw
// connections (or under an http.Transport). A call between two agents is
// under the faults of both ends.
//
// # Time
//
// Every wait of the wrappers is a timer ([Network.Sleep]) that ends with
// its context (a deadline, a cancelled request), or at [Network.Close].
// In real time it is the wall clock's; inside a testing/synctest bubble
// it is the bubble's, where the wait is durable and simulated time jumps
// past it: the system's own goroutines, unmodified, run in simulated time
// (arenatest.Simulate; package sim for a network of nodes in memory).
// A netfault.Network on an *arena.VirtualClock is refused: netfault no
// longer has simulated goroutines of its own (Network.Go), because one
// mechanism for in-process systems, the bubble, runs any Go code, not
// only code written for a scheduler of arena's. [HandlerTransport] serves
// requests with an http.Handler on the caller's goroutine.
//
// examples/raft-sim/quotes puts http_error on an HTTP client with retries
// and a circuit breaker this way, around package sim's transport, in
// simulated time.
package netfault
