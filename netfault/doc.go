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
// Every wait of the wrappers is [Network.Sleep] on the run's clock. On a
// wall clock it is a timer. On an *arena.VirtualClock the system's
// goroutines must be simulated ones, started with [Network.Go]: they run
// one at a time, each until it sleeps or returns, at the virtual instant it
// woke up, so a virtual run is reproducible and takes no wall time. The
// simulation is brought up to the clock lazily, as the fakes are: fault
// injection and lifting do it, and the system's probe and checks must too
// ([Network.Probe], [Network.Check], or [Network.Advance] by hand). A
// context deadline is on the wall clock; use [Network.WithTimeout] for a
// deadline the wrappers respect in both modes.
//
// Every wait ends early: when the link's faults change (a lift ends it at
// once, a new fault lengthens it), with its context, at a connection's
// deadline or Close, when a response body is closed, and at the Network's
// Close. Response bodies stream through, each chunk paced. How the faults
// of a link's two ends combine is arena's one set of network rules, which
// the fakes apply too: latencies add up (saturating, never past the
// largest duration), the lower bandwidth cap and the earlier reset win. [HandlerTransport] serves
// requests with an http.Handler on the caller's goroutine, so a service and
// its client can share one simulated goroutine. [Network.Close] ends the
// simulated goroutines.
//
// examples/netfault tests an HTTP client with retries and a circuit breaker
// this way, with a scenario of latency, resets and HTTP errors, and an A/B
// of the breaker.
package netfault
