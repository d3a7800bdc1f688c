package containers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/arenahttp"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// The fault lifecycle of issue 13 on real containers: every liftable fault
// type, one per worker, lifted at its duration from each entry point
// (TestLiftAtDurationOnContainers) and rolled back on each early exit
// (TestRollbackOnExitOnContainers). One runtime per test function, reused
// by its sub-cases. Partition healing is off, and agentd does not reconnect
// its MCP session on its own, so that what is observed is arena's lift.

// lifeProbeInterval is the runs' probe interval: "±1 probe interval".
const lifeProbeInterval = 100 * time.Millisecond

// dockerSlack bounds the Docker or agentd call that carries out a lift (an
// unpause, a docker network connect, a docker update, a DELETE /faults)
// plus this test's polling, on a loaded CI machine: a lift observed later
// than its planned time + one probe interval + dockerSlack fails.
const dockerSlack = 2 * time.Second

// lifeCase is one liftable fault type, on its own worker.
type lifeCase struct {
	typ    fault.Type
	target string
	meta   map[string]any
	route  string // arenahttp's action route
}

var lifeCases = []lifeCase{
	{fault.PauseAgent, "worker-1", nil, "pause"},
	{fault.SlowAgent, "worker-2", map[string]any{"delay": "2s"}, "slow"},
	{fault.NetworkPartition, "worker-3", nil, "partition"},
	{fault.ToolTimeout, "worker-4", map[string]any{"timeout": "5s"}, "tool-timeout"},
	{fault.MCPDisconnect, "worker-5", nil, "mcp-disconnect"},
	{fault.LLMFailure, "worker-6", map[string]any{"error_type": "overloaded"}, "llm-failure"},
}

func (c lifeCase) action(d string) fault.Action {
	m := map[string]any{"duration": d}
	for k, v := range c.meta {
		m[k] = v
	}
	return fault.Action{Type: c.typ, TargetID: c.target, Metadata: m}
}

// lifeRuntime starts the reference agents with six workers, partition
// healing off and MCP reconnection off, and records each worker's CPU
// limits before any fault.
type lifeRuntime struct {
	rt   *containers.Runtime
	cpus map[string]float64 // each worker's CPU limit before any fault
}

// cpuLimit is the CPU limit docker inspect shows, in CPUs (0: none).
// Docker cannot set a quota back to 0 (an update's 0 means "unchanged"), so
// a restored "no limit" reads CpuQuota -1 with CpuPeriod 100000: no limit
// all the same.
func cpuLimit(hc *container.HostConfig) float64 {
	switch {
	case hc.NanoCPUs > 0:
		return float64(hc.NanoCPUs) / 1e9
	case hc.CPUQuota > 0 && hc.CPUPeriod > 0:
		return float64(hc.CPUQuota) / float64(hc.CPUPeriod)
	case hc.CPUQuota > 0:
		return float64(hc.CPUQuota) / 100_000 // Docker's default period
	}
	return 0
}

func newLifeRuntime(t *testing.T) *lifeRuntime {
	rt := containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(len(lifeCases)),
		containers.WithPartitionHealing(0), containers.WithReferenceEnv(map[string]string{"AGENTD_MCP_RECONNECT": "0"}))
	lr := &lifeRuntime{rt: rt, cpus: map[string]float64{}}
	for _, c := range lifeCases {
		hc := inspect(t, rt, c.target).HostConfig
		lr.cpus[c.target] = cpuLimit(hc)
		t.Logf("%s before any fault: CpuQuota %d, CpuPeriod %d, NanoCpus %d", c.target, hc.CPUQuota, hc.CPUPeriod, hc.NanoCPUs)
	}
	waitHealthy(t, rt, 30*time.Second)
	return lr
}

