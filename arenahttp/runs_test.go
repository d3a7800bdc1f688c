package arenahttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
)

// longTiny runs for five minutes unless stopped, from any state of the
// system.
var longTiny = strings.Replace(tinyScenario, "cooldown: 300ms", "cooldown: 5m\n  allow_unhealthy_start: true", 1)

// TestScenarioStartStop: a scenario started in the background shows in GET
// /arena/run, holds the service, and is stopped with its report; the report
// is then the last run's, as HTML too.
func TestScenarioStartStop(t *testing.T) {
	s := newSystem(t, systemConfig{})
	if r := s.do(t, request{method: "GET", path: "/arena/report"}); r.code != 404 {
		t.Errorf("report before any run = %d, want 404", r.code)
	}
	if v := decode[RunView](t, s.do(t, request{method: "GET", path: "/arena/run"})); v.Running || v.Last != nil {
		t.Errorf("run before any: %+v", v)
	}

	r := s.do(t, request{method: "POST", path: "/arena/scenario/start?seed=42", body: longTiny})
	started := decode[ScenarioStarted](t, r)
	if r.code != 202 || started.Seed != 42 || started.Scenario != "tiny" || !started.Status.Running || r.header.Get("Location") != "/arena/run" {
		t.Fatalf("start = %d %s", r.code, r.body)
	}
	v := decode[RunView](t, s.do(t, request{method: "GET", path: "/arena/run"}))
	if !v.Running || v.Origin != engine.OriginScenario || v.Name != "tiny" || v.Seed != 42 || v.Duration.D() < 5*time.Minute {
		t.Errorf("run while it goes: %+v", v.RunStatus)
	}
	for _, rq := range []request{
		{method: "POST", path: "/arena/scenario/start", body: tinyScenario},
		{method: "POST", path: "/arena/scenario/run", body: tinyScenario},
		{method: "POST", path: "/arena/survival", body: `{"duration":"1m","interval":"1s"}`},
		{method: "POST", path: "/arena/leader/kill"},
	} {
		if r := s.do(t, rq); r.code != http.StatusConflict {
			t.Errorf("%s %s while the scenario runs = %d %s, want 409", rq.method, rq.path, r.code, r.body)
		}
	}

	r = s.do(t, request{method: "POST", path: "/arena/scenario/stop"})
	rep := decode[scenario.Report](t, r)
	if r.code != 200 || rep.Outcome != scenario.OutcomeCancelled || rep.Seed != 42 || rep.End.Sub(rep.Start) > time.Minute {
		t.Fatalf("stop = %d, outcome %s, seed %d, ran %s", r.code, rep.Outcome, rep.Seed, rep.End.Sub(rep.Start))
	}
	if r := s.do(t, request{method: "POST", path: "/arena/scenario/stop"}); r.code != http.StatusConflict {
		t.Errorf("stop with none going = %d, want 409", r.code)
	}
	v = decode[RunView](t, s.do(t, request{method: "GET", path: "/arena/run"}))
	if v.Running || v.Last == nil || v.Last.Kind != "scenario" || v.Last.Name != "tiny" || v.Last.Seed != 42 ||
		v.Last.Outcome != string(rep.Gate.Verdict) || v.Last.Report != "/arena/report" {
		t.Errorf("run after stop: %+v last %+v", v.RunStatus, v.Last)
	}
	r = s.do(t, request{method: "GET", path: "/arena/report"})
	if r.code != 200 || r.header.Get("Content-Type") != "text/html; charset=utf-8" || r.header.Get("Content-Security-Policy") != reportCSP ||
		!strings.Contains(string(r.body), "<title>arena scenario: tiny") {
		t.Errorf("report = %d %q %q, want the HTML report of tiny", r.code, r.header.Get("Content-Type"), r.body[:min(len(r.body), 200)])
	}
	if len(s.svc.ActiveFaults()) != 0 {
		t.Errorf("faults left after the stopped run: %+v", s.svc.ActiveFaults())
	}

	// Close ends a scenario running in the background, and waits for it.
	if r := s.do(t, request{method: "POST", path: "/arena/scenario/start", body: longTiny}); r.code != 202 {
		t.Fatalf("second start = %d %s", r.code, r.body)
	}
	s.h.Close()
	if st := s.svc.RunStatus(); st.Running {
		t.Errorf("after Close: %+v, want no run", st)
	}
}

