package arena_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/internal/planted"
)

// plantedSystem makes fresh fake clusters with the planted bug (a
// partition, then a kill of the leader while it holds, loses a task) on
// virtual clocks: the system of the shrinker's proofs.
func plantedSystem(opts ...fakes.Option) arena.SystemFactory {
	return func(_ context.Context, seed uint64) (*arena.Service, error) {
		clock := arena.NewVirtualClock(time.Time{})
		c := planted.New(append([]fakes.Option{fakes.WithClock(clock), fakes.WithSeed(seed)}, opts...)...)
		return plantedService(c, clock), nil
	}
}

func plantedService(c *planted.Cluster, clock arena.Clock) *arena.Service {
	return arena.NewService(arena.NewInjector(c, c), events.NewMemoryStore(), nil,
		arena.WithClock(clock), arena.WithProbe(c.Probe), arena.WithChecks(c.Checks()...))
}

// dayOfChaos is a 24 h survival run against the planted bug: every fault
// type but pause_agent, partitions and kills of the leader rarer than the
// rest, lifetimes up to 30s, and the fake cluster's partition healing off
// so that a partition lasts its lifetime. With seed 3 the bug first shows
// after almost 18 hours, over 6,000 faults in.
var dayOfChaos = arena.SurvivalConfig{Duration: 24 * time.Hour, Seed: 3, MaxLifetime: 30 * time.Second, Mix: dayMix()}

// dayMix is the mix the day was calibrated on (the bug shows after almost
// 18 h with seed 3): its types are listed, not derived from the specs, so
// that a new built-in type does not change this run.
func dayMix() map[arena.ActionType]float64 {
	m := map[arena.ActionType]float64{}
	for _, t := range []arena.ActionType{arena.ActionKillLeader, arena.ActionKillOrchestrator, arena.ActionKillAgent,
		arena.ActionResumeAgent, arena.ActionSlowAgent, arena.ActionNetworkPartition, arena.ActionToolTimeout,
		arena.ActionMemoryCorrupt, arena.ActionMCPDisconnect, arena.ActionLLMFailure, arena.ActionRemoveNode,
		arena.ActionRemoveEdge, arena.ActionNetworkLatency, arena.ActionNetworkBandwidth, arena.ActionConnectionReset} {
		m[t] = 1
	}
	m[arena.ActionNetworkPartition], m[arena.ActionKillLeader] = 0.1, 0.1
	return m
}

var noPartitionHealing = fakes.WithoutPartitionHealing()

// TestShrinkSurvivalDay: a failing 24 h virtual survival run, thousands of
// faults, shrinks to the two faults of the planted bug, in order, and the
// shrunk scenario, written and read back as a file, fails 10 of 10
// replays on fresh clusters.
//
//	go test -run '^TestShrinkSurvivalDay$' -v .   # logs runs used and wall time
//
// Under the race detector the day is 6 h (seed 13: the bug shows after
// 5 h 13 m, over 1,800 faults in); make test runs the full day without it.
func TestShrinkSurvivalDay(t *testing.T) {
	system := plantedSystem(noPartitionHealing)
	cfg := dayOfChaos
	if raceDetector {
		cfg.Duration, cfg.Seed = 6*time.Hour, 13
	}
	svc, _ := system(t.Context(), cfg.Seed)
	cfg.TimelineCap = arena.MaxScenarioSteps
	rep, err := svc.RunSurvival(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	gate := arena.Gate{Consistent: true}
	if checks := gate.Check(rep.Report); checks[0].Passed {
		t.Fatalf("the survival run passed its gate: %+v", checks)
	}
	sc, err := arena.ScenarioFromSurvival(rep, gate)
	if err != nil {
		t.Fatal(err)
	}

	wall := time.Now()
	res, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: sc, System: system})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("shrunk %d faults (%s) to %d in %s wall, %d runs, %d candidates: %s",
		res.Original.Faults, res.Original.Length, res.Shrunk.Faults, time.Since(wall).Round(time.Millisecond), res.Runs, res.Candidates, res.Rate)
	if res.Original.Faults < 2000 || res.Original.Length.D() != cfg.Duration {
		t.Errorf("original = %+v, want %s and thousands of faults", res.Original, cfg.Duration)
	}
	var text strings.Builder
	_ = res.WriteText(&text)
	if steps := res.Scenario.Actions; len(steps) != 2 || steps[0].Action.Type != arena.ActionNetworkPartition || !killsLeader(steps[1].Action) {
		t.Errorf("want a partition, then a kill of the leader:\n%s", text.String())
	}
	if res.Rate != (arena.FailRate{Failed: 10, Runs: 10}) || !res.Virtual || res.JudgeRuns != 1 || res.Stopped != arena.ShrinkDone {
		t.Errorf("rate %s, virtual %t, judged by %d, stopped %s; want fails 10/10, virtual, 1 run, done", res.Rate, res.Virtual, res.JudgeRuns, res.Stopped)
	}
	if want := []string{"consistent", "consistent:tasks"}; !slices.Equal(res.Failure, want) {
		t.Errorf("failure = %v, want %v", res.Failure, want)
	}
	replayFile(t, res, system, 10)
}

