// Package netfaultexample tests an HTTP client's retries and circuit
// breaker against arena's network faults, in the test's process and in
// virtual time, with package netfault.
//
// The system: a quotes service (agent "quotes"), a cache of older quotes
// (agent "cache") and a client (agent "client") whose callers ask for a
// quote every 100ms ± 30ms each. The client tries the service (a 250ms
// timeout per try, three tries with backoff), and serves the cache when it
// cannot; with a circuit breaker, three failed tries in a row send callers
// straight to the cache for a second. Every call goes through
// netfault.Network.Transport, so network_latency, network_bandwidth,
// connection_reset and http_error land on it; the services run in the
// client's simulated goroutines (netfault.HandlerTransport).
//
// The probe is the callers' view: over the last second, at most 5% of the
// calls failed and 90% took at most 300ms. The tests run a scenario of
// latency, resets and HTTP errors (testdata/quotes-network.yaml), check
// that a run is byte-identical for one seed, and show with an A/B test
// (matchers.SignificantlyBetterThan) that the breaker is better than none.
package netfaultexample

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ares-arena/arena/netfault"
)

// Quote is what the services answer.
type Quote struct {
	Symbol string `json:"symbol"`
	Cents  int    `json:"cents"`
	Stale  bool   `json:"stale,omitempty"` // from the cache
}

// serviceTime is how long the quotes service works on a request.
const serviceTime = 5 * time.Millisecond

// quotes serves GET /quote/{symbol}; stale marks the cache's answers.
func quotes(n *netfault.Network, stale bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /quote/{symbol}", func(w http.ResponseWriter, r *http.Request) {
		if !stale {
			if err := n.Sleep(r.Context(), serviceTime); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		sym := strings.ToUpper(r.PathValue("symbol"))
		cents := 0
		for _, c := range sym {
			cents = cents*31 + int(c)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Quote{Symbol: sym, Cents: 1000 + cents%9000, Stale: stale})
	})
	return mux
}

// hosts routes the client's requests to the services by host name.
type hosts map[string]http.Handler

func (h hosts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s, ok := h[r.URL.Hostname()]; ok {
		s.ServeHTTP(w, r)
		return
	}
	http.Error(w, fmt.Sprintf("no host %q", r.URL.Host), http.StatusBadGateway)
}