// TestScenarioStopEndsASynchronousRun: POST /arena/scenario/stop ends a
// run of POST /arena/scenario/run too; its caller gets the cut report.
func TestScenarioStopEndsASynchronousRun(t *testing.T) {
	s := newSystem(t, systemConfig{})
	done := make(chan response, 1)
	go func() { done <- s.do(t, request{method: "POST", path: "/arena/scenario/run", body: longTiny}) }()
	waitFor(t, "the run to start", func() bool { return s.svc.RunStatus().Running })
	stop := s.do(t, request{method: "POST", path: "/arena/scenario/stop"})
	r := <-done
	if stop.code != 200 || r.code != 200 {
		t.Fatalf("stop = %d, the run's caller = %d %s", stop.code, r.code, r.body)
	}
	if rep := decode[scenario.Report](t, r); rep.Outcome != scenario.OutcomeCancelled {
		t.Errorf("the run's caller got outcome %s, want cancelled", rep.Outcome)
	}
}

// TestScenarioRunAndStartRefuseAlike: POST /arena/scenario/run and /start
// read a request to run a scenario in one way (readScenarioToRun,
// lockScenario, writeScenarioRefused), so each refusal is the same answer
// on both, the body's problem first, then the seed's, then the plan's.
func TestScenarioRunAndStartRefuseAlike(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithMaxScenarioRun(5 * time.Second)}})
	// both sends the request to each route and answers the one answer.
	both := func(t *testing.T, s *system, query, body string) (int, ErrorResponse) {
		t.Helper()
		run := s.do(t, request{method: "POST", path: "/arena/scenario/run" + query, body: body})
		start := s.do(t, request{method: "POST", path: "/arena/scenario/start" + query, body: body})
		if run.code != start.code || !bytes.Equal(run.body, start.body) {
			t.Errorf("%s %.40q: run = %d %s, start = %d %s; want one answer", query, body, run.code, run.body, start.code, start.body)
		}
		return run.code, errorOf(t, run)
	}
	for _, tc := range []struct {
		name, query, body string
		field, error      string
	}{
		{"no body", "", "", "body", "body: want a scenario (YAML or JSON) or the name of a built-in scenario (" + strings.Join(scenarios.Names(), ", ") + ")"},
		{"unknown built-in", "", "no-such", "body", `body: "no-such" is not a built-in scenario (want ` + strings.Join(scenarios.Names(), ", ") + ")"},
		{"invalid", "", "name: x\nactions:\n  - action: {type: kill_agent}\n", "actions[0].action.target_id", ""},
		{"seed zero", "?seed=0", tinyScenario, "seed", `seed: want a positive integer, got "0"`},
		{"seed not a number", "?seed=x", tinyScenario, "seed", `seed: want a positive integer, got "x"`},
		{"planned too long", "", "leader-failover", "actions", "actions: the scenario is planned to run 50s, longer than this server's maximum of 5s"},
		{"body before seed", "?seed=x", "no-such", "body", ""},
		{"seed before plan", "?seed=x", "leader-failover", "seed", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, e := both(t, s, tc.query, tc.body)
			if code != http.StatusBadRequest || e.Field != tc.field || (tc.error != "" && e.Error != tc.error) {
				t.Errorf("= %d %+v, want 400 naming %s (%q)", code, e, tc.field, tc.error)
			}
		})
	}
	if st := s.svc.RunStatus(); st.Running {
		t.Fatalf("a refused request started a run: %+v", st)
	}

	// The handler's own scenario run holds the scenario lock.
	s = newSystem(t, systemConfig{})
	if r := s.do(t, request{method: "POST", path: "/arena/scenario/start", body: longTiny}); r.code != http.StatusAccepted {
		t.Fatalf("start = %d %s", r.code, r.body)
	}
	if code, e := both(t, s, "", tinyScenario); code != http.StatusConflict || e.Error != "a scenario run is in progress" {
		t.Errorf("during a scenario run = %d %+v, want 409 a scenario run is in progress", code, e)
	}
	if r := s.do(t, request{method: "POST", path: "/arena/scenario/stop"}); r.code != http.StatusOK {
		t.Fatalf("stop = %d %s", r.code, r.body)
	}

	// A survival run holds the service: the scenario run is refused.
	if r := s.do(t, request{method: "POST", path: "/arena/survival", body: `{"duration":"1h","interval":"1s"}`}); r.code != http.StatusAccepted {
		t.Fatalf("survival = %d %s", r.code, r.body)
	}
	if code, e := both(t, s, "", tinyScenario); code != http.StatusConflict || !strings.Contains(e.Error, "survival") {
		t.Errorf("during survival = %d %+v, want 409 naming the survival run", code, e)
	}
	if r := s.do(t, request{method: "POST", path: "/arena/survival/stop"}); r.code != http.StatusOK {
		t.Fatalf("survival stop = %d %s", r.code, r.body)
	}

	// A scenario the service lacks a dependency for.
	noDAG := newSystem(t, systemConfig{noDAG: true})
	if code, e := both(t, noDAG, "", "dag-surgery"); code != http.StatusServiceUnavailable {
		t.Errorf("dag-surgery without a DAG = %d %+v, want 503", code, e)
	}

	// A body over the limit: 413, and the connection closed.
	small := newSystem(t, systemConfig{handlerOpts: []Option{WithBodyLimit(1000)}})
	for _, path := range []string{"/arena/scenario/run", "/arena/scenario/start"} {
		t.Run("413 "+path, func(t *testing.T) {
			_, br := rawRequest(t, small, "POST "+path+" HTTP/1.1\r\nTransfer-Encoding: chunked", "5dc\r\n"+strings.Repeat("x", 1500)+"\r\n")
			wantClosed(t, br, http.StatusRequestEntityTooLarge)
		})
	}
}