// replayFile writes res as a scenario file, loads it back and plays it n
// times on fresh systems: every run must fail its gate as the original did.
func replayFile(t *testing.T, res *arena.ShrinkResult, system arena.SystemFactory, n int) {
	t.Helper()
	var file bytes.Buffer
	if err := res.WriteYAML(&file); err != nil {
		t.Fatal(err)
	}
	sc, err := arena.LoadScenario(file.Bytes(), "shrunk.yaml")
	if err != nil {
		t.Fatalf("the shrunk file does not load: %v\n%s", err, file.String())
	}
	same := arena.SameFailure(res.Report)
	failed := 0
	for range n {
		svc, _ := system(t.Context(), sc.Config.Seed)
		rep, err := arena.RunScenarioReport(t.Context(), svc, sc)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Gate.Verdict == arena.GateFailed && same(rep) {
			failed++
		}
	}
	if failed != n {
		t.Errorf("the shrunk scenario fails %d/%d replays, want all", failed, n)
	}
}

// killsLeader: kill_leader, or kill_agent of whoever holds the leader's
// role (the shrinker's roles pass).
func killsLeader(a arena.Action) bool {
	return a.Type == arena.ActionKillLeader || a.Type == arena.ActionKillAgent && a.TargetID == "type:leader"
}

func stepTypes(sc *arena.Scenario) []arena.ActionType {
	var out []arena.ActionType
	for _, st := range sc.Actions {
		out = append(out, st.Action.Type)
	}
	return out
}

// pairScenario hides the planted bug's pair (partition worker-2, then kill
// the leader while it holds) among faults that do no harm: among them the
// pair's faults in the other order (a kill of the leader before any
// partition) and a partition that is lifted before the next kill.
func pairScenario() *arena.Scenario {
	step := func(delay time.Duration, typ arena.ActionType, target string, meta map[string]any) arena.ScenarioStep {
		return arena.ScenarioStep{Delay: arena.Duration(delay), Action: arena.Action{Type: typ, TargetID: target, Metadata: meta}}
	}
	s := time.Second
	return &arena.Scenario{
		Name:   "pair",
		Config: arena.ScenarioConfig{Seed: 5, Warmup: arena.Duration(5 * s), Cooldown: arena.Duration(30 * s)},
		Actions: []arena.ScenarioStep{
			step(5*s, arena.ActionKillLeader, "", nil),
			step(10*s, arena.ActionSlowAgent, "worker-3", map[string]any{"duration": "3s"}),
			step(10*s, arena.ActionNetworkPartition, "worker-3", map[string]any{"duration": "2s"}),
			step(10*s, arena.ActionLLMFailure, "worker-3", map[string]any{"duration": "5s", "error_type": "overloaded"}),
			step(10*s, arena.ActionNetworkPartition, "worker-2", map[string]any{"duration": "20s"}),
			step(5*s, arena.ActionKillAgent, "worker-3", nil),
			step(5*s, arena.ActionKillLeader, "", nil),
			step(10*s, arena.ActionToolTimeout, "worker-3", map[string]any{"duration": "5s"}),
			step(10*s, arena.ActionMCPDisconnect, "leader-0", nil),
		},
		Expect: arena.Gate{Consistent: true},
	}
}

