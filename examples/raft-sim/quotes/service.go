package quotes

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Quote is what the services answer.
type Quote struct {
	Symbol string `json:"symbol"`
	Cents  int    `json:"cents"`
	Stale  bool   `json:"stale,omitempty"` // from the cache
}

// serviceTime is how long the quotes service works on a request.
const serviceTime = 5 * time.Millisecond

// handler serves GET /quote/{symbol}; stale marks the cache's answers.
func handler(stale bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /quote/{symbol}", func(w http.ResponseWriter, r *http.Request) {
		if !stale {
			select {
			case <-time.After(serviceTime):
			case <-r.Context().Done():
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
