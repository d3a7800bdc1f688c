package scenario_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// recorder is a system for schedule tests: every fault lands on any agent
// ID (except "bad", which refuses it) and is recorded with its start and end
// time and the number of injections in flight when it started. With a cost,
// each injection takes that long (real time, or synctest's fake time), or
// until its context ends.
type recorder struct {
	clock clock.Clock
	cost  map[string]time.Duration // per target; "" for the default

	mu       sync.Mutex
	inflight int
	peak     int
	calls    []call
}

type call struct {
	target     string
	start, end time.Time
	inflight   int // including this one
}

func newRecorder(clk clock.Clock) *recorder {
	return &recorder{clock: clk, cost: map[string]time.Duration{}}
}

func (r *recorder) hit(ctx context.Context, id string) error {
	r.mu.Lock()
	r.inflight++
	r.peak = max(r.peak, r.inflight)
	c := call{target: id, start: r.clock.Now(), inflight: r.inflight}
	cost, ok := r.cost[id]
	if !ok {
		cost = r.cost[""]
	}
	r.mu.Unlock()
	var err error
	if cost > 0 {
		t := time.NewTimer(cost)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			err = ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inflight--
	c.end = r.clock.Now()
	r.calls = append(r.calls, c)
	if err == nil && id == "bad" {
		err = errors.New("recorder: bad target refuses every fault")
	}
	return err
}

// starts returns, per target, the offset of its first injection from t0.
func (r *recorder) starts(t0 time.Time) map[string]time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[string]time.Duration{}
	for _, c := range r.calls {
		if _, ok := m[c.target]; !ok {
			m[c.target] = c.start.Sub(t0)
		}
	}
	return m
}

func (r *recorder) order() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for _, c := range r.calls {
		ids = append(ids, c.target)
	}
	return ids
}

func (r *recorder) StopAgent(ctx context.Context, id string) error { return r.hit(ctx, id) }
func (r *recorder) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	return liftNothing(r.hit(ctx, id))
}
func (r *recorder) ResumeAgent(ctx context.Context, id string) error {
	return r.hit(ctx, id)
}
func (r *recorder) SlowAgent(ctx context.Context, id string, _ time.Duration) (fault.Lift, error) {
	return liftNothing(r.hit(ctx, id))
}
func (r *recorder) PartitionNetwork(ctx context.Context, id string) (fault.Lift, error) {
	return liftNothing(r.hit(ctx, id))
}
func (r *recorder) ToolTimeout(ctx context.Context, id string, _ time.Duration) (fault.Lift, error) {
	return liftNothing(r.hit(ctx, id))
}
func (r *recorder) CorruptMemory(ctx context.Context, id string) error { return r.hit(ctx, id) }
func (r *recorder) DisconnectMCP(ctx context.Context, id string) (fault.Lift, error) {
	return liftNothing(r.hit(ctx, id))
}
func (r *recorder) InjectLLMFailure(ctx context.Context, id string, _ fault.LLMErrorType) (fault.Lift, error) {
	return liftNothing(r.hit(ctx, id))
}

// liftNothing is the lift of a recorded fault that landed (err nil): there
// is nothing to undo.
func liftNothing(err error) (fault.Lift, error) {
	if err != nil {
		return nil, err
	}
	return func(context.Context) error { return nil }, nil
}
func (r *recorder) ListAgents(context.Context) ([]fault.AgentInfo, error) {
	agents := []fault.AgentInfo{
		{ID: "leader-0", Type: fault.TypeLeader, Status: fault.StatusRunning},
		{ID: "w1", Type: fault.TypeWorker, Status: fault.StatusRunning},
		{ID: "w2", Type: fault.TypeWorker, Status: fault.StatusRunning},
		{ID: "w3", Type: fault.TypeWorker, Status: fault.StatusRunning},
	}
	// The agents the steps hit by label (hit): a run resolves every
	// target against this list before it starts.
	for _, id := range recorderTargets {
		agents = append(agents, fault.AgentInfo{ID: id, Type: "target", Status: fault.StatusRunning})
	}
	return agents, nil
}

