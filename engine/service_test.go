package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fault"
)

// recorders for the bridges (the fakes package has richer ones; the engine's
// own tests stay free of it).
type flightRec struct {
	mu    sync.Mutex
	evs   []FlightEvent
	diags []Diagnostic
}

func (f *flightRec) RecordEvent(_ context.Context, e FlightEvent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.evs = append(f.evs, e)
	return nil
}
func (f *flightRec) RecordDiagnostic(_ context.Context, d Diagnostic) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.diags = append(f.diags, d)
	return nil
}

type evoRec struct {
	mu          sync.Mutex
	submitted   []PatchProposal
	emergencies []PatchProposal
	block       bool
	gotDeadline bool
}

func (e *evoRec) Submit(_ context.Context, p PatchProposal) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.submitted = append(e.submitted, p)
	return nil
}
func (e *evoRec) ApplyEmergency(ctx context.Context, p PatchProposal) error {
	_, ok := ctx.Deadline()
	if e.block {
		<-ctx.Done()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gotDeadline = ok
	e.emergencies = append(e.emergencies, p)
	return ctx.Err()
}

type evidenceRec struct {
	mu    sync.Mutex
	items []Evidence
}

func (s *evidenceRec) StoreEvidence(_ context.Context, e Evidence) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, e)
	return nil
}

func TestExecutePipeline(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, 0)
	store := events.NewMemoryStore()
	fr, ev := &flightRec{}, &evidenceRec{}
	reg := prometheus.NewRegistry()
	svc := NewService(fault.NewInjector(stub, stub), store, ev, WithClock(clk), WithFlightRecorder(fr), WithRegisterer(reg))
	ctx := context.Background()

	ok := svc.Execute(ctx, fault.Action{Type: fault.SlowAgent, TargetID: "worker-1", Metadata: map[string]any{"delay": 2}})
	if !ok.Success || ok.Action.ID == "" || ok.Action.CreatedAt.IsZero() || !ok.StartedAt.Equal(clk.Now()) {
		t.Fatalf("Execute(slow) = %+v, want success with id, created_at and started_at filled", ok)
	}
	if got := stub.Calls(); len(got) != 1 || got[0] != "SlowAgent(worker-1,2s)" {
		t.Errorf("provider calls = %v, want SlowAgent(worker-1,2s)", got)
	}
	bad := svc.Execute(ctx, fault.Action{Type: fault.ResumeAgent, TargetID: "ghost"})
	stub.failOn = "ResumeAgent"
	bad = svc.Execute(ctx, fault.Action{Type: fault.ResumeAgent, TargetID: "ghost"})
	if bad.Success || bad.Error != "stub: ResumeAgent refused" {
		t.Fatalf("Execute(refused resume) = %+v", bad)
	}

	st := svc.Stats()
	if st.Total != 3 || st.Succeeded != 2 || st.Failed != 1 || st.ByType[fault.ResumeAgent] != (FaultTypeStats{Total: 2, Succeeded: 1, Failed: 1}) {
		t.Errorf("stats = %+v", st)
	}
	if h := svc.History(); len(h) != 3 || h[2].Action.ID != bad.Action.ID {
		t.Errorf("history = %d results, want 3 ending with the failure", len(h))
	}
	evs, err := store.Read(ctx, events.Filter{Streams: []string{EventStream}}, 0)
	if err != nil || len(evs) != 3 {
		t.Fatalf("events = %d, %v; want 3", len(evs), err)
	}
	if evs[2].Type != EventActionFailed || evs[0].Type != EventActionExecuted || evs[2].Version != 3 {
		t.Errorf("event types/versions = %s %s v%d", evs[0].Type, evs[2].Type, evs[2].Version)
	}
	var payload ActionEvent
	if err := json.Unmarshal(evs[2].Data, &payload); err != nil {
		t.Fatal(err)
	}
	want := ActionEvent{ActionID: bad.Action.ID, Type: fault.ResumeAgent, TargetID: "ghost", Error: "stub: ResumeAgent refused", Duration: 0}
	if payload != want {
		t.Errorf("payload = %+v, want %+v", payload, want)
	}
	if len(ev.items) != 1 || ev.items[0].ActionID != bad.Action.ID {
		t.Errorf("evidence = %+v, want one item for the failure", ev.items)
	}
	if len(fr.evs) != 3 || len(fr.diags) != 1 || fr.diags[0].Category != fault.CategoryRuntime || !strings.Contains(fr.diags[0].SuggestedFix, "resume only paused") {
		t.Errorf("flight = %d events, diags %+v", len(fr.evs), fr.diags)
	}
	if got := testutil.ToFloat64(svc.metrics.actions.WithLabelValues("resume_agent", "failed")); got != 1 {
		t.Errorf("arena_actions_total{resume_agent,failed} = %v, want 1", got)
	}
	if n, err := testutil.GatherAndCount(reg, "arena_actions_total", "arena_injection_duration_seconds"); err != nil || n != 5 {
		t.Errorf("gathered series = %d, %v; want 5 (3 type/outcome counters, 2 type histograms)", n, err)
	}
}

