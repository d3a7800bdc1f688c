package migration_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/docs/migration"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenarios"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const guide = "../migrating-from-ares-arena.md"

// TestGuideShowsThisCode keeps the guide true: each of its Go blocks is a
// run of lines of migration.go (indentation aside), so it compiles and the
// tests below run it; and the guide covers every extension point and
// changed signature of ares_arena.
func TestGuideShowsThisCode(t *testing.T) {
	md, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("migration.go")
	if err != nil {
		t.Fatal(err)
	}
	code := "\n" + strings.Join(trimmed(string(src)), "\n") + "\n"
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(md), -1)
	if len(blocks) < 8 {
		t.Fatalf("%s has %d Go blocks, want at least 8", guide, len(blocks))
	}
	for _, b := range blocks {
		if snippet := strings.Join(trimmed(b[1]), "\n"); !strings.Contains(code, "\n"+snippet+"\n") {
			t.Errorf("%s shows code that migration.go does not hold:\n%s", guide, snippet)
		}
	}
	for _, name := range []string{"RuntimeProvider", "DAGProvider", "NewInjector", "NewService", "SetFlightBridge",
		"SetEvolutionBridge", "RunScenarioReport", "ValidateScenario", "RunSurvival", "GetSurvivalStatus", "StopSurvival",
		"NewRegressionTester", "AdaptiveBatchSize", "MinAdaptiveRuns", "NewHandler", "RegisterRoutes", "SetAPIKey",
		"RecoverMiddleware", "ListAgents", "ListEdges", "InjectLLMFailure", "EventStore", "RecordActionResult"} {
		if !regexp.MustCompile(`\b` + name + `\b`).Match(md) {
			t.Errorf("%s does not mention `%s`", guide, name)
		}
	}
}

func trimmed(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

// oldCluster is the fake cluster behind ares_arena's interfaces, as a user's
// runtime and DAG were.
type oldCluster struct{ *fakes.Cluster }

func (c oldCluster) ListAgents() []migration.OldAgentInfo {
	agents, _ := c.Cluster.ListAgents(context.Background())
	var out []migration.OldAgentInfo
	for _, a := range agents {
		out = append(out, migration.OldAgentInfo{ID: a.ID, Type: a.Type, Status: string(a.Status), Restarts: a.Restarts})
	}
	return out
}

func (c oldCluster) InjectLLMFailure(ctx context.Context, agentID string, errType string) error {
	_, err := c.Cluster.InjectLLMFailure(ctx, agentID, fault.LLMErrorType(errType))
	return err
}

// ares_arena's landing methods return only an error.
func (c oldCluster) PauseAgent(ctx context.Context, id string) error {
	_, err := c.Cluster.PauseAgent(ctx, id)
	return err
}
func (c oldCluster) SlowAgent(ctx context.Context, id string, d time.Duration) error {
	_, err := c.Cluster.SlowAgent(ctx, id, d)
	return err
}
func (c oldCluster) PartitionNetwork(ctx context.Context, id string) error {
	_, err := c.Cluster.PartitionNetwork(ctx, id)
	return err
}
func (c oldCluster) ToolTimeout(ctx context.Context, id string, d time.Duration) error {
	_, err := c.Cluster.ToolTimeout(ctx, id, d)
	return err
}
func (c oldCluster) DisconnectMCP(ctx context.Context, id string) error {
	_, err := c.Cluster.DisconnectMCP(ctx, id)
	return err
}

type oldDAG struct{ *fakes.Cluster }

func (d oldDAG) ListNodes(ctx context.Context) []string {
	nodes, _ := d.Cluster.ListNodes(ctx)
	return nodes
}

func (d oldDAG) ListEdges(ctx context.Context) [][2]string {
	edges, _ := d.Cluster.ListEdges(ctx)
	var out [][2]string
	for _, e := range edges {
		out = append(out, [2]string{e.Source, e.Target})
	}
	return out
}

var (
	_ migration.OldRuntime = oldCluster{}
	_ migration.OldDAG     = oldDAG{}
)

type system struct {
	svc    *engine.Service
	flight *fakes.FlightRecorder
	reg    *prometheus.Registry
	serve  func() *httptest.Server
}

// migrated is a service built as the guide builds it, over the fake cluster
// on a virtual clock.
func migrated(t *testing.T, seed uint64) system {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(seed))
	fr, reg := fakes.NewFlightRecorder(), prometheus.NewRegistry()
	svc, store := migration.NewService(oldCluster{c}, oldDAG{c}, c.Probe, migration.Bridges{Flight: fr, Metrics: reg},
		engine.WithClock(clk), engine.WithChecks(c.Checks()...), engine.WithSeed(seed))
	return system{svc: svc, flight: fr, reg: reg, serve: func() *httptest.Server {
		mux := http.NewServeMux()
		h := migration.Serve(mux, svc, store, reg, fr, "s3cret")
		t.Cleanup(func() { _ = h.Close() })
		migration.Protect(mux, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("a bug of yours") }))
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		return srv
	}}
}

