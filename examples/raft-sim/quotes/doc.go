// Package quotes is the second system of examples/raft-sim, of another
// shape than raft: a net/http quotes service, a cache of older quotes, and
// a client with retries, per-try timeouts and an optional circuit breaker,
// all on package sim's network, in simulated time (testing/synctest). It
// was examples/netfault, whose simulated goroutines (netfault.Network.Go)
// it no longer needs: the service is an http.Server serving a sim
// listener, the client an http.Client on sim's transport, its timeouts
// context.WithTimeout, its backoff time.Sleep, its breaker time.Now; the
// bubble makes all of them simulated.
//
// Agents (sim nodes): "quotes" (the service), "cache", and "client", whose
// callers ask for a quote every 100ms ± 30ms each. The client tries the
// service (250ms per try, three tries with backoff), and serves the cache
// when it cannot; with the breaker, three failed tries in a row send
// callers straight to the cache for a second.
//
// Faults: sim lands network_latency, connection_reset (and the rest) on
// the nodes' links; http_error (503s on a route) is netfault's fault type,
// landed by netfault.Network.Transport wrapped around sim's transport:
// netfault's wrappers work in simulated time as in real time.
//
// The probe is the callers' view: over the last second, at most 5% of the
// calls failed and 90% took at most 300ms. The test plays
// testdata/quotes-network.yaml (latency past the per-try timeout, resets,
// 503s): the client with the breaker passes the gate, the one without
// fails it (its callers wait on timeouts while the latency lasts).
package quotes
