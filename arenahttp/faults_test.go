package arenahttp

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// TestHTTPFaultsLiftAtDuration: a timed fault sent to an action route is
// lifted at its duration on the service's clock, and listed until then.
func TestHTTPFaultsLiftAtDuration(t *testing.T) {
	on := map[fault.Type]func(fakes.AgentState) bool{
		fault.PauseAgent:       func(a fakes.AgentState) bool { return a.Status == fault.StatusPaused },
		fault.SlowAgent:        func(a fakes.AgentState) bool { return a.SlowDelay > 0 },
		fault.NetworkPartition: func(a fakes.AgentState) bool { return a.Partitioned },
		fault.ToolTimeout:      func(a fakes.AgentState) bool { return a.ToolTimeout > 0 },
		fault.MCPDisconnect:    func(a fakes.AgentState) bool { return a.MCPDisconnected },
		fault.LLMFailure:       func(a fakes.AgentState) bool { return a.LLMFailure != "" },
	}
	for _, spec := range fault.Specs() {
		faulted, ok := on[spec.Type]
		if !ok {
			continue
		}
		t.Run(string(spec.Type), func(t *testing.T) {
			clk := clock.NewVirtual(time.Time{})
			s := newSystem(t, systemConfig{clock: clk, cluster: []fakes.Option{fakes.WithoutHealing()}})
			r := s.do(t, request{method: "POST", path: strings.Replace(spec.Route, "{id}", "worker-1", 1), body: `{"id":"f1","metadata":{"duration":"2s"}}`})
			if res := decode[fault.Result](t, r); r.code != 200 || !res.Success {
				t.Fatalf("POST = %d %s", r.code, r.body)
			}
			list := decode[[]engine.ActiveFault](t, s.do(t, request{method: "GET", path: "/arena/faults"}))
			if len(list) != 1 || list[0].ID != "f1" || list[0].Origin != engine.OriginExecute || list[0].LiftAt == nil ||
				!list[0].LiftAt.Equal(clock.VirtualEpoch().Add(2*time.Second)) {
				t.Fatalf("GET /arena/faults = %+v", list)
			}
			clk.Advance(1999 * time.Millisecond)
			if ag, _ := s.cluster.Agent("worker-1"); !faulted(ag) {
				t.Fatal("lifted before its duration")
			}
			clk.Advance(time.Millisecond)
			if ag, _ := s.cluster.Agent("worker-1"); faulted(ag) {
				t.Fatal("not lifted at its duration")
			}
			if list := decode[[]engine.ActiveFault](t, s.do(t, request{method: "GET", path: "/arena/faults"})); len(list) != 0 {
				t.Errorf("GET /arena/faults after the lift = %+v", list)
			}
		})
	}
}

func TestHTTPFaultLiftAndBounds(t *testing.T) {
	s := newSystem(t, systemConfig{cluster: []fakes.Option{fakes.WithoutHealing()}})
	s.do(t, request{method: "POST", path: "/arena/agent/worker-1/partition", body: `{"id":"p1","metadata":{"duration":"30m"}}`})
	r := s.do(t, request{method: "DELETE", path: "/arena/faults/p1"})
	if got := decode[FaultLifted](t, r); r.code != 200 || !got.Lifted || got.ID != "p1" {
		t.Errorf("DELETE = %d %s", r.code, r.body)
	}
	if ag, _ := s.cluster.Agent("worker-1"); ag.Partitioned {
		t.Error("worker-1 still partitioned after DELETE")
	}
	if r := s.do(t, request{method: "DELETE", path: "/arena/faults/p1"}); r.code != http.StatusNotFound || errorOf(t, r).Field != "id" {
		t.Errorf("second DELETE = %d %s, want 404", r.code, r.body)
	}
	r = s.do(t, request{method: "POST", path: "/arena/agent/worker-1/pause", body: `{"metadata":{"duration":"2h"}}`})
	if e := errorOf(t, r); r.code != 400 || e.Field != "metadata.duration" || !strings.Contains(e.Error, "over the maximum fault duration 1h0m0s") {
		t.Errorf("a pause of 2562047h = %d %s, want 400 naming metadata.duration and the limit", r.code, r.body)
	}
	if ag, _ := s.cluster.Agent("worker-1"); ag.Status != fault.StatusRunning {
		t.Error("the refused pause landed")
	}
	s.do(t, request{method: "POST", path: "/arena/agent/worker-1/pause", body: `{"id":"p2","metadata":{"duration":"30m"}}`})
	r = s.do(t, request{method: "POST", path: "/arena/agent/worker-2/partition", body: `{"id":"p2"}`})
	if e := errorOf(t, r); r.code != 400 || e.Field != "id" {
		t.Errorf("an action reusing an active fault's id = %d %s, want 400 naming id", r.code, r.body)
	}
	r = s.do(t, request{method: "POST", path: "/arena/survival", body: `{"duration":"3h","max_lifetime":"2h"}`})
	if e := errorOf(t, r); r.code != 400 || e.Field != "max_lifetime" || !strings.Contains(e.Error, "over the maximum fault duration 1h0m0s") {
		t.Errorf("survival with 2h lifetimes = %d %s, want 400 naming max_lifetime", r.code, r.body)
	}
	sc := "name: long\nactions:\n  - action: {type: pause_agent, target_id: worker-1, metadata: {duration: 2h}}\n"
	r = s.do(t, request{method: "POST", path: "/arena/scenario/run", body: sc})
	if e := errorOf(t, r); r.code != 400 || e.Field != "actions[0].action.metadata.duration" {
		t.Errorf("scenario with a 2h pause = %d %s, want 400 naming the duration", r.code, r.body)
	}
}

