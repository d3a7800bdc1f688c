package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/fault"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fastConfig is a config with timings short enough for unit tests.
func fastConfig(id, typ string, routes ...string) Config {
	c := DefaultConfig()
	c.ID, c.Type, c.Routes, c.Source = id, typ, routes, typ == "leader"
	c.TaskInterval = 10 * time.Millisecond
	c.Work = 100
	c.ToolLatency = time.Millisecond
	c.TaskTimeout = 200 * time.Millisecond
	c.Backoff = 5 * time.Millisecond
	c.CheckpointInterval = 20 * time.Millisecond
	c.MCPReconnect = 100 * time.Millisecond
	c.DAGRepair = 100 * time.Millisecond
	c.ErrorWindow = 200 * time.Millisecond
	return c
}

// cluster is agents wired in one process through an in-memory network
// (memNet): agent id answers at http://id. Started inside a
// testing/synctest bubble, the whole cluster runs on the bubble's clock.
type cluster struct {
	t      *testing.T
	agents map[string]*Agent
	urls   map[string]string
	srvs   []*http.Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
	client *http.Client
}

// startCluster starts the agents of cfgs, each routing by ID to the others.
func startCluster(t *testing.T, cfgs ...Config) *cluster {
	t.Helper()
	mn := newMemNet()
	c := &cluster{t: t, agents: map[string]*Agent{}, urls: map[string]string{}, client: &http.Client{Transport: mn.transport()}}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	t.Cleanup(c.stop)
	for _, cfg := range cfgs {
		cfg.RouteURL = func(id string) string { return "http://" + id }
		cfg.Client = c.client
		a, err := NewAgent(cfg, nil)
		if err != nil {
			t.Fatalf("NewAgent(%s): %v", cfg.ID, err)
		}
		c.agents[cfg.ID] = a
		c.urls[cfg.ID] = "http://" + cfg.ID
		srv := &http.Server{Handler: a.Handler()}
		c.srvs = append(c.srvs, srv)
		l := mn.listen(cfg.ID)
		c.wg.Go(func() { srv.Serve(l) })
	}
	for _, a := range c.agents {
		c.wg.Go(func() { a.Run(ctx) })
	}
	return c
}

// stop ends the agents' loops, closes their servers (dropping the requests
// a pause holds) and waits for all of it.
func (c *cluster) stop() {
	c.cancel()
	for _, s := range c.srvs {
		s.Close()
	}
	c.wg.Wait()
	for _, a := range c.agents {
		a.Close()
	}
	c.client.CloseIdleConnections()
}

// heldClient is a client of the cluster that gives up after d.
func (c *cluster) heldClient(d time.Duration) *http.Client {
	return &http.Client{Timeout: d, Transport: c.client.Transport}
}

// do sends a request to agent id and decodes the answer into out.
func (c *cluster) do(method, id, path string, body any, out any) int {
	c.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, c.urls[id]+path, rd)
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s%s: %v", method, id, path, err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			c.t.Fatalf("%s %s%s: decode: %v", method, id, path, err)
		}
	}
	return resp.StatusCode
}

func (c *cluster) state(id string) agentapi.State {
	c.t.Helper()
	var st agentapi.State
	if code := c.do(http.MethodGet, id, agentapi.PathState, nil, &st); code != http.StatusOK {
		c.t.Fatalf("GET %s/state = %d", id, code)
	}
	return st
}

func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func refCluster(t *testing.T, dataRoot string) *cluster {
	cfgs := []Config{
		fastConfig("leader-0", "leader", "orchestrator-0"),
		fastConfig("orchestrator-0", "orchestrator", "worker-1", "worker-2"),
		fastConfig("worker-1", "worker"),
		fastConfig("worker-2", "worker"),
	}
	if dataRoot != "" {
		for i := range cfgs {
			cfgs[i].Data = filepath.Join(dataRoot, cfgs[i].ID)
		}
	}
	return startCluster(t, cfgs...)
}