var recorderTargets = []string{"a", "b", "c", "d", "e", "f", "bad", "slow", "fast", "hang", "next", "long", "late",
	"after-slow", "after-long", "after-both", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"}

func (r *recorder) ListNodes(context.Context) ([]string, error) { return []string{"n1", "n2"}, nil }
func (r *recorder) ListEdges(context.Context) ([]fault.Edge, error) {
	return []fault.Edge{{Source: "n1", Target: "n2"}}, nil
}
func (r *recorder) RemoveNode(ctx context.Context, id string) error { return r.hit(ctx, id) }
func (r *recorder) RemoveEdge(ctx context.Context, src, dst string) error {
	return r.hit(ctx, src+"->"+dst)
}

var (
	_ fault.RuntimeProvider = (*recorder)(nil)
	_ fault.DAGProvider     = (*recorder)(nil)
)

// virtualRecorder returns a service over a recorder on a virtual clock, with
// no probe: the schedule alone drives the run.
func virtualRecorder(opts ...engine.Option) (*engine.Service, *recorder) {
	clk := clock.NewVirtual(time.Time{})
	rec := newRecorder(clk)
	return engine.NewService(fault.NewInjector(rec, rec), nil, nil, append([]engine.Option{engine.WithClock(clk)}, opts...)...), rec
}

// hit is a step that kills the agent named like its label.
func hit(label string, delay time.Duration, deps ...string) scenario.Step {
	return scenario.Step{Label: label, Delay: clock.Duration(delay), DependsOn: deps,
		Action: fault.Action{Type: fault.KillAgent, TargetID: label}}
}

func runScenario(t *testing.T, svc *engine.Service, sc *scenario.Scenario) *scenario.Report {
	t.Helper()
	rep, err := scenario.Run(context.Background(), svc, sc)
	if err != nil {
		t.Fatalf("RunScenarioReport(%q) error = %v", sc.Name, err)
	}
	return rep
}

// stepTimes returns each step's ready and start offsets as "ready/started".
func stepTimes(rep *scenario.Report) map[string]string {
	m := map[string]string{}
	for _, st := range rep.Steps {
		v := "-/-"
		if st.Ready != nil && st.Started != nil {
			v = st.Ready.String() + "/" + st.Started.String()
		} else if st.Ready != nil {
			v = st.Ready.String() + "/-"
		}
		m[st.Label] = v
	}
	return m
}

const sec = time.Second

func TestScheduleSequentialIsStrictlyOrdered(t *testing.T) {
	svc, rec := virtualRecorder()
	sc := &scenario.Scenario{Name: "seq", Config: scenario.Config{Warmup: clock.Duration(5 * sec), Cooldown: clock.Duration(4 * sec)},
		Actions: []scenario.Step{hit("a", 1*sec), hit("b", 2*sec), hit("c", 0), hit("d", 3*sec, "a")}}
	rep := runScenario(t, svc, sc)

	if diff := cmp.Diff([]string{"a", "b", "c", "d"}, rec.order()); diff != "" {
		t.Errorf("injection order (-want +got):\n%s", diff)
	}
	// Each step is ready when the one before it completed, and starts its
	// delay later; the first is ready at the end of the warmup.
	want := map[string]string{"a": "5s/6s", "b": "6s/8s", "c": "8s/8s", "d": "8s/11s"}
	if diff := cmp.Diff(want, stepTimes(rep)); diff != "" {
		t.Errorf("ready/started (-want +got):\n%s", diff)
	}
	if got, want := rep.End.Sub(rep.Start), 15*sec; got != want || sc.PlannedLength() != want {
		t.Errorf("run length = %s, planned %s, want %s (warmup 5s + delays 6s + cooldown 4s)", got, sc.PlannedLength(), want)
	}
	if rec.peak != 1 {
		t.Errorf("peak in flight = %d, want 1", rec.peak)
	}
	if !rep.OK() || rep.Outcome != scenario.OutcomeCompleted || rep.Passed != 4 {
		t.Errorf("verdict %s, outcome %s, passed %d; want passed, completed, 4\n%s", rep.Gate.Verdict, rep.Outcome, rep.Passed, rep)
	}
}

func TestScheduleDAGRespectsDependenciesAndDelayFromReadiness(t *testing.T) {
	svc, rec := virtualRecorder()
	sc := &scenario.Scenario{Name: "dag", Config: scenario.Config{ParallelActions: true, Warmup: clock.Duration(10 * sec)},
		Actions: []scenario.Step{
			hit("e", 1*sec, "c", "d"), // listed first: order comes from the DAG, not the list
			hit("a", 1*sec),
			hit("b", 2*sec),
			hit("c", 3*sec, "a", "b"),
			hit("d", 0, "a"),
		}}
	rep := runScenario(t, svc, sc)
	// a and b are ready at the warmup's end (10s); c when b, the later of
	// its dependencies, completes (12s), then 3s of delay; d at once after
	// a; e after c.
	want := map[string]string{"a": "10s/11s", "b": "10s/12s", "c": "12s/15s", "d": "11s/11s", "e": "15s/16s"}
	if diff := cmp.Diff(want, stepTimes(rep)); diff != "" {
		t.Errorf("ready/started (-want +got):\n%s", diff)
	}
	// Same instant (11s): a completes and then d, which it released, starts.
	if diff := cmp.Diff([]string{"a", "d", "b", "c", "e"}, rec.order()); diff != "" {
		t.Errorf("injection order (-want +got):\n%s", diff)
	}
	starts := rec.starts(rep.Start)
	for _, st := range sc.Actions {
		for _, dep := range st.DependsOn {
			if starts[st.Label] < starts[dep] {
				t.Errorf("%s started at %s, before its dependency %s at %s", st.Label, starts[st.Label], dep, starts[dep])
			}
		}
	}
	if got := rep.End.Sub(rep.Start); got != 16*sec || sc.PlannedLength() != 16*sec {
		t.Errorf("run length %s, planned %s, want 16s", got, sc.PlannedLength())
	}
}

func TestScheduleIndependentStepsStartTogether(t *testing.T) {
	for _, max := range []int{0, 2, 5} { // 0: the default, 3
		t.Run(fmt.Sprintf("max_concurrent=%d", max), func(t *testing.T) {
			svc, rec := virtualRecorder()
			sc := &scenario.Scenario{Name: "fan-out", Config: scenario.Config{ParallelActions: true, MaxConcurrent: max},
				Actions: []scenario.Step{hit("a", 2*sec), hit("b", 2*sec), hit("c", 2*sec), hit("d", 2*sec), hit("e", 2*sec), hit("f", 3*sec)}}
			rep := runScenario(t, svc, sc)
			want := map[string]time.Duration{"a": 2 * sec, "b": 2 * sec, "c": 2 * sec, "d": 2 * sec, "e": 2 * sec, "f": 3 * sec}
			if diff := cmp.Diff(want, rec.starts(rep.Start)); diff != "" {
				t.Errorf("start offsets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"a", "b", "c", "d", "e", "f"}, rec.order()); diff != "" {
				t.Errorf("order at one instant is list order (-want +got):\n%s", diff)
			}
			// In virtual time an injection takes no time: one at a time is
			// in flight, whatever the bound.
			if limit := max; rec.peak > 1 || (limit > 0 && rec.peak > limit) {
				t.Errorf("peak in flight = %d, want 1", rec.peak)
			}
		})
	}
}

// In real time injections take time and overlap: under synctest (fake time,
// real goroutines) every injection takes 1s, and the bound is what keeps
// more than max_concurrent from running at once.
func TestScheduleMaxConcurrentInRealTime(t *testing.T) {
	for _, max := range []int{1, 2, 3, 4} {
		t.Run(fmt.Sprintf("max_concurrent=%d", max), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := newRecorder(clock.Real{})
				rec.cost[""] = sec
				svc := engine.NewService(fault.NewInjector(rec, rec), nil, nil)
				var steps []scenario.Step
				for i := range 8 {
					steps = append(steps, hit(fmt.Sprintf("s%d", i), 0))
				}
				sc := &scenario.Scenario{Name: "bounded", Config: scenario.Config{ParallelActions: true, MaxConcurrent: max,
					Warmup: clock.Duration(sec), Timeout: clock.Duration(time.Minute)}, Actions: steps}
				rep := runScenario(t, svc, sc)
				if rec.peak != max {
					t.Errorf("peak in flight = %d, want exactly %d", rec.peak, max)
				}
				for _, c := range rec.calls {
					if c.inflight > max {
						t.Errorf("%s started with %d in flight, above %d", c.target, c.inflight, max)
					}
				}
				// Waves of max, one second each, from the warmup's end.
				for i, st := range rep.Steps {
					want := sec + time.Duration(i/max)*sec
					if st.Started == nil || st.Started.D() != want {
						t.Errorf("%s started at %v, want %s", st.Label, st.Started, want)
					}
				}
				if want := sec + time.Duration((8+max-1)/max)*sec; rep.End.Sub(rep.Start) != want {
					t.Errorf("run length %s, want %s", rep.End.Sub(rep.Start), want)
				}
			})
		})
	}
}

