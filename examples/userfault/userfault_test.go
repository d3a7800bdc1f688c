package userfault

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ares-arena/arena/arenahttp"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/scenarios"
	"github.com/ares-arena/arena/schema"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// system is the store behind an arena service that knows acme.disk_full.
type system struct {
	store  *Store
	svc    *engine.Service
	flight *fakes.FlightRecorder
	evo    *fakes.EvolutionCoordinator
}

func newSystem(compactAfter time.Duration) *system {
	clk := clock.NewVirtual(time.Time{})
	s := &system{store: NewStore(clk, compactAfter), flight: fakes.NewFlightRecorder(), evo: fakes.NewEvolutionCoordinator()}
	in := fault.NewInjectorFor(s.store, fault.WithFault(DiskFull(s.store)))
	s.svc = engine.NewService(in, nil, nil, engine.WithClock(clk), engine.WithProbe(s.store.Probe),
		engine.WithFlightRecorder(s.flight), engine.WithEvolution(s.evo))
	return s
}

func loadDisk(t *testing.T, svc *engine.Service) *scenario.Scenario {
	t.Helper()
	data, err := os.ReadFile("testdata/disk.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(data, "disk.yaml", svc.Injector().FaultTypes()...)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestScenarioFromYAML runs acme.disk_full from a YAML scenario: both faults land,
// the store heals them (compaction, then the lift), and the report says so.
func TestScenarioFromYAML(t *testing.T) {
	s := newSystem(3 * time.Second)
	rep, err := scenario.Run(context.Background(), s.svc, loadDisk(t, s.svc))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("gate %s:\n%s", rep.Gate.Verdict, rep)
	}
	if len(rep.Faults) != 2 {
		t.Fatalf("%d faults in the report, want 2:\n%s", len(rep.Faults), rep)
	}
	for _, f := range rep.Faults {
		if f.Action.Type != "acme.disk_full" || !f.Recovered {
			t.Errorf("fault %+v, want a recovered acme.disk_full", f)
		}
	}
	if ttr := rep.Faults[0].TTR.D(); ttr < 3*time.Second || ttr > 4*time.Second {
		t.Errorf("first fault healed in %s, want the compactor's 3s (and a probe interval)", ttr)
	}
	if ttr := rep.Faults[1].TTR.D(); ttr < time.Second || ttr > 2*time.Second {
		t.Errorf("second fault healed in %s, want its 1s duration: the engine lifts it (DiskFull's Lift)", ttr)
	}
	if text := rep.String(); !strings.Contains(text, "acme.disk_full") {
		t.Errorf("the text report does not name acme.disk_full:\n%s", text)
	}
}

// TestScenarioIsStrict: acme.disk_full's metadata is checked like a built-in's,
// with file:line:column.
func TestScenarioIsStrict(t *testing.T) {
	s := newSystem(time.Second)
	_, err := scenario.Load([]byte(`name: bad
actions:
  - action:
      type: acme.disk_full
      target_id: node-1
      metadata: {percnt: 100}
  - action:
      type: acme.disk_full
      target_id: node-1
      metadata:
        percent: 150
`), "bad.yaml", s.svc.Injector().FaultTypes()...)
	want := "bad.yaml:6:18: actions[0].action.metadata.percnt: unknown key for acme.disk_full (want percent, duration)\n" +
		"bad.yaml:11:9: actions[1].action.metadata.percent: 150 is out of range (want more than 0, at most 100)"
	if err == nil || err.Error() != want {
		t.Errorf("LoadScenario = %v, want\n%s", err, want)
	}
	if _, err := scenario.Load([]byte("name: x\nactions:\n  - action: {type: acme.disk_full, target_id: node-1}\n"), "plain.yaml"); err == nil ||
		!strings.Contains(err.Error(), `unknown action type "acme.disk_full"`) {
		t.Errorf("LoadScenario without the service's types = %v, want unknown action type", err)
	}
}

// TestSchema: the schema printed for this service knows acme.disk_full and its
// metadata; the shipped one (built-ins only) does not.
func TestSchema(t *testing.T) {
	s := newSystem(time.Second)
	b, err := schema.For(s.svc.Injector())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			Enum  []string `json:"enum"`
			AllOf []struct {
				Description string `json:"description"`
				Then        struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"then"`
			} `json:"allOf"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	types := doc.Defs["ActionType"].Enum
	if types[len(types)-1] != "acme.disk_full" {
		t.Errorf("ActionType enum %v, want acme.disk_full last", types)
	}
	allOf := doc.Defs["Action"].AllOf
	last := allOf[len(allOf)-1]
	if !strings.HasPrefix(last.Description, "acme.disk_full: Fills a storage node's disk") {
		t.Errorf("last per-type rule is %q, want acme.disk_full's", last.Description)
	}
	var meta struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(last.Then.Properties["metadata"], &meta); err != nil {
		t.Fatal(err)
	}
	if p := meta.Properties["percent"]; p.Type != "number" || !strings.Contains(p.Description, "percent") {
		t.Errorf("metadata.percent = %+v, want a documented number", p)
	}
	if strings.Contains(string(scenarios.Schema()), "acme.disk_full") {
		t.Error("the shipped schema knows acme.disk_full")
	}
}

// TestHTTP: POST /arena/fault/acme.disk_full lands the fault; bad metadata is a
// 400 naming the field.
func TestHTTP(t *testing.T) {
	s := newSystem(time.Minute)
	h := arenahttp.NewHandler(s.svc)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	post := func(body string) (int, map[string]any) {
		resp, err := srv.Client().Post(srv.URL+"/arena/fault/acme.disk_full", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	code, res := post(`{"target_id": "node-2", "metadata": {"percent": 100}}`)
	if code != 200 || res["success"] != true {
		t.Fatalf("POST /arena/fault/acme.disk_full = %d %v, want 200 and landed", code, res)
	}
	if err := s.store.Probe(context.Background()); !errors.Is(err, ErrDiskFull) {
		t.Errorf("after the fault the probe says %v, want %v", err, ErrDiskFull)
	}
	code, res = post(`{"target_id": "node-2", "metadata": {"percent": "lots"}}`)
	if code != 400 || res["field"] != "metadata.percent" {
		t.Errorf("bad metadata = %d %v, want 400 naming metadata.percent", code, res)
	}
}

// TestSurvival: acme.disk_full in a survival mix, on its own and next to
// nothing else the store could take.
func TestSurvival(t *testing.T) {
	s := newSystem(3 * time.Second)
	rep, err := s.svc.RunSurvival(context.Background(), engine.SurvivalConfig{
		Duration: 10 * time.Minute, Interval: 10 * time.Second, Seed: 11, Mix: map[fault.Type]float64{"acme.disk_full": 1}})
	if err != nil {
		t.Fatal(err)
	}
	o := rep.ByType["acme.disk_full"]
	if o.Landed < 50 || o.Recovered != o.Landed {
		t.Errorf("acme.disk_full in survival: %+v, want 50+ landed, all recovered", o)
	}
	// The default mix is every type the store can land: acme.disk_full alone;
	// the built-in agent faults are left out with a warning each (the DAG
	// ones silently: there is no DAG).
	rep, err = s.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Minute, Interval: 10 * time.Second, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	agentFaults := 0
	for _, typ := range fault.Types() {
		if !typ.NeedsDAG() {
			agentFaults++
		}
	}
	if len(rep.Config.Mix) != 1 || rep.Config.Mix["acme.disk_full"] != 1 || len(rep.Warnings) != agentFaults {
		t.Errorf("default mix %v with %d warnings, want acme.disk_full alone and %d warnings", rep.Config.Mix, len(rep.Warnings), agentFaults)
	}
}

// TestBridges: the flight recorder gets acme.disk_full's category and fix, the
// evolution coordinator its priority and suggestion.
func TestBridges(t *testing.T) {
	s := newSystem(time.Hour) // no compaction within the run: the fault is not healed
	res := s.svc.Execute(context.Background(), fault.Action{Type: "acme.disk_full", TargetID: "node-9"})
	if res.Success {
		t.Fatal("acme.disk_full on node-9 landed")
	}
	diags, _ := s.flight.Diagnostics(context.Background())
	if len(diags) != 1 || diags[0].Category != "storage" || !strings.HasPrefix(diags[0].SuggestedFix, "target a node of the store") {
		t.Errorf("diagnostics %+v, want acme.disk_full's category and fix", diags)
	}
	_, err := engine.RunSchedule(context.Background(), s.svc, engine.RunOptions{Seed: 1, Duration: time.Minute},
		engine.Step{At: time.Second, Action: fault.Action{Type: "acme.disk_full", TargetID: "node-1"}})
	if err != nil {
		t.Fatal(err)
	}
	ps := s.evo.Submitted()
	if len(ps) != 1 || ps[0].Priority != 7 || !strings.HasPrefix(ps[0].Suggestion, "compact sooner") {
		t.Errorf("proposals %+v, want acme.disk_full's priority 7 and suggestion", ps)
	}
}

// TestArenatest: arenatest runs the same file against a fresh store with
// WithRuntime and WithFaults.
func TestArenatest(t *testing.T) {
	store := NewStore(clock.NewVirtual(time.Time{}), 3*time.Second)
	rep := arenatest.Run(t, "testdata/disk.yaml", arenatest.WithRuntime(store), arenatest.WithFaults(DiskFull(store)),
		arenatest.WithProbe(store.Probe), arenatest.WithChecks(), arenatest.Virtual())
	if rep == nil || rep.Passed != 2 {
		t.Errorf("arenatest.Run: %v", rep)
	}
}