func TestTasksFlowThroughTheDAG(t *testing.T) {
	c := refCluster(t, t.TempDir())
	eventually(t, 5*time.Second, "both workers finish tasks", func() bool {
		return c.state("worker-1").Tasks.Done >= 3 && c.state("worker-2").Tasks.Done >= 3
	})
	lead, orch := c.state("leader-0"), c.state("orchestrator-0")
	if lead.Tasks.Handed == 0 || len(lead.Ledger.Handed["orchestrator-0"]) == 0 {
		t.Errorf("leader handed nothing to the orchestrator: %+v", lead.Tasks)
	}
	accepted := map[string]bool{}
	for _, id := range []string{"worker-1", "worker-2"} {
		for _, task := range c.state(id).Ledger.Accepted {
			accepted[task] = true
		}
	}
	for w, ids := range orch.Ledger.Handed {
		for _, id := range ids {
			if !accepted[id] {
				t.Errorf("task %s handed to %s is not in its ledger", id, w)
			}
		}
	}
	if h := c.state("worker-1").Health; !h.Healthy {
		t.Errorf("worker-1 health = %+v, want healthy", h)
	}
	if m := c.state("worker-1").Memory; !m.OK || !m.CheckpointOK || m.CheckpointAt.IsZero() {
		t.Errorf("worker-1 memory = %+v, want sound and checkpointed", m)
	}
}

func TestFaultsChangeTheReportedState(t *testing.T) {
	c := refCluster(t, "")
	eventually(t, 5*time.Second, "worker-1 finishes tasks", func() bool { return c.state("worker-1").Tasks.Done > 0 })

	tests := []struct {
		fault  agentapi.Fault
		id     string
		failed string // attempt failure reason it causes ("" none counted)
		health string // substring of the health reason while active ("" healthy)
	}{
		{agentapi.Fault{Kind: agentapi.KindToolTimeout, Timeout: agentapi.Duration(20 * time.Millisecond)}, "worker-1", "tool_timeout", ""},
		{agentapi.Fault{Kind: agentapi.KindLLMFailure, ErrorType: "invalid_response"}, "worker-1", "llm_failure:invalid_response", "error rate"},
		{agentapi.Fault{Kind: agentapi.KindRemoveEdge, Target: "worker-2"}, "orchestrator-0", "", "dag broken: missing edge orchestrator-0->worker-2"},
		{agentapi.Fault{Kind: agentapi.KindRemoveNode}, "worker-2", "", "dag broken: node worker-2 removed"},
	}
	for _, tt := range tests {
		t.Run(tt.fault.Kind, func(t *testing.T) {
			var fs agentapi.FaultState
			if code := c.do(http.MethodPost, tt.id, agentapi.PathFaults, tt.fault, &fs); code != http.StatusOK {
				t.Fatalf("POST /faults %+v = %d", tt.fault, code)
			}
			if len(fs.Faults) != 1 || fs.Faults[0].Kind != tt.fault.Kind {
				t.Fatalf("active faults = %+v, want %s", fs.Faults, tt.fault.Kind)
			}
			if tt.failed != "" {
				eventually(t, 3*time.Second, "attempts fail with "+tt.failed, func() bool {
					return c.state(tt.id).Attempts.Failed[tt.failed] > 0
				})
			}
			if tt.health != "" {
				eventually(t, 3*time.Second, "health says "+tt.health, func() bool {
					return strings.Contains(c.state(tt.id).Health.Reason, tt.health)
				})
			}
			if code := c.do(http.MethodDelete, tt.id, agentapi.PathFaults+"/"+tt.fault.Kind, nil, &fs); code != http.StatusOK || len(fs.Faults) != 0 {
				t.Fatalf("DELETE /faults/%s = %d, %+v", tt.fault.Kind, code, fs.Faults)
			}
			eventually(t, 3*time.Second, tt.id+" healthy again", func() bool { return c.state(tt.id).Health.Healthy })
		})
	}
}