// A dependency completes when its injection returns: in real time that is
// after the provider call, and the delay counts from there.
func TestScheduleDelayFromCompletionInRealTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(clock.Real{})
		rec.cost[""], rec.cost["slow"] = sec, 3*sec
		svc := engine.NewService(fault.NewInjector(rec, rec), nil, nil)
		sc := &scenario.Scenario{Name: "dag", Config: scenario.Config{ParallelActions: true, Timeout: clock.Duration(time.Minute)},
			Actions: []scenario.Step{hit("slow", sec), hit("fast", sec), hit("after-slow", 2*sec, "slow"), hit("after-both", 0, "slow", "fast")}}
		rep := runScenario(t, svc, sc)
		// slow takes 3s, the others 1s: slow completes at 4s, fast at 2s.
		want := map[string]string{"slow": "0s/1s", "fast": "0s/1s", "after-slow": "4s/6s", "after-both": "4s/4s"}
		if diff := cmp.Diff(want, stepTimes(rep)); diff != "" {
			t.Errorf("ready/started (-want +got):\n%s", diff)
		}
		if rec.peak != 2 {
			t.Errorf("peak in flight = %d, want 2 (slow and fast overlap)", rec.peak)
		}
	})
}

func TestScheduleSequentialInRealTimeWaitsForEachInjection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(clock.Real{})
		rec.cost[""] = 2 * sec
		svc := engine.NewService(fault.NewInjector(rec, rec), nil, nil)
		sc := &scenario.Scenario{Name: "seq", Config: scenario.Config{Timeout: clock.Duration(time.Minute)},
			Actions: []scenario.Step{hit("a", sec), hit("b", sec), hit("c", 0)}}
		rep := runScenario(t, svc, sc)
		want := map[string]string{"a": "0s/1s", "b": "3s/4s", "c": "6s/6s"}
		if diff := cmp.Diff(want, stepTimes(rep)); diff != "" {
			t.Errorf("ready/started (-want +got):\n%s", diff)
		}
		if rec.peak != 1 {
			t.Errorf("peak in flight = %d, want 1", rec.peak)
		}
		if got := rep.End.Sub(rep.Start); got != 8*sec {
			t.Errorf("run length %s, want 8s (the last injection ends at 8s)", got)
		}
	})
}