// TestShrinkPlantedPairInOrder: the planted bug needs two faults in order;
// the shrinker finds exactly those two, in that order, among decoys, while
// the same two in the other order do no harm.
func TestShrinkPlantedPairInOrder(t *testing.T) {
	system := plantedSystem(noPartitionHealing)
	res, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: pairScenario(), System: system})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	_ = res.WriteText(&text)
	got := stepTypes(res.Scenario)
	if want := []arena.ActionType{arena.ActionNetworkPartition, arena.ActionKillLeader}; !slices.Equal(got, want) {
		t.Fatalf("shrunk to %v, want %v:\n%s", got, want, text.String())
	}
	if a := res.Scenario.Actions[0].Action; a.TargetID != "worker-2" {
		t.Errorf("the partition hits %q, want worker-2:\n%s", a.TargetID, text.String())
	}
	if res.Original.Faults != 9 || res.Rate.Failed != 10 {
		t.Errorf("original %d faults, %s; want 9 and fails 10/10", res.Original.Faults, res.Rate)
	}
	replayFile(t, res, system, 10)

	reversed := *res.Scenario
	reversed.Actions = []arena.ScenarioStep{res.Scenario.Actions[1], res.Scenario.Actions[0]}
	svc, _ := system(t.Context(), reversed.Config.Seed)
	rep, err := arena.RunScenarioReport(t.Context(), svc, &reversed)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Errorf("the pair in the other order failed its gate: %v", rep.Gate.Reasons)
	}
}

// flakySystem is plantedSystem whose kill of the leader, with nobody cut
// off, also loses a task one time in ten, by one coin seeded with coinSeed
// and tossed across the systems it makes.
func flakySystem(coinSeed uint64) arena.SystemFactory {
	var mu sync.Mutex
	toss := planted.Coin(0.1, coinSeed)
	coin := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return toss()
	}
	return func(_ context.Context, seed uint64) (*arena.Service, error) {
		clock := arena.NewVirtualClock(time.Time{})
		c := planted.NewFlaky(coin, fakes.WithClock(clock), fakes.WithSeed(seed), noPartitionHealing)
		return plantedService(c, clock), nil
	}
}

// TestShrinkFlaky: on a system whose failures vary from run to run, a
// candidate fails only when Need of Runs runs fail. A kill of the leader
// alone fails about one run in ten: never enough, so the pair is the
// result, with its measured rate.
func TestShrinkFlaky(t *testing.T) {
	sc := pairScenario()
	res, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: sc, System: flakySystem(2), Runs: 5, Need: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stepTypes(res.Scenario), []arena.ActionType{arena.ActionNetworkPartition, arena.ActionKillLeader}; !slices.Equal(got, want) {
		t.Errorf("shrunk to %v, want %v", got, want)
	}
	if res.JudgeRuns != 5 || res.JudgeNeed != 4 || res.Rate.Runs != 10 || res.Rate.Failed < 8 {
		t.Errorf("judged by %d of %d, %s; want 4 of 5 and at least 8/10", res.JudgeNeed, res.JudgeRuns, res.Rate)
	}

	// The kill alone does fail now and then: the check above is not vacuous.
	alone := &arena.Scenario{Name: "kill", Config: arena.ScenarioConfig{Seed: 5, Warmup: arena.Duration(5 * time.Second)},
		Actions: []arena.ScenarioStep{{Action: arena.Action{Type: arena.ActionKillLeader}}}, Expect: sc.Expect}
	system := flakySystem(1)
	failed := 0
	for range 50 {
		svc, _ := system(t.Context(), 5)
		if rep, err := arena.RunScenarioReport(t.Context(), svc, alone); err != nil {
			t.Fatal(err)
		} else if !rep.OK() {
			failed++
		}
	}
	if failed == 0 || failed > 15 {
		t.Errorf("a kill of the leader alone failed %d/50 runs, want about 5", failed)
	}
}