func TestFaultsEndOnTheirOwn(t *testing.T) {
	c := refCluster(t, "")
	for _, f := range []agentapi.Fault{
		{Kind: agentapi.KindToolTimeout, Duration: agentapi.Duration(50 * time.Millisecond)},
		{Kind: agentapi.KindMCPDisconnect},                  // reconnects after MCPReconnect
		{Kind: agentapi.KindRemoveNode},                     // repaired after DAGRepair
		{Kind: agentapi.KindRemoveEdge, Target: "worker-1"}, // repaired after DAGRepair
		{Kind: agentapi.KindLLMFailure, Duration: agentapi.Duration(50 * time.Millisecond)},
	} {
		id := "worker-1"
		if f.Kind == agentapi.KindRemoveEdge {
			id = "orchestrator-0"
		}
		var fs agentapi.FaultState
		if code := c.do(http.MethodPost, id, agentapi.PathFaults, f, &fs); code != http.StatusOK {
			t.Fatalf("POST %+v = %d", f, code)
		}
		if fs.Faults[0].Until.IsZero() {
			t.Errorf("%s: no end: %+v", f.Kind, fs.Faults[0])
		}
		eventually(t, 2*time.Second, f.Kind+" ends", func() bool { return len(c.state(id).Faults) == 0 })
	}
}

func TestMemoryCorruptionIsHealedFromTheCheckpoint(t *testing.T) {
	c := refCluster(t, t.TempDir())
	eventually(t, 5*time.Second, "a checkpoint", func() bool { return !c.state("worker-1").Memory.CheckpointAt.IsZero() })
	before := c.state("worker-1").Memory.Restores
	if code := c.do(http.MethodPost, "worker-1", agentapi.PathFaults, agentapi.Fault{Kind: agentapi.KindMemoryCorrupt}, nil); code != http.StatusOK {
		t.Fatalf("POST memory_corrupt = %d", code)
	}
	eventually(t, 2*time.Second, "memory restored", func() bool {
		m := c.state("worker-1").Memory
		return m.OK && m.Restores > before
	})
}

func TestBadFaults(t *testing.T) {
	c := refCluster(t, "")
	for _, tt := range []struct {
		body any
		want int
	}{
		{agentapi.Fault{Kind: "fly_away"}, http.StatusNotImplemented},
		{agentapi.Fault{Kind: agentapi.KindLLMFailure, ErrorType: "sulk"}, http.StatusBadRequest},
		{agentapi.Fault{Kind: agentapi.KindRemoveEdge, Target: "leader-0"}, http.StatusBadRequest},
		{map[string]any{"kind": "tool_timeout", "timout": "1s"}, http.StatusBadRequest},
		{map[string]any{"kind": "tool_timeout", "timeout": -1}, http.StatusBadRequest},
	} {
		var e agentapi.Error
		if got := c.do(http.MethodPost, "orchestrator-0", agentapi.PathFaults, tt.body, &e); got != tt.want || e.Error == "" {
			t.Errorf("POST %+v = %d %q, want %d with an error", tt.body, got, e.Error, tt.want)
		}
	}
	if got := c.do(http.MethodDelete, "worker-1", agentapi.PathFaults+"/fly_away", nil, nil); got != http.StatusNotImplemented {
		t.Errorf("DELETE /faults/fly_away = %d, want 501", got)
	}
	if got := c.do(http.MethodDelete, "worker-1", agentapi.PathFaults+"/tool_timeout", nil, nil); got != http.StatusOK {
		t.Errorf("DELETE of an inactive fault = %d, want 200", got)
	}
}

// TestLLMErrorsAreArenas: llm_failure takes exactly arena's LLM error
// types: agentd keeps its own list (it does not import arena), which must
// not drift from fault.LLMErrorTypes.
func TestLLMErrorsAreArenas(t *testing.T) {
	var want []string
	for _, e := range fault.LLMErrorTypes() {
		want = append(want, string(e))
	}
	if !slices.Equal(llmErrors, want) {
		t.Errorf("llmErrors = %v, want fault.LLMErrorTypes() = %v", llmErrors, want)
	}
}