// TestScenarioStartVirtual: on a virtual clock the run is over before the
// answer; it is still a 202, and the report is there.
func TestScenarioStartVirtual(t *testing.T) {
	s := newSystem(t, systemConfig{clock: clock.NewVirtual(time.Time{})})
	if r := s.do(t, request{method: "POST", path: "/arena/scenario/start?seed=3", body: "leader-failover"}); r.code != 202 {
		t.Fatalf("start = %d %s", r.code, r.body)
	}
	waitFor(t, "the last report", func() bool {
		return decode[RunView](t, s.do(t, request{method: "GET", path: "/arena/run"})).Last != nil
	})
	v := decode[RunView](t, s.do(t, request{method: "GET", path: "/arena/run"}))
	if v.Last.Name != "leader-failover" || v.Last.Outcome != string(scenario.GatePassed) || v.Last.Total == nil || v.Last.Grade == engine.GradeNone {
		t.Errorf("last run %+v, want leader-failover passed with a score", v.Last)
	}
}

func TestScenarioList(t *testing.T) {
	s := newSystem(t, systemConfig{})
	list := decode[[]ScenarioInfo](t, s.do(t, request{method: "GET", path: "/arena/scenarios"}))
	if len(list) != len(scenarios.Names()) {
		t.Fatalf("%d scenarios listed, want %d", len(list), len(scenarios.Names()))
	}
	for i, sc := range list {
		if sc.Name != scenarios.Names()[i] || !sc.Runnable || sc.Problem != "" || sc.Steps == 0 || sc.PlannedLength <= 0 || sc.Description == "" {
			t.Errorf("scenario %d: %+v, want %s, runnable on the fake cluster", i, sc, scenarios.Names()[i])
		}
	}
	// A runtime without every capability, and a short maximum run.
	narrow := newSystem(t, systemConfig{
		runtime:     func(c *fakes.Cluster) fault.AgentLister { return killPause{c} },
		handlerOpts: []Option{WithMaxScenarioRun(40 * time.Second)},
	})
	problems := map[string]string{}
	for _, sc := range decode[[]ScenarioInfo](t, narrow.do(t, request{method: "GET", path: "/arena/scenarios"})) {
		if !sc.Runnable {
			problems[sc.Name] = sc.Problem
		}
	}
	if p := problems["mcp-flap"]; !strings.Contains(p, "mcp_disconnect is not supported by this runtime") {
		t.Errorf("mcp-flap on a runtime without MCP faults: problem %q", p)
	}
	if p := problems["leader-failover"]; !strings.Contains(p, "longer than this server's maximum of 40s") {
		t.Errorf("leader-failover (50s) on a 40s server: problem %q", p)
	}
	if p, ok := problems["rolling-kills"]; ok {
		t.Errorf("rolling-kills (37.5s, kills only) on a 40s server: %q, want it runnable", p)
	}
}