// TestShrinkFlakyOnOneRun: judged by one run (the virtual default), a kill
// of the leader alone is accepted on a lucky run; its replays fail too
// rarely, so the result falls back to the pair, with warnings.
func TestShrinkFlakyOnOneRun(t *testing.T) {
	pair := pairScenario()
	pair.Actions = pair.Actions[4:7:7]
	pair.Actions = slices.Delete(slices.Clone(pair.Actions), 1, 2) // partition worker-2, kill the leader
	// The coin is tossed only when the leader is killed with nobody cut
	// off: first by the run that judges the kill alone. Seed it so that
	// this toss comes up heads.
	coinSeed := uint64(0)
	for !planted.Coin(0.1, coinSeed)() {
		coinSeed++
	}
	res, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: pair, System: flakySystem(coinSeed)})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	_ = res.WriteText(&text)
	if got := stepTypes(res.Scenario); len(got) != 2 || res.Rate.Failed < 8 {
		t.Errorf("result %v, %s; want the pair, failing at least 8/10:\n%s", got, res.Rate, text.String())
	}
	accepted := false
	for _, p := range res.Passes {
		accepted = accepted || p.Faults == 1
	}
	if accepted || len(res.Warnings) != 2 || !strings.Contains(res.Warnings[1], "outcomes varied on a virtual clock") {
		t.Errorf("passes %+v, warnings %q; want the 1-fault schedule dropped from the passes, and two warnings", res.Passes, res.Warnings)
	}
}

// TestShrinkRealTime: on the wall clock outcomes may vary, so a candidate
// is judged by 4 of 5 runs without being told, and the result carries its
// failure rate over 10 replays.
func TestShrinkRealTime(t *testing.T) {
	system := func(_ context.Context, seed uint64) (*arena.Service, error) {
		c := planted.New(fakes.WithSeed(seed), noPartitionHealing)
		return plantedService(c, arena.RealClock{}), nil
	}
	ms := time.Millisecond
	sc := &arena.Scenario{
		Name: "real",
		Config: arena.ScenarioConfig{Seed: 9, Cooldown: arena.Duration(100 * ms), Observe: &arena.ScenarioObserve{
			ProbeInterval: arena.Duration(10 * ms), RecoveryDeadline: arena.Duration(100 * ms), SettleTime: arena.Duration(50 * ms)}},
		Actions: []arena.ScenarioStep{
			{Action: arena.Action{Type: arena.ActionKillAgent, TargetID: "worker-3"}},
			{Delay: arena.Duration(20 * ms), Action: arena.Action{Type: arena.ActionNetworkPartition, TargetID: "worker-2", Metadata: map[string]any{"duration": "5s"}}},
			{Delay: arena.Duration(20 * ms), Action: arena.Action{Type: arena.ActionKillLeader}},
		},
		Expect: arena.Gate{Consistent: true},
	}
	res, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: sc, System: system, MaxRuns: 30})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	_ = res.WriteText(&text)
	t.Logf("\n%s", text.String())
	if res.Virtual || res.JudgeRuns != arena.DefaultShrinkRuns || res.JudgeNeed != arena.DefaultShrinkNeed {
		t.Errorf("virtual %t, judged by %d of %d; want real time, %d of %d", res.Virtual, res.JudgeNeed, res.JudgeRuns, arena.DefaultShrinkNeed, arena.DefaultShrinkRuns)
	}
	if got, want := stepTypes(res.Scenario), []arena.ActionType{arena.ActionNetworkPartition, arena.ActionKillLeader}; !slices.Equal(got, want) {
		t.Errorf("shrunk to %v, want %v:\n%s", got, want, text.String())
	}
	if res.Rate.Runs != arena.DefaultShrinkReplays || res.Rate.Failed < 8 || !strings.Contains(text.String(), res.Rate.String()+" replays, real clock") {
		t.Errorf("rate %s; want at least 8/10 of %d replays, in the summary:\n%s", res.Rate, arena.DefaultShrinkReplays, text.String())
	}
}