// TestClientSpeaksToAgentd: the fault-control client that the runtimes
// share lands, lifts and reads through the reference agent, and the
// agent's own refusals come back as arena's errors.
func TestClientSpeaksToAgentd(t *testing.T) {
	c := refCluster(t, "")
	ctx := context.Background()
	cl := agentapi.Client{HTTP: c.client, URL: c.urls["worker-1"], Agent: "worker-1"}
	st, err := cl.Land(ctx, agentapi.Fault{Kind: agentapi.KindToolTimeout, Timeout: agentapi.Duration(time.Second)})
	if err != nil || len(st.Faults) != 1 || st.Faults[0].Kind != agentapi.KindToolTimeout {
		t.Fatalf("Land(tool_timeout) = %+v, %v; want it active", st, err)
	}
	if st, err := cl.Lift(ctx, agentapi.KindToolTimeout); err != nil || len(st.Faults) != 0 {
		t.Errorf("Lift(tool_timeout) = %+v, %v; want nothing active", st, err)
	}
	if _, err := cl.Land(ctx, agentapi.Fault{Kind: "fly_away"}); !errors.Is(err, fault.ErrUnsupported) {
		t.Errorf("Land(fly_away) = %v, want fault.ErrUnsupported", err)
	}
	if _, err := cl.Lift(ctx, "fly_away"); !errors.Is(err, fault.ErrUnsupported) {
		t.Errorf("Lift(fly_away) = %v, want fault.ErrUnsupported", err)
	}
	if st, err := cl.State(ctx); err != nil || st.ID != "worker-1" {
		t.Errorf("State = %+v, %v", st.ID, err)
	}
	if h, err := cl.Health(ctx, ""); err != nil || !h.Healthy {
		t.Errorf("Health = %+v, %v; want healthy", h, err)
	}
}

// TestEveryKindOfTheContract: agentd lands every kind of the contract, and
// lifts every one but memory_corrupt (which its checkpoint heals). pause
// comes last: a paused agent holds every other request.
func TestEveryKindOfTheContract(t *testing.T) {
	c := refCluster(t, "")
	ctx := context.Background()
	cl := agentapi.Client{HTTP: c.client, URL: c.urls["orchestrator-0"], Agent: "orchestrator-0"}
	kinds := slices.DeleteFunc(agentapi.Kinds(), func(k string) bool { return k == agentapi.KindPause })
	for _, kind := range append(kinds, agentapi.KindPause) {
		f := agentapi.Fault{Kind: kind}
		if kind == agentapi.KindRemoveEdge {
			f.Target = "worker-1"
		}
		if _, err := cl.Land(ctx, f); err != nil {
			t.Errorf("Land(%s) = %v", kind, err)
			continue
		}
		if kind == agentapi.KindMemoryCorrupt {
			continue
		}
		st, err := cl.Lift(ctx, kind)
		if err != nil || slices.ContainsFunc(st.Faults, func(a agentapi.ActiveFault) bool { return a.Kind == kind }) {
			t.Errorf("Lift(%s) = %+v, %v; want it lifted", kind, st, err)
		}
	}
}