// faulted says whether c's fault is in place on its agent now, as docker
// inspect (pause, slow, partition) or agentd's fault-control state (the
// agent-level faults) shows it.
func (lr *lifeRuntime) faulted(ctx context.Context, c lifeCase) (bool, error) {
	switch c.typ {
	case fault.PauseAgent, fault.SlowAgent, fault.NetworkPartition:
		a, _ := lr.rt.Agent(c.target)
		res, err := lr.rt.Docker().ContainerInspect(ctx, a.ContainerID(), client.ContainerInspectOptions{})
		if err != nil {
			return false, err
		}
		in := res.Container
		switch c.typ {
		case fault.PauseAgent:
			return in.State.Paused, nil
		case fault.SlowAgent:
			return cpuLimit(in.HostConfig) != lr.cpus[c.target], nil
		default:
			return in.NetworkSettings.Networks[lr.rt.Network()] == nil, nil
		}
	}
	st, err := lr.rt.State(ctx, c.target)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(st.Faults, func(f agentapi.ActiveFault) bool { return f.Kind == string(c.typ) }), nil
}

// noneFaulted fails unless every case's fault is gone: docker inspect shows
// the containers unpaused, connected and with their CPU limits restored,
// agentd no agent-level fault, and the service no active fault.
func (lr *lifeRuntime) noneFaulted(t *testing.T, svc *engine.Service) {
	t.Helper()
	for _, c := range lifeCases {
		on, err := lr.faulted(context.Background(), c)
		if err != nil {
			t.Errorf("%s on %s: %v", c.typ, c.target, err)
		} else if on {
			t.Errorf("%s still in place on %s", c.typ, c.target)
		}
	}
	if svc != nil {
		if active := svc.ActiveFaults(); len(active) != 0 {
			t.Errorf("ActiveFaults() = %+v", active)
		}
	}
}

// watch follows c's fault on its agent: it waits for the fault to be in
// place, then for it to be gone, and says when it was last seen in place
// and first seen gone.
type watch struct {
	c            lifeCase
	on, gone     time.Time // last seen in place, first seen gone
	err          string
	sawInPlace   bool
	sawGoneFirst bool
}