// TestSurvivalIsTheLastRun: a survival run started here shows in GET
// /arena/run while it goes, and its report is the last one when stopped.
func TestSurvivalIsTheLastRun(t *testing.T) {
	s := newSystem(t, systemConfig{})
	if r := s.do(t, request{method: "POST", path: "/arena/survival", body: `{"duration":"1h","interval":"100ms","seed":5}`}); r.code != 202 {
		t.Fatalf("start = %d %s", r.code, r.body)
	}
	if v := decode[RunView](t, s.do(t, request{method: "GET", path: "/arena/run"})); !v.Running || v.Origin != engine.OriginSurvival || v.Seed != 5 {
		t.Errorf("run during survival: %+v", v.RunStatus)
	}
	if r := s.do(t, request{method: "POST", path: "/arena/survival/stop"}); r.code != 200 {
		t.Fatalf("stop = %d %s", r.code, r.body)
	}
	waitFor(t, "the survival report", func() bool {
		v := decode[RunView](t, s.do(t, request{method: "GET", path: "/arena/run"}))
		return v.Last != nil && v.Last.Kind == "survival" && v.Last.Seed == 5 && v.Last.Outcome == string(engine.SurvivalStopped)
	})
	if r := s.do(t, request{method: "GET", path: "/arena/report"}); r.code != 200 || !strings.Contains(string(r.body), "survival") {
		t.Errorf("report = %d, want the survival run's", r.code)
	}
}

// TestLiftAll lifts every active fault at once, and says so per fault.
func TestLiftAll(t *testing.T) {
	s := newSystem(t, systemConfig{})
	for _, p := range []string{"/arena/agent/worker-1/pause", "/arena/agent/worker-2/partition"} {
		if r := s.do(t, request{method: "POST", path: p}); r.code != 200 {
			t.Fatalf("POST %s = %d %s", p, r.code, r.body)
		}
	}
	if n := len(s.svc.ActiveFaults()); n != 2 {
		t.Fatalf("%d active faults, want 2", n)
	}
	r := s.do(t, request{method: "DELETE", path: "/arena/faults"})
	lifted := decode[[]FaultLifted](t, r)
	if r.code != 200 || len(lifted) != 2 || !lifted[0].Lifted || !lifted[1].Lifted {
		t.Errorf("lift all = %d %s", r.code, r.body)
	}
	if fs := decode[[]engine.ActiveFault](t, s.do(t, request{method: "GET", path: "/arena/faults"})); len(fs) != 0 {
		t.Errorf("active faults after lift all: %+v", fs)
	}
	if r := s.do(t, request{method: "DELETE", path: "/arena/faults"}); r.code != 200 || strings.TrimSpace(string(r.body)) != "[]" {
		t.Errorf("lift all of none = %d %s, want []", r.code, r.body)
	}
}

// TestHistoryBackwards walks the history from the newest page back to the
// first action with ?before=, each action once.
func TestHistoryBackwards(t *testing.T) {
	s := newSystem(t, systemConfig{})
	for i := range 7 {
		s.do(t, request{method: "POST", path: "/arena/agent/nobody/kill", body: fmt.Sprintf(`{"id":"a%d"}`, i+1)})
	}
	var seen []string
	path := "/arena/history?limit=3"
	for range 5 {
		r := s.do(t, request{method: "GET", path: path})
		page := decode[[]fault.Result](t, r)
		if r.code != 200 {
			t.Fatalf("GET %s = %d %s", path, r.code, r.body)
		}
		if len(page) == 0 {
			break
		}
		var ids []string
		for _, res := range page {
			ids = append(ids, res.Action.ID)
		}
		seen = append(ids, seen...)
		path = "/arena/history?limit=3&before=" + r.header.Get(HeaderFirst)
	}
	if got := strings.Join(seen, " "); got != "a1 a2 a3 a4 a5 a6 a7" {
		t.Errorf("walked back %q, want a1 … a7 once each", got)
	}
	for q, field := range map[string]string{"before=0": "before", "before=x": "before", "before=3&after=1": "before", "before=3&limit=0": "limit"} {
		r := s.do(t, request{method: "GET", path: "/arena/history?" + q})
		if e := errorOf(t, r); r.code != 400 || e.Field != field {
			t.Errorf("?%s = %d %+v, want 400 naming %s", q, r.code, e, field)
		}
	}
}

// TestRunView's JSON: the live status and the last run side by side.
func TestRunViewJSON(t *testing.T) {
	total := 87.5
	b, _ := json.Marshal(RunView{RunStatus: engine.RunStatus{Running: true, RunID: "run-3", Origin: engine.OriginScenario},
		Last: &LastRun{Kind: "survival", Seed: 4, Outcome: "stopped", Total: &total, Grade: engine.GradeB, Report: "/arena/report"}})
	for _, want := range []string{`"running":true`, `"run_id":"run-3"`, `"origin":"scenario"`, `"last":{"kind":"survival"`, `"total":87.5`, `"report":"/arena/report"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}