// TestClockJump: a jump of the agent's clock ends the faults whose end its
// clock now says has passed; lifting it sets the clock right.
func TestClockJump(t *testing.T) {
	c := refCluster(t, "")
	ctx := context.Background()
	cl := agentapi.Client{HTTP: c.client, URL: c.urls["worker-1"], Agent: "worker-1"}
	if _, err := cl.Land(ctx, agentapi.Fault{Kind: agentapi.KindToolTimeout, Duration: agentapi.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	st, err := cl.Land(ctx, agentapi.Fault{Kind: agentapi.KindClockJump, Offset: agentapi.Duration(2 * time.Hour)})
	if err != nil || len(st.Faults) != 1 || st.Faults[0].Kind != agentapi.KindClockJump {
		t.Fatalf("faults after a jump of 2h = %+v, %v; want the jump alone (the hour-long tool_timeout has ended)", st.Faults, err)
	}
	if _, err := cl.Lift(ctx, agentapi.KindClockJump); err != nil {
		t.Fatal(err)
	}
	if d := time.Until(c.agents["worker-1"].now()); d > time.Minute || d < -time.Minute {
		t.Errorf("the agent's clock is %s off after the lift, want right", d)
	}
}

// A restarted agent replays its ledger: what it had accepted is still there,
// and what was not finished is done after the restart.
func TestLedgerSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig("worker-1", "worker")
	cfg.Data = dir
	a, err := NewAgent(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"t-1", "t-2", "t-3"} {
		if _, err := a.ledger.accept(id); err != nil {
			t.Fatal(err)
		}
	}
	a.ledger.finish("t-1", true, "")
	a.Close()
	// A torn last line: the process died mid-write.
	f, _ := os.OpenFile(filepath.Join(dir, ledgerFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("D t-")
	f.Close()

	b, err := NewAgent(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := b.ledger.counts; got.Accepted != 3 || got.Done != 1 || got.Pending != 2 {
		t.Fatalf("after restart counts = %+v, want 3 accepted, 1 done, 2 pending", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	eventually(t, 2*time.Second, "pending tasks done", func() bool { return b.State().Tasks.Done == 3 })
	cancel()
	<-done
	if got := b.State().Ledger.Accepted; !slices.Equal(got, []string{"t-1", "t-2", "t-3"}) {
		t.Errorf("accepted = %v", got)
	}
}

// Without a data directory a restart forgets: the sender's hand-offs are
// then missing from the receiver, which is what the tasks check detects.
func TestMemoryOnlyForgets(t *testing.T) {
	cfg := fastConfig("worker-1", "worker")
	a, _ := NewAgent(cfg, nil)
	a.ledger.accept("t-1")
	a.Close()
	b, _ := NewAgent(cfg, nil)
	defer b.Close()
	if n := b.ledger.counts.Accepted; n != 0 {
		t.Errorf("memory-only agent remembers %d tasks after a restart", n)
	}
}

// -route-urls sends a route's tasks through the URL it names; the others
// are reached by their ID as host name.
func TestRouteURLs(t *testing.T) {
	cfg := fastConfig("orchestrator-0", "orchestrator", "worker-1", "worker-2")
	cfg.RouteURLs = map[string]string{"worker-1": "http://172.17.0.1:40123"}
	a, err := NewAgent(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := a.routeURL("worker-1"); got != "http://172.17.0.1:40123" {
		t.Errorf("routeURL(worker-1) = %q, want the proxy's URL", got)
	}
	if got := a.routeURL("worker-2"); got != "http://worker-2:8080" {
		t.Errorf("routeURL(worker-2) = %q, want http://worker-2:8080", got)
	}
}

// A paused agent holds every request but the pause's lift, and its loops
// stop: the leader creates and hands on no task until the lift. In a
// synctest bubble, so that "no task for 20 task intervals" is measured on
// the cluster's own clock, exactly, however loaded the machine.
func TestPauseHoldsTheAgent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := refCluster(t, "")
		eventually(t, 5*time.Second, "tasks reach the orchestrator", func() bool { return c.state("orchestrator-0").Tasks.Accepted > 0 })
		if code := c.do(http.MethodPost, "leader-0", agentapi.PathFaults, agentapi.Fault{Kind: agentapi.KindPause}, nil); code != http.StatusOK {
			t.Fatalf("POST pause = %d", code)
		}
		held := c.heldClient(100 * time.Millisecond)
		if resp, err := held.Get(c.urls["leader-0"] + agentapi.PathHealth); err == nil {
			resp.Body.Close()
			t.Fatalf("GET /health of a paused agent answered %s, want no answer", resp.Status)
		}
		// Every goroutine of the cluster is blocked: a hand-off the
		// leader had on its way when the pause landed has arrived.
		synctest.Wait()
		leader := c.agents["leader-0"].State().Tasks
		before := c.state("orchestrator-0").Tasks.Accepted
		time.Sleep(20 * c.agents["leader-0"].cfg.TaskInterval)
		if after := c.state("orchestrator-0").Tasks.Accepted; after != before {
			t.Errorf("the orchestrator accepted %d tasks while the leader was paused, want 0", after-before)
		}
		if now := c.agents["leader-0"].State().Tasks; now != leader {
			t.Errorf("the paused leader's tasks went from %+v to %+v in 20 task intervals, want no change", leader, now)
		}
		// A lift aimed at some other target leaves the pause in place.
		c.do(http.MethodDelete, "leader-0", agentapi.PathFaults+"/"+agentapi.KindPause+"?target=worker-1", nil, nil)
		if resp, err := held.Get(c.urls["leader-0"] + agentapi.PathHealth); err == nil {
			resp.Body.Close()
			t.Fatalf("GET /health after a lift with a target answered %s, want still paused", resp.Status)
		}
		if code := c.do(http.MethodDelete, "leader-0", agentapi.PathFaults+"/"+agentapi.KindPause, nil, nil); code != http.StatusOK {
			t.Fatalf("DELETE pause = %d", code)
		}
		if st := c.state("leader-0"); len(st.Faults) != 0 {
			t.Errorf("faults after the lift: %+v", st.Faults)
		}
		eventually(t, 5*time.Second, "tasks flow again", func() bool { return c.state("orchestrator-0").Tasks.Accepted > before })
	})
}

// A pause with a Duration ends on its own: a request held meanwhile is
// answered then.
func TestPauseEndsOnItsOwn(t *testing.T) {
	c := refCluster(t, "")
	f := agentapi.Fault{Kind: agentapi.KindPause, Duration: agentapi.Duration(100 * time.Millisecond)}
	if code := c.do(http.MethodPost, "worker-1", agentapi.PathFaults, f, nil); code != http.StatusOK {
		t.Fatalf("POST pause = %d", code)
	}
	if code := c.do(http.MethodGet, "worker-1", agentapi.PathHealth, nil, nil); code != http.StatusOK {
		t.Errorf("GET /health after the pause = %d, want 200", code)
	}
	if st := c.state("worker-1"); len(st.Faults) != 0 {
		t.Errorf("faults after the pause's end: %+v", st.Faults)
	}
}

// A hand-off held by a pause whose sender gave up is not accepted when the
// pause ends: the sender has handed the task to another route meanwhile.
// In a synctest bubble, so that the test waits for exactly what it means:
// the server has seen the sender go, and the lift has had every effect it
// will have.
func TestPausedAgentDropsAbandonedHandOffs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startCluster(t, fastConfig("worker-1", "worker"))
		if code := c.do(http.MethodPost, "worker-1", agentapi.PathFaults, agentapi.Fault{Kind: agentapi.KindPause}, nil); code != http.StatusOK {
			t.Fatalf("POST pause = %d", code)
		}
		body := strings.NewReader(`{"id":"task-abandoned","from":"orchestrator-0"}`)
		if resp, err := c.heldClient(100*time.Millisecond).Post(c.urls["worker-1"]+agentapi.PathTasks, "application/json", body); err == nil {
			resp.Body.Close()
			t.Fatalf("POST /tasks to a paused agent answered %s, want no answer", resp.Status)
		}
		synctest.Wait() // the server has seen the sender go
		if code := c.do(http.MethodDelete, "worker-1", agentapi.PathFaults+"/"+agentapi.KindPause, nil, nil); code != http.StatusOK {
			t.Fatalf("DELETE pause = %d", code)
		}
		synctest.Wait() // whatever the lift lets through has run
		if got := c.state("worker-1").Ledger.Accepted; slices.Contains(got, "task-abandoned") {
			t.Errorf("worker-1 accepted the abandoned hand-off after the pause: %v", got)
		}
	})
}