func TestExecuteBadInputNeverPanics(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, 0)
	fr := &flightRec{}
	cases := []struct {
		name    string
		svc     *Service
		action  fault.Action
		wantErr error
		wantCat string
	}{
		{"unknown type", NewService(fault.NewInjector(stub, stub), nil, nil, WithFlightRecorder(fr)), fault.Action{Type: "explode"}, fault.ErrInvalidAction, fault.CategoryInvalidAction},
		{"missing target", NewService(fault.NewInjector(stub, stub), nil, nil, WithFlightRecorder(fr)), fault.Action{Type: fault.KillAgent}, fault.ErrInvalidAction, fault.CategoryInvalidAction},
		{"bad metadata", NewService(fault.NewInjector(stub, stub), nil, nil, WithFlightRecorder(fr)), fault.Action{Type: fault.SlowAgent, TargetID: "w", Metadata: map[string]any{"delay": "fast"}}, fault.ErrInvalidAction, fault.CategoryInvalidAction},
		{"nil runtime", NewService(fault.NewInjector(nil, stub), nil, nil, WithFlightRecorder(fr)), fault.Action{Type: fault.KillLeader}, fault.ErrNoRuntime, fault.CategoryConfiguration},
		{"nil dag", NewService(fault.NewInjector(stub, nil), nil, nil, WithFlightRecorder(fr)), fault.Action{Type: fault.RemoveNode, TargetID: "a"}, fault.ErrNoDAG, fault.CategoryConfiguration},
		{"nil store and evidence", NewService(fault.NewInjector(nil, nil), nil, nil, WithFlightRecorder(fr)), fault.Action{Type: fault.KillAgent, TargetID: "x"}, fault.ErrNoRuntime, fault.CategoryConfiguration},
		{"no eligible target", NewService(fault.NewInjector(stub, nil), nil, nil, WithFlightRecorder(fr)), fault.Action{Type: fault.KillAgent, TargetID: "type:gpu"}, fault.ErrNoTarget, fault.CategoryTargeting},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fr.diags = nil
			res := tc.svc.Execute(context.Background(), tc.action)
			if res.Success || !errors.Is(res.Err, tc.wantErr) || res.Error == "" {
				t.Fatalf("Execute(%+v) = %+v, want failure wrapping %v", tc.action, res, tc.wantErr)
			}
			if len(fr.diags) != 1 || fr.diags[0].Category != tc.wantCat {
				t.Errorf("diagnostics = %+v, want one of category %s", fr.diags, tc.wantCat)
			}
		})
	}
}

func TestProviderPanicBecomesFailedResult(t *testing.T) {
	for _, method := range []string{"StopAgent", "ListAgents"} {
		clk := clock.NewVirtual(time.Time{})
		stub := newStub(clk, 0)
		stub.panicOn = method
		svc := NewService(fault.NewInjector(stub, stub), events.NewMemoryStore(), nil)
		res := svc.Execute(context.Background(), fault.Action{Type: fault.KillLeader})
		if res.Success || !errors.Is(res.Err, fault.ErrProviderPanic) || !strings.Contains(res.Error, "boom in "+method) {
			t.Errorf("panic in %s: result = %+v, want a failure naming the panic", method, res)
		}
		stub.panicOn = ""
		if res := svc.Execute(context.Background(), fault.Action{Type: fault.KillLeader}); !res.Success {
			t.Errorf("after a panic in %s the service failed the next action: %+v", method, res)
		}
	}
}