func TestScenarioOverTheOldInterfaces(t *testing.T) {
	for _, name := range []string{"dag-surgery", "leader-failover", "rolling-kills"} {
		t.Run(name, func(t *testing.T) {
			s := migrated(t, 5)
			data, err := scenarios.FS.ReadFile(name + ".yaml")
			if err != nil {
				t.Fatal(err)
			}
			rep, err := migration.RunScenario(context.Background(), s.svc, data)
			if err != nil {
				t.Fatalf("RunScenario(%s) = %v", name, err)
			}
			if rep.Failed != 0 || rep.Report.Landed == 0 {
				t.Errorf("report: %d steps failed, %d faults landed", rep.Failed, rep.Report.Landed)
			}
			timeline, _ := s.flight.Timeline(context.Background())
			if len(timeline) != rep.Passed+rep.Failed {
				t.Errorf("flight timeline has %d events, want one per step (%d)", len(timeline), rep.Passed+rep.Failed)
			}
			if families, err := s.reg.Gather(); err != nil || len(families) == 0 {
				t.Errorf("registry: %d metric families, %v", len(families), err)
			}
		})
	}
	s := migrated(t, 5)
	if ok, failed := migration.ActionsOf(s.svc, fault.KillAgent); ok != 0 || failed != 0 {
		t.Errorf("ActionsOf before any action = %d, %d", ok, failed)
	}
	res := s.svc.Execute(context.Background(), fault.Action{Type: fault.LLMFailure, TargetID: "worker-1",
		Metadata: map[string]any{"error_type": "overloaded"}})
	if ok, failed := migration.ActionsOf(s.svc, fault.LLMFailure); !res.Success || ok != 1 || failed != 0 {
		t.Errorf("after one llm_failure (%+v): ActionsOf = %d, %d, want 1, 0", res, ok, failed)
	}
	_, err := migration.RunScenario(context.Background(), s.svc, []byte("name: x\nactions:\n  - action: {type: kill_agent, target: worker-1}\n"))
	if err == nil || !strings.Contains(err.Error(), "my-scenario.yaml:3:") {
		t.Errorf("RunScenario of a misspelt field = %v, want an error at my-scenario.yaml:3", err)
	}
}

// TestPartialRuntimeAndOwnFault: the runtime that lands only pauses runs
// a scenario of pauses and of the user's own fault; a scenario with an MCP
// fault is refused naming the step, and nothing of it lands.
func TestPartialRuntimeAndOwnFault(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(1))
	var restarted []string
	restart := func(_ context.Context, id string) error {
		restarted = append(restarted, id)
		return nil
	}
	svc := migration.NewPartialService(oldCluster{c}, restart, c.Probe, engine.WithClock(clk))
	ok := "name: own\nactions:\n" +
		"  - action: {type: pause_agent, target_id: worker-1, metadata: {duration: 2s}}\n" +
		"  - delay: 5s\n    action: {type: restart_agent, target_id: worker-2}\n"
	rep, err := migration.RunOwnScenario(context.Background(), svc, []byte(ok))
	if err != nil {
		t.Fatalf("RunOwnScenario = %v", err)
	}
	if rep.Failed != 0 || rep.Report.Landed != 2 || len(restarted) != 1 || restarted[0] != "worker-2" {
		t.Errorf("%d steps failed, %d landed, restarted %v; want none failed, 2 landed, worker-2 restarted:\n%s",
			rep.Failed, rep.Report.Landed, restarted, rep)
	}
	if f := rep.Report.Faults; len(f) != 2 || f[1].Action.Type != "restart_agent" || f[0].Lifted == nil || f[0].LiftError != "" {
		t.Errorf("report faults %+v, want the pause, lifted at its duration, and restart_agent", f)
	}
	bad := ok + "  - action: {type: mcp_disconnect, target_id: worker-3}\n"
	_, err = migration.RunOwnScenario(context.Background(), svc, []byte(bad))
	want := "actions[2].action.type: mcp_disconnect is not supported by this runtime: this system can only pause and resume its agents"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("RunOwnScenario with an MCP fault = %v, want an error containing %q", err, want)
	}
	if len(restarted) != 1 {
		t.Errorf("restarted %v after the refused scenario, want nothing more", restarted)
	}
}