func TestScheduleStopOnErrorSkipsWhatHadNotStarted(t *testing.T) {
	t.Run("sequential", func(t *testing.T) {
		svc, rec := virtualRecorder()
		sc := &scenario.Scenario{Name: "stop", Config: scenario.Config{StopOnError: true},
			Actions: []scenario.Step{hit("a", sec), hit("bad", sec), hit("c", sec), hit("d", sec)}}
		rep := runScenario(t, svc, sc)
		if diff := cmp.Diff([]string{"a", "bad"}, rec.order()); diff != "" {
			t.Errorf("injections (-want +got):\n%s", diff)
		}
		got := statuses(rep)
		want := []string{"passed", "failed: expected the fault to land: recorder: bad target refuses every fault",
			"skipped: stop_on_error: actions[1] (bad) failed", "skipped: stop_on_error: actions[1] (bad) failed"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("steps (-want +got):\n%s", diff)
		}
		if rep.Passed != 1 || rep.Failed != 1 || rep.Skipped != 2 || rep.Outcome != scenario.OutcomeStopped || rep.Gate.Verdict != scenario.GateFailed {
			t.Errorf("counts %d/%d/%d, outcome %s, verdict %s; want 1/1/2, stopped, failed", rep.Passed, rep.Failed, rep.Skipped, rep.Outcome, rep.Gate.Verdict)
		}
		wantReasons := []string{
			"actions[1] (bad): expected the fault to land: recorder: bad target refuses every fault",
			"2 steps skipped: stop_on_error: actions[1] (bad) failed",
		}
		if diff := cmp.Diff(wantReasons, rep.Gate.Reasons); diff != "" {
			t.Errorf("gate reasons (-want +got):\n%s", diff)
		}
	})
	t.Run("parallel: in flight finishes, the rest is skipped", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rec := newRecorder(clock.Real{})
			rec.cost["long"] = 5 * sec
			svc := engine.NewService(fault.NewInjector(rec, rec), nil, nil)
			sc := &scenario.Scenario{Name: "stop", Config: scenario.Config{StopOnError: true, ParallelActions: true, Timeout: clock.Duration(time.Minute)},
				Actions: []scenario.Step{hit("long", 0), hit("bad", sec), hit("after-long", 0, "long"), hit("late", 3*sec)}}
			rep := runScenario(t, svc, sc)
			want := []string{"passed", "failed: expected the fault to land: recorder: bad target refuses every fault",
				"skipped: stop_on_error: actions[1] (bad) failed", "skipped: stop_on_error: actions[1] (bad) failed"}
			if diff := cmp.Diff(want, statuses(rep)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if got := rep.End.Sub(rep.Start); got != 5*sec {
				t.Errorf("run length %s, want 5s: the run waits for the injection in flight", got)
			}
		})
	})
	t.Run("without stop_on_error dependents of a failed step still run", func(t *testing.T) {
		svc, rec := virtualRecorder()
		sc := &scenario.Scenario{Name: "go-on", Config: scenario.Config{ParallelActions: true},
			Actions: []scenario.Step{hit("bad", sec), hit("next", sec, "bad")}}
		rep := runScenario(t, svc, sc)
		if diff := cmp.Diff([]string{"bad", "next"}, rec.order()); diff != "" {
			t.Errorf("injections (-want +got):\n%s", diff)
		}
		if rep.Failed != 1 || rep.Passed != 1 || rep.Outcome != scenario.OutcomeCompleted {
			t.Errorf("failed %d passed %d outcome %s, want 1, 1, completed", rep.Failed, rep.Passed, rep.Outcome)
		}
	})
}

