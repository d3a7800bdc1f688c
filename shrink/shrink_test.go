package shrink_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/bound"
	"github.com/ares-arena/arena/internal/planted"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/shrink"
)

// plantedSystem makes fresh fake clusters with the planted bug (a
// partition, then a kill of the leader while it holds, loses a task) on
// virtual clocks: the system of the shrinker's proofs.
func plantedSystem(opts ...fakes.Option) shrink.SystemFactory {
	return func(_ context.Context, seed uint64) (*engine.Service, error) {
		clk := clock.NewVirtual(time.Time{})
		c := planted.New(append([]fakes.Option{fakes.WithClock(clk), fakes.WithSeed(seed)}, opts...)...)
		return plantedService(c, clk), nil
	}
}

func plantedService(c *planted.Cluster, clk clock.Clock) *engine.Service {
	return engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
}

// dayOfChaos is a 24 h survival run against the planted bug: every fault
// type but pause_agent, partitions and kills of the leader rarer than the
// rest, lifetimes up to 30s, and the fake cluster's partition healing off
// so that a partition lasts its lifetime. With seed 3 the bug first shows
// after almost 18 hours, over 6,000 faults in.
var dayOfChaos = engine.SurvivalConfig{Duration: 24 * time.Hour, Seed: 3, MaxLifetime: 30 * time.Second, Mix: dayMix()}

// dayMix is the mix the day was calibrated on (the bug shows after almost
// 18 h with seed 3): its types are listed, not derived from the specs, so
// that a new built-in type does not change this run.
func dayMix() map[fault.Type]float64 {
	m := map[fault.Type]float64{}
	for _, t := range []fault.Type{fault.KillLeader, fault.KillOrchestrator, fault.KillAgent,
		fault.ResumeAgent, fault.SlowAgent, fault.NetworkPartition, fault.ToolTimeout,
		fault.MemoryCorrupt, fault.MCPDisconnect, fault.LLMFailure, fault.RemoveNode,
		fault.RemoveEdge, fault.NetworkLatency, fault.NetworkBandwidth, fault.ConnectionReset} {
		m[t] = 1
	}
	m[fault.NetworkPartition], m[fault.KillLeader] = 0.1, 0.1
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
	cfg.TimelineCap = scenario.MaxSteps
	rep, err := svc.RunSurvival(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	gate := scenario.Gate{Consistent: true}
	if checks := gate.Check(rep.Report); checks[0].Passed {
		t.Fatalf("the survival run passed its gate: %+v", checks)
	}
	sc, err := shrink.FromSurvival(rep, gate)
	if err != nil {
		t.Fatal(err)
	}

	wall := time.Now()
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: sc, System: system})
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
	if steps := res.Scenario.Actions; len(steps) != 2 || steps[0].Action.Type != fault.NetworkPartition || !killsLeader(steps[1].Action) {
		t.Errorf("want a partition, then a kill of the leader:\n%s", text.String())
	}
	if res.Rate != (shrink.FailRate{Failed: 10, Runs: 10}) || !res.Virtual || res.JudgeRuns != 1 || res.Stopped != shrink.Done {
		t.Errorf("rate %s, virtual %t, judged by %d, stopped %s; want fails 10/10, virtual, 1 run, done", res.Rate, res.Virtual, res.JudgeRuns, res.Stopped)
	}
	if want := []string{"consistent", "consistent:tasks"}; !slices.Equal(res.Failure, want) {
		t.Errorf("failure = %v, want %v", res.Failure, want)
	}
	replayFile(t, res, system, 10)
}

// replayFile writes res as a scenario file, loads it back and plays it n
// times on fresh systems: every run must fail its gate as the original did.
func replayFile(t *testing.T, res *shrink.Result, system shrink.SystemFactory, n int) {
	t.Helper()
	var file bytes.Buffer
	if err := res.WriteYAML(&file); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(file.Bytes(), "shrunk.yaml")
	if err != nil {
		t.Fatalf("the shrunk file does not load: %v\n%s", err, file.String())
	}
	same := shrink.SameFailure(res.Report)
	failed := 0
	for range n {
		svc, _ := system(t.Context(), sc.Config.Seed)
		rep, err := scenario.Run(t.Context(), svc, sc)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Gate.Verdict == scenario.GateFailed && same(rep) {
			failed++
		}
	}
	if failed != n {
		t.Errorf("the shrunk scenario fails %d/%d replays, want all", failed, n)
	}
}

