package arenahttp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestPrometheusScrape scrapes /metrics over HTTP and checks the service's
// collectors with client_golang's testutil.
func TestPrometheusScrape(t *testing.T) {
	s := newSystem(t, systemConfig{})
	for _, rq := range []request{
		{method: "POST", path: "/arena/agent/worker-1/pause"},
		{method: "POST", path: "/arena/agent/worker-1/resume"},
		{method: "POST", path: "/arena/agent/worker-1/resume"}, // not paused: does not land
		{method: "POST", path: "/arena/leader/kill"},
	} {
		if r := s.do(t, rq); r.code != 200 {
			t.Fatalf("%s = %d %s", rq.path, r.code, r.body)
		}
	}
	want := `
# HELP arena_actions_total Chaos actions executed, by type and outcome (landed or failed).
# TYPE arena_actions_total counter
arena_actions_total{outcome="failed",type="resume_agent"} 1
arena_actions_total{outcome="landed",type="kill_leader"} 1
arena_actions_total{outcome="landed",type="pause_agent"} 1
arena_actions_total{outcome="landed",type="resume_agent"} 1
`
	if err := testutil.ScrapeAndCompare(s.srv.URL+"/metrics", strings.NewReader(want), "arena_actions_total"); err != nil {
		t.Error(err)
	}
	// Every collector of the service is exposed.
	n, err := testutil.GatherAndCount(s.reg)
	if err != nil || n == 0 {
		t.Fatalf("GatherAndCount = %d, %v", n, err)
	}
	r := s.do(t, request{method: "GET", path: "/metrics"})
	for _, name := range []string{"arena_actions_total", "arena_injection_duration_seconds_bucket", "arena_score"} {
		if !strings.Contains(string(r.body), name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("/metrics Content-Type = %q", ct)
	}

	// Behind a key, the scrape needs it like every other route.
	s.h.SetAPIKey(testKey)
	if err := testutil.ScrapeAndCompare(s.srv.URL+"/metrics", strings.NewReader(want), "arena_actions_total"); err == nil {
		t.Error("scrape without the key succeeded")
	}
	if r := s.do(t, request{method: "GET", path: "/metrics", key: testKey}); r.code != http.StatusOK {
		t.Errorf("scrape with the key = %d", r.code)
	}
}