// TestRunsConflict: one run at a time, whoever asks: a scenario while
// survival runs and survival while a scenario runs are 409s naming the
// run, and so is an action route.
func TestRunsConflict(t *testing.T) {
	s := newSystem(t, systemConfig{})
	if r := s.do(t, request{method: "POST", path: "/arena/survival", body: `{"duration":"1h","interval":"200ms"}`}); r.code != http.StatusAccepted {
		t.Fatalf("survival = %d %s", r.code, r.body)
	}
	r := s.do(t, request{method: "POST", path: "/arena/scenario/run", body: tinyScenario})
	if e := errorOf(t, r); r.code != http.StatusConflict || !strings.Contains(e.Error, "a survival run (run-1) is running") {
		t.Errorf("scenario during survival = %d %s, want 409 naming the survival run", r.code, r.body)
	}
	r = s.do(t, request{method: "POST", path: "/arena/agent/worker-1/pause"})
	if e := errorOf(t, r); r.code != http.StatusConflict || !strings.Contains(e.Error, "a survival run (run-1) is running") {
		t.Errorf("pause during survival = %d %s, want 409", r.code, r.body)
	}
	if r := s.do(t, request{method: "POST", path: "/arena/survival/stop"}); r.code != 200 {
		t.Fatalf("stop = %d %s", r.code, r.body)
	}

	long := strings.Replace(tinyScenario, "cooldown: 300ms", "cooldown: 2s", 1)
	first := make(chan response, 1)
	go func() { first <- s.do(t, request{method: "POST", path: "/arena/scenario/run", body: long}) }()
	waitFor(t, "the scenario to hold the service", func() bool { return s.svc.RunActive() != nil })
	r = s.do(t, request{method: "POST", path: "/arena/survival", body: `{"duration":"1h","interval":"200ms"}`})
	if e := errorOf(t, r); r.code != http.StatusConflict || !strings.Contains(e.Error, `scenario "tiny"`) {
		t.Errorf("survival during a scenario = %d %s, want 409 naming the scenario", r.code, r.body)
	}
	if r := <-first; r.code != 200 {
		t.Errorf("scenario = %d %s", r.code, r.body)
	}
}

// The value that wedged the server (issue 26): a jitter whose draw
// overflowed inside the fakes' lock. It is out of range now, refused with
// the field and the range, and the server goes on serving.
func TestHTTPJitterOutOfRange(t *testing.T) {
	s := newSystem(t, systemConfig{})
	r := s.do(t, request{method: "POST", path: "/arena/agent/worker-1/latency", body: `{"metadata":{"jitter":"1281024h"}}`})
	if e := errorOf(t, r); r.code != http.StatusBadRequest || e.Field != "metadata.jitter" || !strings.Contains(e.Error, "want 0 to 1h") {
		t.Errorf("latency with a jitter of 1281024h = %d %s, want 400 naming metadata.jitter and its range", r.code, r.body)
	}
	for range 3 {
		r = s.do(t, request{method: "POST", path: "/arena/agent/worker-1/latency", body: `{"metadata":{"latency":"1h","jitter":"1h","duration":"1s"}}`})
		if r.code != http.StatusOK {
			t.Fatalf("latency at the top of its range = %d %s, want 200", r.code, r.body)
		}
		if r := s.do(t, request{method: "GET", path: "/arena/stats"}); r.code != http.StatusOK {
			t.Fatalf("GET /arena/stats = %d %s: the server stopped serving", r.code, r.body)
		}
	}
}

// Path and body IDs that are paths (they reach runtimes' URL paths) and IDs
// of the service's own form are a 400 naming the field (issue 26).
func TestHTTPIDsThatArePathsOrTheServices(t *testing.T) {
	s := newSystem(t, systemConfig{})
	for _, tc := range []struct {
		path, body, field, want string
	}{
		{"/arena/agent/..%2F..%2Fetc%2Fpasswd/kill", "", "id", "contains a path separator"},
		{"/arena/agent/../kill", "", "", ""}, // cleaned by the mux: a redirect, never the ID ".."
		{"/arena/agent/worker-1/kill", `{"id":"act-000003"}`, "id", "has the form of the IDs the service gives"},
		{"/arena/agent/worker-1/kill", `{"id":"a/b"}`, "id", "contains a path separator"},
	} {
		r := s.do(t, request{method: "POST", path: tc.path, body: tc.body})
		if tc.field == "" {
			if r.code == http.StatusOK {
				t.Errorf("POST %s = 200, want it not served as an action", tc.path)
			}
			continue
		}
		if e := errorOf(t, r); r.code != http.StatusBadRequest || e.Field != tc.field || !strings.Contains(e.Error, tc.want) {
			t.Errorf("POST %s %s = %d %s, want 400 naming %s: %s", tc.path, tc.body, r.code, r.body, tc.field, tc.want)
		}
	}
}