// killsLeader: kill_leader, or kill_agent of whoever holds the leader's
// role (the shrinker's roles pass).
func killsLeader(a fault.Action) bool {
	return a.Type == fault.KillLeader || a.Type == fault.KillAgent && a.TargetID == "type:leader"
}

func stepTypes(sc *scenario.Scenario) []fault.Type {
	var out []fault.Type
	for _, st := range sc.Actions {
		out = append(out, st.Action.Type)
	}
	return out
}

// pairScenario hides the planted bug's pair (partition worker-2, then kill
// the leader while it holds) among faults that do no harm: among them the
// pair's faults in the other order (a kill of the leader before any
// partition) and a partition that is lifted before the next kill.
func pairScenario() *scenario.Scenario {
	step := func(delay time.Duration, typ fault.Type, target string, meta map[string]any) scenario.Step {
		return scenario.Step{Delay: clock.Duration(delay), Action: fault.Action{Type: typ, TargetID: target, Metadata: meta}}
	}
	s := time.Second
	return &scenario.Scenario{
		Name:   "pair",
		Config: scenario.Config{Seed: 5, Warmup: clock.Duration(5 * s), Cooldown: clock.Duration(30 * s)},
		Actions: []scenario.Step{
			step(5*s, fault.KillLeader, "", nil),
			step(10*s, fault.SlowAgent, "worker-3", map[string]any{"duration": "3s"}),
			step(10*s, fault.NetworkPartition, "worker-3", map[string]any{"duration": "2s"}),
			step(10*s, fault.LLMFailure, "worker-3", map[string]any{"duration": "5s", "error_type": "overloaded"}),
			step(10*s, fault.NetworkPartition, "worker-2", map[string]any{"duration": "20s"}),
			step(5*s, fault.KillAgent, "worker-3", nil),
			step(5*s, fault.KillLeader, "", nil),
			step(10*s, fault.ToolTimeout, "worker-3", map[string]any{"duration": "5s"}),
			step(10*s, fault.MCPDisconnect, "leader-0", nil),
		},
		Expect: scenario.Gate{Consistent: true},
	}
}

// TestShrinkPlantedPairInOrder: the planted bug needs two faults in order;
// the shrinker finds exactly those two, in that order, among decoys, while
// the same two in the other order do no harm.
func TestShrinkPlantedPairInOrder(t *testing.T) {
	system := plantedSystem(noPartitionHealing)
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: pairScenario(), System: system})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	_ = res.WriteText(&text)
	got := stepTypes(res.Scenario)
	if want := []fault.Type{fault.NetworkPartition, fault.KillLeader}; !slices.Equal(got, want) {
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
	reversed.Actions = []scenario.Step{res.Scenario.Actions[1], res.Scenario.Actions[0]}
	svc, _ := system(t.Context(), reversed.Config.Seed)
	rep, err := scenario.Run(t.Context(), svc, &reversed)
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
func flakySystem(coinSeed uint64) shrink.SystemFactory {
	var mu sync.Mutex
	toss := planted.Coin(0.1, coinSeed)
	coin := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return toss()
	}
	return func(_ context.Context, seed uint64) (*engine.Service, error) {
		clk := clock.NewVirtual(time.Time{})
		c := planted.NewFlaky(coin, fakes.WithClock(clk), fakes.WithSeed(seed), noPartitionHealing)
		return plantedService(c, clk), nil
	}
}