func statuses(rep *scenario.Report) []string {
	var out []string
	for _, st := range rep.Steps {
		v := string(st.Status)
		if st.Reason != "" {
			v += ": " + st.Reason
		}
		out = append(out, v)
	}
	return out
}

func TestScheduleExpectations(t *testing.T) {
	svc, _ := virtualRecorder()
	step := func(target string, success, failure bool) scenario.Step {
		st := hit(target, sec)
		st.Label, st.ExpectSuccess, st.ExpectFailure = "", success, failure
		return st
	}
	sc := &scenario.Scenario{Name: "expect", Actions: []scenario.Step{
		step("w1", false, false),  // default: must land
		step("w1", true, false),   // explicit
		step("bad", false, true),  // refused, as expected
		step("w2", false, true),   // landed, but a refusal was expected
		step("bad", false, false), // refused, but it should land
	}}
	rep := runScenario(t, svc, sc)
	want := []string{"passed", "passed", "passed",
		"failed: expected the fault to be refused, it landed on w2",
		"failed: expected the fault to land: recorder: bad target refuses every fault"}
	if diff := cmp.Diff(want, statuses(rep)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if got := []scenario.StepExpect{rep.Steps[0].Expect, rep.Steps[2].Expect}; got[0] != scenario.ExpectSuccess || got[1] != scenario.ExpectFailure {
		t.Errorf("expect = %v, want [success failure]", got)
	}
	// A refused fault is an injection error of the run, not a scored fault.
	if rep.Report.Landed != 3 || rep.Report.InjectionErrorCount != 2 {
		t.Errorf("landed %d, injection errors %d; want 3, 2", rep.Report.Landed, rep.Report.InjectionErrorCount)
	}
}

// The probe cancels the context at a given virtual instant; cancellation is
// honoured during the warmup, a delay and the cooldown.
func TestScheduleCancellation(t *testing.T) {
	tests := []struct {
		at       time.Duration
		injected []string
		skipped  int
	}{
		{at: 3 * sec, skipped: 3},                          // warmup (5s)
		{at: 7 * sec, injected: []string{"a"}, skipped: 2}, // delay of b (a at 6s, b at 10s)
		{at: 14 * sec, injected: []string{"a", "b", "c"}},  // cooldown (11s–21s)
	}
	for _, tt := range tests {
		t.Run(tt.at.String(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			clk := clock.NewVirtual(time.Time{})
			rec := newRecorder(clk)
			probe := func(context.Context) error {
				if clk.Now().Sub(clock.VirtualEpoch()) >= tt.at {
					cancel()
				}
				return nil
			}
			svc := engine.NewService(fault.NewInjector(rec, rec), nil, nil, engine.WithClock(clk), engine.WithProbe(probe))
			sc := &scenario.Scenario{Name: "cancel", Config: scenario.Config{Warmup: clock.Duration(5 * sec), Cooldown: clock.Duration(10 * sec)},
				Actions: []scenario.Step{hit("a", sec), hit("b", 4*sec), hit("c", sec)}}
			rep, err := scenario.Run(ctx, svc, sc)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("RunScenarioReport() error = %v, want context.Canceled", err)
			}
			if rep == nil {
				t.Fatal("no partial report")
			}
			if diff := cmp.Diff(tt.injected, rec.order()); diff != "" {
				t.Errorf("injections (-want +got):\n%s", diff)
			}
			if rep.Skipped != tt.skipped || rep.Outcome != scenario.OutcomeCancelled || rep.Gate.Verdict != scenario.GateInconclusive {
				t.Errorf("skipped %d, outcome %s, verdict %s; want %d, cancelled, inconclusive", rep.Skipped, rep.Outcome, rep.Gate.Verdict, tt.skipped)
			}
			if got := rep.End.Sub(rep.Start); got != tt.at {
				t.Errorf("run ended at %s, want %s (the first sample at or after the cancel)", got, tt.at)
			}
			for _, st := range rep.Steps {
				if st.Status == scenario.StepSkipped && st.Reason != "cancelled: context canceled" {
					t.Errorf("skipped step %s reason %q", st.Label, st.Reason)
				}
			}
		})
	}
}