func TestSelectorsResolveFromSeed(t *testing.T) {
	pickN := func(seed uint64) []string {
		clk := clock.NewVirtual(time.Time{})
		svc := NewService(fault.NewInjector(newStub(clk, 0), nil), nil, nil, WithSeed(seed))
		var got []string
		for range 12 {
			got = append(got, svc.Execute(context.Background(), fault.Action{Type: fault.KillAgent, TargetID: "random"}).Action.TargetID)
		}
		return got
	}
	a, b, c := pickN(7), pickN(7), pickN(8)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("same seed, different picks: %v vs %v", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("seeds 7 and 8 picked the same 12 targets: %v", a)
	}
	for _, id := range a {
		if id == "worker-4" {
			t.Errorf("random picked the stopped worker-4: %v", a)
		}
	}
	clk := clock.NewVirtual(time.Time{})
	svc := NewService(fault.NewInjector(newStub(clk, 0), nil), nil, nil)
	for _, tc := range []struct {
		action fault.Action
		want   []string
	}{
		{fault.Action{Type: fault.KillLeader}, []string{"leader-0"}},
		{fault.Action{Type: fault.KillOrchestrator}, []string{"orchestrator-0"}},
		{fault.Action{Type: fault.ResumeAgent, TargetID: "type:worker"}, []string{"worker-2"}},            // the only paused one
		{fault.Action{Type: fault.PauseAgent, TargetID: "type:worker"}, []string{"worker-1", "worker-3"}}, // running ones
	} {
		got := svc.Execute(context.Background(), tc.action).Action.TargetID
		if !strings.Contains(strings.Join(tc.want, " "), got) || got == "" {
			t.Errorf("%s %q resolved to %q, want one of %v", tc.action.Type, tc.action.TargetID, got, tc.want)
		}
	}
}

// TestConcurrentExecute: N goroutines × M calls give exactly N·M events with
// versions 1…N·M, no duplicates, and stats that add up.
func TestConcurrentExecute(t *testing.T) {
	const n, m = 16, 50
	stub := newStub(clock.Real{}, 0)
	store := events.NewMemoryStore()
	svc := NewService(fault.NewInjector(stub, stub), store, nil, WithHistoryCap(100))
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			for i := range m {
				a := fault.Action{Type: fault.KillAgent, TargetID: "worker-1"}
				if (g+i)%5 == 0 {
					a = fault.Action{Type: fault.RemoveEdge, SourceID: "a"} // invalid: no target
				}
				svc.Execute(context.Background(), a)
			}
		})
	}
	wg.Wait()
	evs, err := store.Read(context.Background(), events.Filter{Streams: []string{EventStream}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != n*m {
		t.Fatalf("events = %d, want %d", len(evs), n*m)
	}
	ids := map[string]bool{}
	for i, e := range evs {
		if e.Version != uint64(i+1) {
			t.Fatalf("event %d has version %d, want %d", i, e.Version, i+1)
		}
		var payload ActionEvent
		if err := json.Unmarshal(e.Data, &payload); err != nil {
			t.Fatal(err)
		}
		id := payload.ActionID
		if ids[id] {
			t.Fatalf("action %s has two events", id)
		}
		ids[id] = true
	}
	st := svc.Stats()
	if st.Total != n*m || st.Succeeded+st.Failed != st.Total || st.Failed != n*m/5 || st.EventErrors != 0 {
		t.Errorf("stats = total %d ok %d failed %d event errors %d, want %d total, %d failed", st.Total, st.Succeeded, st.Failed, st.EventErrors, n*m, n*m/5)
	}
	if h := svc.History(); len(h) != 100 || st.HistoryDropped != n*m-100 {
		t.Errorf("history = %d kept, %d dropped; want 100 and %d", len(h), st.HistoryDropped, n*m-100)
	}
}

// TestStalledSubscriberDoesNotBlockExecute: a subscriber that never reads is
// dropped; Execute goes on.
func TestStalledSubscriberDoesNotBlockExecute(t *testing.T) {
	store := events.NewMemoryStore(events.WithSubscriberBuffer(8))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sub, err := store.Subscribe(ctx, events.Filter{Streams: []string{EventStream}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	svc := NewService(fault.NewInjector(newStub(clock.Real{}, 0), nil), store, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			svc.Execute(ctx, fault.Action{Type: fault.KillAgent, TargetID: "worker-1"})
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Execute blocked behind a stalled subscriber")
	}
	for range sub.C() {
	}
	if !errors.Is(sub.Err(), events.ErrLagged) {
		t.Errorf("stalled subscriber err = %v, want ErrLagged", sub.Err())
	}
	if v, _ := store.StreamVersion(ctx, EventStream); v != 1000 {
		t.Errorf("stream version = %d, want 1000", v)
	}
}

func TestEvolutionBridge(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, -1) // nothing heals
	evo := &evoRec{}
	fr := &flightRec{}
	svc := NewService(fault.NewInjector(stub, stub), nil, nil, WithClock(clk), WithProbe(stub.probe), WithEvolution(evo), WithFlightRecorder(fr))
	stub.failOn = "PauseAgent"
	_, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 40 * time.Second},
		Step{At: time.Second, Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1"}}, // fails to land
		Step{At: 2 * time.Second, Action: fault.Action{Type: fault.KillLeader}},
		Step{At: 3 * time.Second, Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-3"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(evo.emergencies) != 1 || evo.emergencies[0].ActionType != fault.KillLeader || evo.emergencies[0].Priority != 9 || !evo.gotDeadline {
		t.Errorf("emergencies = %+v (deadline %v), want the leader kill with priority 9 under a timeout", evo.emergencies, evo.gotDeadline)
	}
	if len(evo.submitted) != 1 || evo.submitted[0].ActionType != fault.KillAgent || evo.submitted[0].Recovered {
		t.Errorf("submitted = %+v, want the unrecovered worker kill", evo.submitted)
	}
	if len(fr.diags) != 1 || fr.diags[0].Type != fault.PauseAgent {
		t.Errorf("diagnostics = %+v, want only the failed pause (a harness problem, not a patch)", fr.diags)
	}
	if st := svc.Stats(); st.Proposals != 2 || st.FaultsUnrecovered != 2 {
		t.Errorf("stats = %+v, want 2 proposals, 2 unrecovered", st)
	}
}

func TestEvolutionEmergencyTimeout(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, -1)
	evo := &evoRec{block: true}
	svc := NewService(fault.NewInjector(stub, stub), nil, nil, WithClock(clk), WithProbe(stub.probe),
		WithEvolution(evo), WithEmergencyTimeout(20*time.Millisecond))
	_, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 40 * time.Second},
		Step{At: time.Second, Action: fault.Action{Type: fault.KillOrchestrator}})
	if err != nil {
		t.Fatal(err)
	}
	if st := svc.Stats(); st.BridgeErrors != 1 || !strings.Contains(st.LastBridgeError, "deadline exceeded") {
		t.Errorf("bridge errors = %d (%q), want 1 deadline exceeded", st.BridgeErrors, st.LastBridgeError)
	}
}

