package arenahttp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ares-arena/arena/arenahttp"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// A service over a fake cluster, served with a key, its event store and its
// Prometheus registry; one fault injected over HTTP.
func ExampleNewHandler() {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(1))
	store := events.NewMemoryStore()
	reg := prometheus.NewRegistry()
	svc := engine.NewService(fault.NewInjector(cluster, cluster), store, nil,
		engine.WithClock(clk), engine.WithRegisterer(reg), engine.WithProbe(cluster.Probe))

	h := arenahttp.NewHandler(svc, arenahttp.WithAPIKey("s3cret"),
		arenahttp.WithEvents(store), arenahttp.WithGatherer(reg))
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()

	req, _ := http.NewRequest("POST", srv.URL+"/arena/agent/type:worker/slow",
		strings.NewReader(`{"metadata": {"delay": "2s", "duration": "30s"}}`))
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var res fault.Result
	json.NewDecoder(resp.Body).Decode(&res)
	fmt.Println(resp.StatusCode, res.Success, res.Action.Type, res.Action.TargetID, res.Action.Metadata["delay"])
	// Output: 200 true slow_agent worker-2 2s
}