func TestSurvival(t *testing.T) {
	s := migrated(t, 7)
	if rep, err := migration.StopIfFailing(s.svc, engine.GradeB); rep != nil || err != nil {
		t.Errorf("StopIfFailing with no run = %v, %v; want nil, nil", rep, err)
	}
	rep, err := migration.Survive(context.Background(), s.svc)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Config.Seed != 7 || rep.Actions == 0 || !rep.Report.Score.Measured {
		t.Errorf("survival: seed %d, %d actions, score %+v", rep.Config.Seed, rep.Actions, rep.Report.Score)
	}
}

func TestCompare(t *testing.T) {
	scorer := migration.Scorer(func(strategy any) (float64, error) { return strategy.(float64), nil })
	for _, c := range []struct {
		old, new float64
		want     bool
	}{{50, 60, true}, {60, 50, false}, {50, 50, false}} {
		got, err := migration.Compare(context.Background(), nil, scorer, c.old, c.new)
		if err != nil || got != c.want {
			t.Errorf("Compare(%v, %v) = %v, %v; want %v", c.old, c.new, got, err, c.want)
		}
	}
}

func TestServe(t *testing.T) {
	srv := migrated(t, 3).serve()
	post := func(path, key string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, nil)
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp
	}
	for _, c := range []struct {
		path, key string
		want      int
	}{
		{"/arena/agent/worker-1/kill", "", http.StatusUnauthorized},
		{"/arena/agent/worker-1/kill", "s3cret", http.StatusOK},
		{"/yours", "", http.StatusInternalServerError}, // recovered, the server lives on
		{"/arena/agent/worker-2/pause", "s3cret", http.StatusOK},
	} {
		if got := post(c.path, c.key).StatusCode; got != c.want {
			t.Errorf("POST %s (key %q) = %d, want %d", c.path, c.key, got, c.want)
		}
	}
}

// The partial runtime of the guide passes arena's conformance suite: it
// lands and lifts its pauses and refuses every other built-in type.
func TestPausesConforms(t *testing.T) {
	arenatest.TestRuntime(t, func(t *testing.T) migration.Pauses {
		return migration.Pauses{Old: oldCluster{fakes.NewCluster()}}
	})
}

// beforeLift is a runtime written for arena before Lift, over the fake
// cluster: LiftFault undoes the slowdown it landed.
type beforeLift struct {
	c    *fakes.Cluster
	lift fault.Lift
}

func (b *beforeLift) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	return b.c.ListAgents(ctx)
}

func (b *beforeLift) SlowAgent(ctx context.Context, id string, d time.Duration) (err error) {
	b.lift, err = b.c.SlowAgent(ctx, id, d)
	return err
}

func (b *beforeLift) LiftFault(ctx context.Context, kind fault.Type, id string) error {
	if kind != fault.SlowAgent || b.lift == nil {
		return nil
	}
	return b.lift(ctx)
}

// TestLiftedHandsBackTheOldLift: the guide's Lifted lands through the old
// method and lifts through the old LiftFault.
func TestLiftedHandsBackTheOldLift(t *testing.T) {
	c := fakes.NewCluster()
	l := migration.Lifted{Old: &beforeLift{c: c}}
	lift, err := l.SlowAgent(context.Background(), "worker-1", time.Second)
	if err != nil || lift == nil {
		t.Fatalf("SlowAgent = %p, %v; want a lift", lift, err)
	}
	if a, _ := c.Agent("worker-1"); a.SlowDelay != time.Second {
		t.Fatalf("worker-1 slowed by %v, want 1s", a.SlowDelay)
	}
	if err := lift(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a, _ := c.Agent("worker-1"); a.SlowDelay != 0 {
		t.Errorf("worker-1 slowed by %v after the lift, want 0", a.SlowDelay)
	}
}