func TestHealedFaultMakesNoProposal(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, 2*time.Second)
	evo := &evoRec{}
	reg := prometheus.NewRegistry()
	svc := NewService(fault.NewInjector(stub, stub), nil, nil, WithClock(clk), WithProbe(stub.probe), WithEvolution(evo), WithRegisterer(reg))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(evo.submitted)+len(evo.emergencies) != 0 {
		t.Errorf("proposals for a fault healed in 2s: %+v %+v", evo.submitted, evo.emergencies)
	}
	if got := testutil.ToFloat64(svc.metrics.score); got != rep.Score.Total {
		t.Errorf("arena_score = %v, want %v", got, rep.Score.Total)
	}
	if got := testutil.ToFloat64(svc.metrics.faults.WithLabelValues("recovered")); got != 1 {
		t.Errorf("arena_faults_total{recovered} = %v, want 1", got)
	}
	if st := svc.Stats(); st.LastScore == nil || *st.LastScore != rep.Score.Total || st.Runs != 1 {
		t.Errorf("stats = %+v, want last score %v after 1 run", st, rep.Score.Total)
	}
	m := svc.Metrics()
	if m.FaultsRecovered != 1 || m.MeanTTR.D() != 2*time.Second || m.Actions[fault.KillAgent]["landed"] != 1 || m.Score == nil || *m.Score != rep.Score.Total {
		t.Errorf("metrics snapshot = %+v, want 1 recovered fault, mean TTR 2s, 1 landed kill, the run's score", m)
	}
}