// systems is a factory of planted systems that keeps them, to look at
// them after the shrink; cancelOn cancels ctx from the probe of the n-th
// system, once worker-2 is partitioned there.
type systems struct {
	mu       sync.Mutex
	clusters []*planted.Cluster
	svcs     []*arena.Service
	cancelOn int
	cancel   context.CancelFunc
}

func (r *systems) system(_ context.Context, seed uint64) (*arena.Service, error) {
	clock := arena.NewVirtualClock(time.Time{})
	c := planted.New(fakes.WithClock(clock), fakes.WithSeed(seed), noPartitionHealing)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clusters = append(r.clusters, c)
	n := len(r.clusters)
	probe := func(ctx context.Context) error {
		if st, _ := c.Agent("worker-2"); n == r.cancelOn && st.Partitioned {
			r.cancel()
		}
		return c.Probe(ctx)
	}
	svc := arena.NewService(arena.NewInjector(c, c), events.NewMemoryStore(), nil,
		arena.WithClock(clock), arena.WithProbe(probe), arena.WithChecks(c.Checks()...))
	r.svcs = append(r.svcs, svc)
	return svc, nil
}

// TestShrinkCancelRollsBack: cancelled in the middle of a candidate's run,
// Shrink returns the best schedule so far with the context's error, and
// that run, like every other, has lifted its faults.
func TestShrinkCancelRollsBack(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := &systems{cancelOn: 4, cancel: cancel}
	sc := pairScenario()
	sc.Actions[4].Action.Metadata = map[string]any{"duration": "10m"} // the partition outlives the run
	res, err := arena.Shrink(ctx, arena.ShrinkConfig{Scenario: sc, System: r.system})
	if !errors.Is(err, context.Canceled) || res == nil || res.Stopped != arena.ShrinkCancelled {
		t.Fatalf("Shrink = %v, %v; want the best so far, cancelled", res, err)
	}
	if len(res.Scenario.Actions) == 0 || len(r.clusters) < r.cancelOn {
		t.Fatalf("result %d steps after %d systems", len(res.Scenario.Actions), len(r.clusters))
	}
	for i, c := range r.clusters {
		if st, _ := c.Agent("worker-2"); st.Partitioned {
			t.Errorf("system %d: worker-2 still partitioned", i+1)
		}
		if af := r.svcs[i].ActiveFaults(); len(af) > 0 {
			t.Errorf("system %d: faults still active: %+v", i+1, af)
		}
	}
}

// TestShrinkBudgets: at its run budget, or its time budget, the search
// stops with the best schedule so far, which still fails.
func TestShrinkBudgets(t *testing.T) {
	system := plantedSystem(noPartitionHealing)
	res, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: pairScenario(), System: system, MaxRuns: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != arena.ShrinkRuns || res.Runs != 3+arena.DefaultShrinkReplays || res.Rate.Failed != 10 {
		t.Errorf("stopped %s after %d runs, %s; want runs after 3 + 10 replays, failing", res.Stopped, res.Runs, res.Rate)
	}

	// A system that, from its fourth making on, hangs until the search's
	// time budget ends: the search stops there. The replays, outside the
	// budget (their context has no deadline), get systems again.
	var mu sync.Mutex
	made := 0
	slow := func(ctx context.Context, seed uint64) (*arena.Service, error) {
		mu.Lock()
		made++
		n := made
		mu.Unlock()
		if _, budget := ctx.Deadline(); budget && n >= 4 {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return system(ctx, seed)
	}
	res, err = arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: pairScenario(), System: slow, Budget: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != arena.ShrinkTime || res.Rate.Failed != 10 || len(res.Scenario.Actions) == 0 {
		t.Errorf("stopped %s, %s; want time, failing 10/10", res.Stopped, res.Rate)
	}
	if _, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: pairScenario(), System: slow, Budget: time.Nanosecond}); err == nil || !strings.Contains(err.Error(), "time budget spent") {
		t.Errorf("a budget spent before the first run: %v, want an error saying so", err)
	}
}