func (lr *lifeRuntime) watchAll(ctx context.Context) (wait func() []*watch) {
	ws := make([]*watch, len(lifeCases))
	var wg sync.WaitGroup
	for i, c := range lifeCases {
		w := &watch{c: c}
		ws[i] = w
		wg.Go(func() {
			for ctx.Err() == nil {
				on, err := lr.faulted(ctx, c)
				now := time.Now()
				switch {
				case err != nil:
					w.err = err.Error()
				case on:
					w.sawInPlace, w.on = true, now
				case w.sawInPlace:
					w.gone = now
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	return func() []*watch { wg.Wait(); return ws }
}

// liftedOnTime fails unless w saw its fault in place, then gone within
// [planned - 1 probe interval, planned + 1 probe interval + dockerSlack],
// and logs the delay.
func liftedOnTime(t *testing.T, w *watch, planned time.Time) time.Duration {
	t.Helper()
	if !w.sawInPlace || w.gone.IsZero() {
		t.Errorf("%s on %s: in place %v, gone %v (last error %q)", w.c.typ, w.c.target, w.sawInPlace, !w.gone.IsZero(), w.err)
		return 0
	}
	delay := w.gone.Sub(planned)
	t.Logf("%-17s on %s: lifted %+6dms from its planned time (last seen in place %+6dms)", w.c.typ, w.c.target,
		delay.Milliseconds(), w.on.Sub(planned).Milliseconds())
	if delay < -lifeProbeInterval || delay > lifeProbeInterval+dockerSlack {
		t.Errorf("%s on %s: lifted %s from its planned time, want within [-%s, +%s]", w.c.typ, w.c.target, delay, lifeProbeInterval, lifeProbeInterval+dockerSlack)
	}
	return delay
}

// plannedLifts returns each active fault's planned lift time by target.
func plannedLifts(t *testing.T, svc *engine.Service) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	for _, f := range svc.ActiveFaults() {
		if f.LiftAt == nil {
			t.Fatalf("active fault %+v has no planned lift", f)
		}
		out[f.TargetID] = *f.LiftAt
	}
	if len(out) != len(lifeCases) {
		t.Fatalf("active faults by target = %v, want the %d cases", out, len(lifeCases))
	}
	return out
}

// TestLiftAtDurationOnContainers: each liftable fault type, injected
// through Service.Execute, through arenahttp's action route, in a scenario
// and in survival, is lifted at its duration (docker inspect and agentd's
// fault state are polled every 20ms).
func TestLiftAtDurationOnContainers(t *testing.T) {
	lr := newLifeRuntime(t)
	const d = 3 * time.Second
	t.Run("execute", func(t *testing.T) {
		svc := service(lr.rt)
		ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
		defer cancel()
		wait := lr.watchAll(ctx)
		for _, c := range lifeCases {
			execute(t, svc, c.action(d.String()))
		}
		planned := plannedLifts(t, svc)
		for _, w := range wait() {
			liftedOnTime(t, w, planned[w.c.target])
		}
		lr.noneFaulted(t, svc)
	})
	waitHealthy(t, lr.rt, 30*time.Second)
	t.Run("http", func(t *testing.T) {
		svc := service(lr.rt)
		srv := httptest.NewServer(arenahttp.NewHandler(svc))
		defer srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
		defer cancel()
		wait := lr.watchAll(ctx)
		for _, c := range lifeCases {
			meta := map[string]any{"duration": d.String()}
			for k, v := range c.meta {
				meta[k] = v
			}
			body, _ := json.Marshal(map[string]any{"metadata": meta})
			resp, err := http.Post(srv.URL+"/arena/agent/"+c.target+"/"+c.route, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			var res fault.Result
			json.NewDecoder(resp.Body).Decode(&res)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !res.Success {
				t.Fatalf("POST %s on %s: %d %+v", c.route, c.target, resp.StatusCode, res)
			}
		}
		planned := plannedLifts(t, svc)
		for _, w := range wait() {
			liftedOnTime(t, w, planned[w.c.target])
		}
		lr.noneFaulted(t, svc)
	})
	waitHealthy(t, lr.rt, 30*time.Second)
	t.Run("scenario", func(t *testing.T) {
		svc := service(lr.rt)
		sc := &scenario.Scenario{Name: "timed-on-containers", Config: scenario.Config{Seed: 1, Cooldown: clock.Duration(6 * time.Second),
			ProbeInterval: clock.Duration(lifeProbeInterval), AllowUnhealthyStart: true}}
		for _, c := range lifeCases {
			sc.Actions = append(sc.Actions, scenario.Step{Action: c.action(d.String())})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		wait := lr.watchAll(ctx)
		rep, err := scenario.Run(ctx, svc, sc)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Report.Landed != len(lifeCases) {
			t.Fatalf("%d faults landed, want %d: %+v", rep.Report.Landed, len(lifeCases), rep.Report.InjectionErrors)
		}
		planned := map[string]time.Time{}
		for _, f := range rep.Report.Faults {
			planned[f.Action.TargetID] = rep.Start.Add(f.At.D() + d)
			if f.Lifted == nil || f.LiftError != "" {
				t.Errorf("%s on %s: lifted %v (%s)", f.Action.Type, f.Action.TargetID, f.Lifted, f.LiftError)
			}
		}
		for _, w := range wait() {
			liftedOnTime(t, w, planned[w.c.target])
		}
		if len(rep.Report.Rollback) != 0 {
			t.Errorf("rollback = %+v, want every fault lifted at its duration", rep.Report.Rollback)
		}
		lr.noneFaulted(t, svc)
	})
	waitHealthy(t, lr.rt, 30*time.Second)
	t.Run("survival", func(t *testing.T) {
		svc := service(lr.rt)
		mix := map[fault.Type]float64{}
		for _, c := range lifeCases {
			mix[c.typ] = 1
		}
		rep, err := svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 15 * time.Second, Interval: time.Second, Seed: 7, Mix: mix,
			MaxActiveFaults: 6, MinLifetime: time.Second, MaxLifetime: 2 * time.Second, Targets: engine.TargetFilter{Types: []string{"worker"}},
			AllowUnhealthyStart: true, Observe: engine.ObserveOptions{ProbeInterval: lifeProbeInterval}})
		if err != nil {
			t.Fatal(err)
		}
		faults := map[string]engine.FaultOutcome{}
		for _, f := range rep.Faults {
			faults[f.Action.ID] = f
		}
		seen := map[fault.Type]int{}
		var worst time.Duration
		deferred := 0
		for _, ev := range rep.Events {
			if !ev.Success {
				continue
			}
			f, ok := faults[ev.ActionID]
			if !ok {
				t.Fatalf("no fault in the report for landed %s", ev.ActionID)
			}
			if f.Lifted == nil { // still in place at the end: rolled back, below
				continue
			}
			// An agent-level fault of an agent paused or partitioned since
			// is lifted when the runtime resumes or reconnects it; the end
			// state below shows it was.
			if strings.Contains(f.LiftError, "when the runtime reconnects or resumes it") {
				deferred++
				f.LiftError = ""
			}
			delay := f.Lifted.D() - (ev.At.D() + ev.Lifetime.D())
			worst = max(worst, delay)
			if delay < -lifeProbeInterval || delay > lifeProbeInterval+dockerSlack || f.LiftError != "" {
				t.Errorf("%s %s on %s landed at %s for %s: lifted at %s (%s)", ev.ActionID, ev.Type, ev.TargetID, ev.At, ev.Lifetime, f.Lifted, f.LiftError)
			}
			seen[ev.Type]++
		}
		t.Logf("lifted at their lifetime: %v (%d deferred to a resume); latest %dms after it; rolled back at the end: %d", seen, deferred, worst.Milliseconds(), len(rep.Rollback))
		if len(seen) < 4 {
			t.Errorf("types lifted at their lifetime = %v, want at least 4 of the %d", seen, len(lifeCases))
		}
		for _, rb := range rep.Rollback {
			if rb.Outcome != engine.RollbackLifted {
				t.Errorf("rollback of %s %s: %s %s", rb.Type, rb.TargetID, rb.Outcome, rb.Detail)
			}
		}
		lr.noneFaulted(t, svc)
	})
}

// recorder is an arenatest.TB whose FailNow ends the goroutine running the
// test body, as testing.T's does, and whose cleanups run after it.
type recorder struct {
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) FailNow()            { runtime.Goexit() }
func (r *recorder) Name() string        { return "TestFatalOnContainers" }
func (r *recorder) Cleanup(fn func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, fn)
}

// run runs body as a test would, then the cleanups, last first.
func (r *recorder) run(body func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		body()
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// forTenMinutes is a scenario landing every case's fault for ten minutes,
// then a long cooldown.
func forTenMinutes(name string) *scenario.Scenario {
	sc := &scenario.Scenario{Name: name, Config: scenario.Config{Seed: 1, Cooldown: clock.Duration(20 * time.Minute),
		ProbeInterval: clock.Duration(lifeProbeInterval), AllowUnhealthyStart: true}}
	for _, c := range lifeCases {
		sc.Actions = append(sc.Actions, scenario.Step{Action: c.action("10m")})
	}
	return sc
}

// allLiftedAtEnd fails unless rb lists the n faults, each lifted at the end.
func allLiftedAtEnd(t *testing.T, rb []engine.FaultRollback, n int) {
	t.Helper()
	if len(rb) != n {
		t.Errorf("rollback = %+v, want %d faults", rb, n)
	}
	for _, f := range rb {
		if f.Outcome != engine.RollbackLifted {
			t.Errorf("rollback of %s %s: %s %s", f.Type, f.TargetID, f.Outcome, f.Detail)
		}
	}
}

// TestRollbackOnExitOnContainers: faults landed for ten minutes are lifted
// when their run is stopped (Run.Stop, StopSurvival), times out (the
// caller's deadline: a scenario's config.timeout cannot be shorter than its
// planned length), or when a test using arenatest ends by t.Fatal (the
// cancelled scenario is TestRollbackAfterCancelledRun). The runs start
// injecting even if the system is not healthy at once
// (AllowUnhealthyStart): the containers probe's 100ms bound, under load,
// must not abort a run whose point is its rollback.
func TestRollbackOnExitOnContainers(t *testing.T) {
	lr := newLifeRuntime(t)
	n := len(lifeCases)
	t.Run("run stopped", func(t *testing.T) {
		svc := service(lr.rt)
		r, err := svc.NewRun(engine.RunOptions{Seed: 1, Duration: time.Hour, Observe: engine.ObserveOptions{ProbeInterval: lifeProbeInterval}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range lifeCases {
			r.Schedule(engine.Step{Action: c.action("10m")})
		}
		r.At(8*time.Second, engine.KindPhase, func(context.Context) {
			if got := len(svc.ActiveFaults()); got != n {
				t.Errorf("%d active faults when stopping, want %d", got, n)
			}
			r.Stop()
		})
		rep, err := r.Play(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.End.Sub(rep.Start); got > time.Minute {
			t.Errorf("run ended after %s, want it stopped at 8s", got)
		}
		allLiftedAtEnd(t, rep.Rollback, n)
		lr.noneFaulted(t, svc)
	})
	waitHealthy(t, lr.rt, 30*time.Second)
	t.Run("timed out", func(t *testing.T) {
		svc := service(lr.rt)
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		rep, err := scenario.Run(ctx, svc, forTenMinutes("caller-deadline"))
		if !errors.Is(err, context.DeadlineExceeded) || rep == nil {
			t.Fatalf("run = %v, want the caller's deadline", err)
		}
		if rep.Report.Landed != n {
			t.Fatalf("%d faults landed, want %d: %+v", rep.Report.Landed, n, rep.Report.InjectionErrors)
		}
		allLiftedAtEnd(t, rep.Report.Rollback, n)
		lr.noneFaulted(t, svc)
	})
	waitHealthy(t, lr.rt, 30*time.Second)
	t.Run("survival stopped", func(t *testing.T) {
		svc := service(lr.rt)
		mix := map[fault.Type]float64{}
		for _, c := range lifeCases {
			mix[c.typ] = 1
		}
		stopped := make(chan *engine.SurvivalReport, 1)
		go func() {
			deadline := time.Now().Add(time.Minute)
			for len(svc.ActiveFaults()) < 3 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			rep, _ := svc.StopSurvival()
			stopped <- rep
		}()
		rep, err := svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: time.Hour, Interval: time.Second, Seed: 7, Mix: mix,
			MaxActiveFaults: 6, MinLifetime: 9 * time.Minute, MaxLifetime: 10 * time.Minute, Targets: engine.TargetFilter{Types: []string{"worker"}},
			AllowUnhealthyStart: true, Observe: engine.ObserveOptions{ProbeInterval: lifeProbeInterval}})
		if err != nil {
			t.Fatal(err)
		}
		if got := <-stopped; got != rep {
			t.Error("StopSurvival returned another report")
		}
		if rep.Ending != engine.SurvivalStopped {
			t.Errorf("ending %q, want stopped", rep.Ending)
		}
		if len(rep.Rollback) < 3 {
			t.Errorf("rollback = %+v, want at least the 3 faults in place at the stop", rep.Rollback)
		}
		allLiftedAtEnd(t, rep.Rollback, len(rep.Rollback))
		lr.noneFaulted(t, svc)
	})
	waitHealthy(t, lr.rt, 30*time.Second)
	t.Run("t.Fatal", func(t *testing.T) {
		rec := &recorder{}
		var inPlace []string
		rec.run(func() {
			var once sync.Once
			arenatest.Run(rec, forTenMinutes("fatal-on-containers"), arenatest.WithRuntime(lr.rt),
				arenatest.WithProbe(func(ctx context.Context) error {
					err := lr.rt.Probe(ctx)
					all := true
					for _, c := range lifeCases {
						on, ferr := lr.faulted(ctx, c)
						all = all && on && ferr == nil
					}
					if all {
						once.Do(func() {
							for _, c := range lifeCases {
								inPlace = append(inPlace, string(c.typ))
							}
						})
						rec.Errorf("fatal with every fault in place")
						rec.FailNow()
					}
					return err
				}))
			rec.Errorf("arenatest.Run returned after FailNow")
		})
		if len(inPlace) != n {
			t.Fatalf("the probe never saw the %d faults in place; test errors: %s", n, strings.Join(rec.errors, "; "))
		}
		if len(rec.errors) != 1 || rec.errors[0] != "fatal with every fault in place" {
			t.Errorf("test errors = %q, want only the fatal", rec.errors)
		}
		lr.noneFaulted(t, nil)
	})
}