func TestScheduleTimeout(t *testing.T) {
	t.Run("steps not started by the timeout are skipped", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rec := newRecorder(clock.Real{})
			rec.cost["slow"] = 10 * sec
			svc := engine.NewService(fault.NewInjector(rec, rec), nil, nil)
			sc := &scenario.Scenario{Name: "late", Config: scenario.Config{Timeout: clock.Duration(12 * sec)},
				Actions: []scenario.Step{hit("slow", sec), hit("b", 2*sec)}}
			rep := runScenario(t, svc, sc)
			want := []string{"passed", "skipped: not started by the end of the run (12s)"}
			if diff := cmp.Diff(want, statuses(rep)); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if rep.Outcome != scenario.OutcomeTimedOut || rep.Gate.Verdict != scenario.GateFailed {
				t.Errorf("outcome %s, verdict %s; want timed_out, failed", rep.Outcome, rep.Gate.Verdict)
			}
			if !slicesContain(rep.Gate.Reasons, "timed out after 12s") {
				t.Errorf("reasons %q lack the timeout", rep.Gate.Reasons)
			}
		})
	})
	t.Run("a hung injection is cancelled after the grace period", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rec := newRecorder(clock.Real{})
			rec.cost["hang"] = time.Hour
			svc := engine.NewService(fault.NewInjector(rec, rec), nil, nil)
			sc := &scenario.Scenario{Name: "hang", Config: scenario.Config{Timeout: clock.Duration(10 * sec)},
				Actions: []scenario.Step{hit("hang", sec)}}
			start := time.Now()
			rep := runScenario(t, svc, sc)
			if took := time.Since(start); took != 15*sec {
				t.Errorf("run took %s, want 15s (timeout 10s + 5s grace)", took)
			}
			// The scenario's deadline and the executor's own grace (both end
			// + 5s) cancel the call at the same instant; either may win.
			if rep.Outcome != scenario.OutcomeTimedOut || rep.Steps[0].Status != scenario.StepFailed ||
				!strings.Contains(rep.Steps[0].Reason, "context deadline exceeded") && !strings.Contains(rep.Steps[0].Reason, "context canceled") {
				t.Errorf("outcome %s, step %s %q; want timed_out and a failed step", rep.Outcome, rep.Steps[0].Status, rep.Steps[0].Reason)
			}
		})
	})
}

func slicesContain(list []string, sub string) bool {
	for _, sec := range list {
		if strings.Contains(sec, sub) {
			return true
		}
	}
	return false
}

func TestRunScenarioReportNeedsItsProviders(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	rec := newRecorder(clk)
	svc := engine.NewService(fault.NewInjector(rec, nil), nil, nil, engine.WithClock(clk))
	sc := &scenario.Scenario{Name: "dag", Actions: []scenario.Step{{Action: fault.Action{Type: fault.RemoveNode, TargetID: "n1"}}}}
	_, err := scenario.Run(context.Background(), svc, sc)
	if !errors.Is(err, fault.ErrNoDAG) || err.Error() != `scenario "dag": actions[0]: remove_node: no DAG provider` {
		t.Errorf("RunScenarioReport() error = %v, want ErrNoDAG naming the step", err)
	}
	_, err = scenario.Run(context.Background(), svc, &scenario.Scenario{})
	if !errors.Is(err, scenario.ErrInvalid) {
		t.Errorf("RunScenarioReport(invalid) error = %v, want ErrInvalidScenario", err)
	}
}