func TestShrinkConfigErrors(t *testing.T) {
	sc := pairScenario()
	noSeed := pairScenario()
	noSeed.Config.Seed = 0
	system := plantedSystem()
	cases := []struct {
		cfg  arena.ShrinkConfig
		want string
	}{
		{arena.ShrinkConfig{System: system}, "shrink: scenario: missing"},
		{arena.ShrinkConfig{Scenario: noSeed, System: system}, "shrink: scenario: config.seed: missing"},
		{arena.ShrinkConfig{Scenario: sc}, "shrink: system: missing"},
		{arena.ShrinkConfig{Scenario: sc, System: system, Runs: -1}, "shrink: runs: negative count -1"},
		{arena.ShrinkConfig{Scenario: sc, System: system, Need: 2}, "shrink: need: 2 given without runs"},
		{arena.ShrinkConfig{Scenario: sc, System: system, Runs: 3, Need: 4}, "shrink: need: 4 is more than runs 3"},
		{arena.ShrinkConfig{Scenario: sc, System: system, Replays: -1}, "shrink: replays: negative count -1"},
		{arena.ShrinkConfig{Scenario: sc, System: system, Runs: 1001}, "shrink: runs: 1001 is more than 1000"},
		{arena.ShrinkConfig{Scenario: sc, System: system, Replays: 1001}, "shrink: replays: 1001 is more than 1000"},
		{arena.ShrinkConfig{Scenario: sc, System: system, Budget: -time.Second}, "shrink: budget: negative duration -1s"},
		{arena.ShrinkConfig{Scenario: sc, System: system, MaxRuns: -2}, "shrink: max_runs: negative count -2"},
	}
	for _, tc := range cases {
		if _, err := arena.Shrink(t.Context(), tc.cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Shrink(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	bad := pairScenario()
	bad.Actions[0].Action.Type = "kill_everything"
	if _, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: bad, System: system}); !errors.Is(err, arena.ErrInvalidScenario) {
		t.Errorf("an invalid scenario: %v, want ErrInvalidScenario", err)
	}
}

// TestShrinkNoFailure: a run that passes has nothing to shrink.
func TestShrinkNoFailure(t *testing.T) {
	sc := pairScenario()
	sc.Actions = sc.Actions[:4]
	_, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: sc, System: plantedSystem(noPartitionHealing)})
	if !errors.Is(err, arena.ErrNoFailure) || !strings.Contains(err.Error(), "fails 0/1 (need 1 of 1)") {
		t.Errorf("Shrink of a passing run = %v, want ErrNoFailure with its rate", err)
	}
}

// TestShrinkParallelScenario: a scenario played as a DAG becomes a
// sequence of its steps at the times they started, and shrinks from there.
func TestShrinkParallelScenario(t *testing.T) {
	sc, err := arena.LoadScenarioFile("scenarios/everything-at-once.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.Config.Seed = 4
	res, err := arena.Shrink(t.Context(), arena.ShrinkConfig{Scenario: sc, System: func(_ context.Context, seed uint64) (*arena.Service, error) {
		clock := arena.NewVirtualClock(time.Time{})
		c := fakes.NewCluster(fakes.WithClock(clock), fakes.WithSeed(seed), fakes.WithoutResurrection())
		return arena.NewService(arena.NewInjector(c, c), events.NewMemoryStore(), nil,
			arena.WithClock(clock), arena.WithProbe(c.Probe), arena.WithChecks(c.Checks()...)), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	_ = res.WriteText(&text)
	if res.Passes[0].Pass != "sequence" || res.Scenario.Config.ParallelActions || res.Shrunk.Faults >= res.Original.Faults || res.Rate.Failed != 10 {
		t.Errorf("passes %+v, result parallel %t, %s:\n%s", res.Passes, res.Scenario.Config.ParallelActions, res.Rate, text.String())
	}
	for i, st := range res.Scenario.Actions {
		if len(st.DependsOn) > 0 {
			t.Errorf("step %d depends on %v: the result is sequential", i, st.DependsOn)
		}
	}
	t.Logf("\n%s", text.String())
}