// TestFaultRecoveredAtEndCarriesEndChecks: a violation left by a fault that
// recovers only at the run's end still becomes a proposal.
func TestFaultRecoveredAtEndCarriesEndChecks(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, time.Second)
	evo := &evoRec{}
	svc := NewService(fault.NewInjector(stub, nil), nil, nil, WithClock(clk), WithProbe(stub.probe), WithEvolution(evo),
		WithChecks(fault.Check{Name: "ledger", Run: func(context.Context) error { return errors.New("3 tasks lost") }}))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 8 * time.Second}, kill(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; !f.Recovered || len(f.Checks) != 1 || f.Checks[0].Passed {
		t.Fatalf("fault = %+v, want recovered at the end with the failed end check", f)
	}
	if len(evo.submitted) != 1 || evo.submitted[0].FailedChecks[0] != "ledger" {
		t.Errorf("proposals = %+v, want one for the lost tasks", evo.submitted)
	}
}

func TestTwoServicesShareARegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := NewService(fault.NewInjector(newStub(clock.Real{}, 0), nil), nil, nil, WithRegisterer(reg))
	b := NewService(fault.NewInjector(newStub(clock.Real{}, 0), nil), nil, nil, WithRegisterer(reg))
	a.Execute(context.Background(), fault.Action{Type: fault.KillLeader})
	b.Execute(context.Background(), fault.Action{Type: fault.KillLeader})
	if got := testutil.ToFloat64(a.metrics.actions.WithLabelValues("kill_leader", "landed")); got != 2 {
		t.Errorf("shared counter = %v, want 2", got)
	}
	if a.metrics.latency != b.metrics.latency {
		t.Error("the second service made an injection latency histogram of its own")
	}
	if got := gather(t, a.metrics.latency); !strings.Contains(got, "type=kill_leader le=+Inf 2\n") {
		t.Errorf("shared histogram:\n%s\nwant a count of 2 for kill_leader", got)
	}
}

// conflictFlattener hides the *events.ConflictError behind a plain
// ErrConflict, as a store of the user's may, so the service must read the
// version itself.
type conflictFlattener struct{ *events.MemoryStore }

func (s conflictFlattener) Append(ctx context.Context, stream string, evs []events.Event, v uint64) (uint64, error) {
	n, err := s.MemoryStore.Append(ctx, stream, evs, v)
	if errors.Is(err, events.ErrConflict) {
		return 0, fmt.Errorf("my store: %w", events.ErrConflict)
	}
	return n, err
}

// stuckConflict reports a conflict without the actual version (Actual is
// left at 0), so the service must read it.
type stuckConflict struct{ *events.MemoryStore }

func (s stuckConflict) Append(ctx context.Context, stream string, evs []events.Event, v uint64) (uint64, error) {
	n, err := s.MemoryStore.Append(ctx, stream, evs, v)
	if errors.Is(err, events.ErrConflict) {
		return 0, &events.ConflictError{Stream: stream, Expected: v}
	}
	return n, err
}

// The service's events land after other writers' on a shared stream, with
// or without the conflict's actual version, and none is lost.
func TestEventsAfterOtherWriters(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		store func(*events.MemoryStore) EventStore
	}{
		{"conflict error", func(m *events.MemoryStore) EventStore { return m }},
		{"plain ErrConflict", func(m *events.MemoryStore) EventStore { return conflictFlattener{m} }},
		{"conflict without the actual version", func(m *events.MemoryStore) EventStore { return stuckConflict{m} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := events.NewMemoryStore()
			defer mem.Close()
			other := func() {
				if _, err := mem.Append(ctx, EventStream, []events.Event{{Type: "someone.else"}}, events.AnyVersion); err != nil {
					t.Fatal(err)
				}
			}
			other()
			other()
			svc := NewService(fault.NewInjector(newStub(clock.Real{}, 0), nil), tc.store(mem), nil)
			for i := range 6 {
				if i%2 == 1 {
					other()
				}
				svc.Execute(ctx, fault.Action{Type: fault.KillAgent, TargetID: "worker-1"})
			}
			evs, _ := mem.Read(ctx, events.Filter{Streams: []string{EventStream}}, 0)
			var mine int
			for _, e := range evs {
				if e.Type == EventActionExecuted {
					mine++
				}
			}
			if st := svc.Stats(); mine != 6 || len(evs) != 11 || st.EventErrors != 0 {
				t.Errorf("%d of the service's events in %d, %d event errors (%s); want 6 of 11, none", mine, len(evs), st.EventErrors, st.LastEventError)
			}
		})
	}
}