// TestShrinkFlaky: on a system whose failures vary from run to run, a
// candidate fails only when Need of Runs runs fail. A kill of the leader
// alone fails about one run in ten: never enough, so the pair is the
// result, with its measured rate.
func TestShrinkFlaky(t *testing.T) {
	sc := pairScenario()
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: sc, System: flakySystem(2), Runs: 5, Need: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stepTypes(res.Scenario), []fault.Type{fault.NetworkPartition, fault.KillLeader}; !slices.Equal(got, want) {
		t.Errorf("shrunk to %v, want %v", got, want)
	}
	if res.JudgeRuns != 5 || res.JudgeNeed != 4 || res.Rate.Runs != 10 || res.Rate.Failed < 8 {
		t.Errorf("judged by %d of %d, %s; want 4 of 5 and at least 8/10", res.JudgeNeed, res.JudgeRuns, res.Rate)
	}

	// The kill alone does fail now and then: the check above is not vacuous.
	alone := &scenario.Scenario{Name: "kill", Config: scenario.Config{Seed: 5, Warmup: clock.Duration(5 * time.Second)},
		Actions: []scenario.Step{{Action: fault.Action{Type: fault.KillLeader}}}, Expect: sc.Expect}
	system := flakySystem(1)
	failed := 0
	for range 50 {
		svc, _ := system(t.Context(), 5)
		if rep, err := scenario.Run(t.Context(), svc, alone); err != nil {
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
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: pair, System: flakySystem(coinSeed)})
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
	// The warning agrees with the result: it names the schedule reported,
	// by its size, as well as the one dropped.
	reported := fmt.Sprintf("; reported instead: 2 faults, %s (by pass ", bound.FormatDuration(res.Shrunk.Length.D()))
	if len(res.Warnings) == 0 || !strings.HasPrefix(res.Warnings[0], "the smallest failing schedule found (1 fault, ") || !strings.Contains(res.Warnings[0], reported) {
		t.Errorf("warnings %q; want the 1-fault schedule named as dropped, and %q", res.Warnings, reported)
	}
}

// TestShrinkRealTime: on the wall clock outcomes may vary, so a candidate
// is judged by 4 of 5 runs without being told, and the result carries its
// failure rate over 10 replays.
func TestShrinkRealTime(t *testing.T) {
	system := func(_ context.Context, seed uint64) (*engine.Service, error) {
		c := planted.New(fakes.WithSeed(seed), noPartitionHealing)
		return plantedService(c, clock.Real{}), nil
	}
	ms := time.Millisecond
	sc := &scenario.Scenario{
		Name: "real",
		Config: scenario.Config{Seed: 9, Cooldown: clock.Duration(100 * ms), Observe: &scenario.Observe{
			ProbeInterval: clock.Duration(10 * ms), RecoveryDeadline: clock.Duration(100 * ms), SettleTime: clock.Duration(50 * ms)}},
		Actions: []scenario.Step{
			{Action: fault.Action{Type: fault.KillAgent, TargetID: "worker-3"}},
			{Delay: clock.Duration(20 * ms), Action: fault.Action{Type: fault.NetworkPartition, TargetID: "worker-2", Metadata: map[string]any{"duration": "5s"}}},
			{Delay: clock.Duration(20 * ms), Action: fault.Action{Type: fault.KillLeader}},
		},
		Expect: scenario.Gate{Consistent: true},
	}
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: sc, System: system, MaxRuns: 30})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	_ = res.WriteText(&text)
	t.Logf("\n%s", text.String())
	if res.Virtual || res.JudgeRuns != shrink.DefaultRuns || res.JudgeNeed != shrink.DefaultNeed {
		t.Errorf("virtual %t, judged by %d of %d; want real time, %d of %d", res.Virtual, res.JudgeNeed, res.JudgeRuns, shrink.DefaultNeed, shrink.DefaultRuns)
	}
	if got, want := stepTypes(res.Scenario), []fault.Type{fault.NetworkPartition, fault.KillLeader}; !slices.Equal(got, want) {
		t.Errorf("shrunk to %v, want %v:\n%s", got, want, text.String())
	}
	if res.Rate.Runs != shrink.DefaultReplays || res.Rate.Failed < 8 || !strings.Contains(text.String(), res.Rate.String()+" replays, real clock") {
		t.Errorf("rate %s; want at least 8/10 of %d replays, in the summary:\n%s", res.Rate, shrink.DefaultReplays, text.String())
	}
}

// systems is a factory of planted systems that keeps them, to look at
// them after the shrink; cancelOn cancels ctx from the probe of the n-th
// system, once worker-2 is partitioned there.
type systems struct {
	mu       sync.Mutex
	clusters []*planted.Cluster
	svcs     []*engine.Service
	cancelOn int
	cancel   context.CancelFunc
}

func (r *systems) system(_ context.Context, seed uint64) (*engine.Service, error) {
	clk := clock.NewVirtual(time.Time{})
	c := planted.New(fakes.WithClock(clk), fakes.WithSeed(seed), noPartitionHealing)
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
	svc := engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(probe), engine.WithChecks(c.Checks()...))
	r.svcs = append(r.svcs, svc)
	return svc, nil
}

// TestShrinkCancelRollsBack: cancelled in the middle of a candidate's run,
// shrink.Run returns the best schedule so far with the context's error, and
// that run, like every other, has lifted its faults.
func TestShrinkCancelRollsBack(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := &systems{cancelOn: 4, cancel: cancel}
	sc := pairScenario()
	sc.Actions[4].Action.Metadata = map[string]any{"duration": "10m"} // the partition outlives the run
	res, err := shrink.Run(ctx, shrink.Config{Scenario: sc, System: r.system})
	if !errors.Is(err, context.Canceled) || res == nil || res.Stopped != shrink.Cancelled {
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
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: pairScenario(), System: system, MaxRuns: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != shrink.OutOfRuns || res.Runs != 3+shrink.DefaultReplays || res.Rate.Failed != 10 {
		t.Errorf("stopped %s after %d runs, %s; want runs after 3 + 10 replays, failing", res.Stopped, res.Runs, res.Rate)
	}

	// A system that, from its fourth making on, hangs until the search's
	// time budget ends: the search stops there. The replays, outside the
	// budget (their context has no deadline), get systems again.
	var mu sync.Mutex
	made := 0
	slow := func(ctx context.Context, seed uint64) (*engine.Service, error) {
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
	res, err = shrink.Run(t.Context(), shrink.Config{Scenario: pairScenario(), System: slow, Budget: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != shrink.OutOfTime || res.Rate.Failed != 10 || len(res.Scenario.Actions) == 0 {
		t.Errorf("stopped %s, %s; want time, failing 10/10", res.Stopped, res.Rate)
	}
	if _, err := shrink.Run(t.Context(), shrink.Config{Scenario: pairScenario(), System: slow, Budget: time.Nanosecond}); !errors.Is(err, shrink.ErrOutOfTime) || !strings.Contains(err.Error(), "time budget spent") {
		t.Errorf("a budget spent before the first run: %v, want ErrOutOfTime", err)
	}
}

// TestShrinkBudgetFromStarted: the budget runs from Config.Started, so a
// caller that spent it replaying the original (CompleteSurvival) gets no
// run more: the original is a run like any other.
func TestShrinkBudgetFromStarted(t *testing.T) {
	made := 0
	system := plantedSystem(noPartitionHealing)
	counting := func(ctx context.Context, seed uint64) (*engine.Service, error) {
		made++
		return system(ctx, seed)
	}
	_, err := shrink.Run(t.Context(), shrink.Config{Scenario: pairScenario(), System: counting, Budget: time.Minute, Started: time.Now().Add(-time.Minute)})
	if !errors.Is(err, shrink.ErrOutOfTime) || made != 0 {
		t.Errorf("Run with its budget spent = %v after %d runs; want ErrOutOfTime and none", err, made)
	}
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: pairScenario(), System: counting, Budget: time.Minute, Started: time.Now()})
	if err != nil || res.Stopped != shrink.Done {
		t.Errorf("Run started now = %v; want done", err)
	}
}

func TestShrinkConfigErrors(t *testing.T) {
	sc := pairScenario()
	noSeed := pairScenario()
	noSeed.Config.Seed = 0
	system := plantedSystem()
	cases := []struct {
		cfg  shrink.Config
		want string
	}{
		{shrink.Config{System: system}, "shrink: scenario: missing"},
		{shrink.Config{Scenario: noSeed, System: system}, "shrink: scenario: config.seed: missing"},
		{shrink.Config{Scenario: sc}, "shrink: system: missing"},
		{shrink.Config{Scenario: sc, System: system, Runs: -1}, "shrink: runs: negative count -1"},
		{shrink.Config{Scenario: sc, System: system, Need: 2}, "shrink: need: 2 given without runs"},
		{shrink.Config{Scenario: sc, System: system, Runs: 3, Need: 4}, "shrink: need: 4 is more than runs 3"},
		{shrink.Config{Scenario: sc, System: system, Replays: -1}, "shrink: replays: negative count -1"},
		{shrink.Config{Scenario: sc, System: system, Runs: 1001}, "shrink: runs: 1001 is more than 1000"},
		{shrink.Config{Scenario: sc, System: system, Replays: 1001}, "shrink: replays: 1001 is more than 1000"},
		{shrink.Config{Scenario: sc, System: system, Budget: -time.Second}, "shrink: budget: negative duration -1s"},
		{shrink.Config{Scenario: sc, System: system, MaxRuns: -2}, "shrink: max_runs: negative count -2"},
	}
	for _, tc := range cases {
		if _, err := shrink.Run(t.Context(), tc.cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Shrink(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	bad := pairScenario()
	bad.Actions[0].Action.Type = "kill_everything"
	if _, err := shrink.Run(t.Context(), shrink.Config{Scenario: bad, System: system}); !errors.Is(err, scenario.ErrInvalid) {
		t.Errorf("an invalid scenario: %v, want ErrInvalidScenario", err)
	}
}

// TestShrinkNoFailure: a run that passes has nothing to shrink.
func TestShrinkNoFailure(t *testing.T) {
	sc := pairScenario()
	sc.Actions = sc.Actions[:4]
	_, err := shrink.Run(t.Context(), shrink.Config{Scenario: sc, System: plantedSystem(noPartitionHealing)})
	if !errors.Is(err, shrink.ErrNoFailure) || !strings.Contains(err.Error(), "fails 0/1 (need 1 of 1)") {
		t.Errorf("Shrink of a passing run = %v, want ErrNoFailure with its rate", err)
	}
}

// TestShrinkParallelScenario: a scenario played as a DAG becomes a
// sequence of its steps at the times they started, and shrinks from there.
func TestShrinkParallelScenario(t *testing.T) {
	sc, err := scenario.LoadFile("../scenarios/everything-at-once.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.Config.Seed = 4
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: sc, System: func(_ context.Context, seed uint64) (*engine.Service, error) {
		clk := clock.NewVirtual(time.Time{})
		c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(seed), fakes.WithoutResurrection())
		return engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
			engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...)), nil
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

// TestShrinkResolvesSelectors: a fault aimed by a draw (any, not:<t>, as
// the portable built-ins are) is retargeted at the agent it hit in the
// failing run, or at that agent's role (type:orchestrator), so the shrunk
// schedule names what failed, not a draw.
func TestShrinkResolvesSelectors(t *testing.T) {
	sc := pairScenario()
	sc.Actions[4].Action.TargetID = fault.SelectNot + "leader"
	sc.Actions[2].Action.TargetID = fault.SelectAny
	res, err := shrink.Run(t.Context(), shrink.Config{Scenario: sc, System: plantedSystem(noPartitionHealing)})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	_ = res.WriteText(&text)
	if got := stepTypes(res.Scenario); !slices.Equal(got, []fault.Type{fault.NetworkPartition, fault.KillLeader}) {
		t.Fatalf("shrunk to %v, want the partition and the kill:\n%s", got, text.String())
	}
	if a := res.Scenario.Actions[0].Action; a.TargetID == "" || a.TargetID == fault.SelectAny || strings.HasPrefix(a.TargetID, fault.SelectNot) {
		t.Errorf("the partition's target is %q, want the agent it hit or its role:\n%s", a.TargetID, text.String())
	}
}
