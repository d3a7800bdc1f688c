package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

func survive(t *testing.T, e *rig, cfg engine.SurvivalConfig) *engine.SurvivalReport {
	t.Helper()
	rep, err := e.svc.RunSurvival(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func survivalJSON(t *testing.T, seed uint64) []byte {
	e := newRig(fakes.WithSeed(seed))
	rep := survive(t, e, engine.SurvivalConfig{Duration: 2 * time.Hour, Seed: seed})
	rep.WallTime = 0
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSurvivalIsReproducible(t *testing.T) {
	a, b := survivalJSON(t, 11), survivalJSON(t, 11)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different survival reports")
	}
	var rep engine.SurvivalReport
	if err := json.Unmarshal(a, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Actions < 100 || len(rep.ByType) < 8 || rep.Seed != 11 || rep.Config.Seed != 11 {
		t.Errorf("2h at 10s: %d actions over %d types, seed %d; want ≥100 over ≥8 types, seed 11", rep.Actions, len(rep.ByType), rep.Seed)
	}
	if c := survivalJSON(t, 12); bytes.Equal(a, c) {
		t.Error("seeds 11 and 12 gave the same report")
	}
}

func TestSurvivalDrawsAndReportsASeed(t *testing.T) {
	rep := survive(t, newRig(), engine.SurvivalConfig{Duration: time.Minute})
	if rep.Seed == 0 || rep.Config.Seed != rep.Seed {
		t.Errorf("seed = %d, config seed %d; want a drawn, reported seed", rep.Seed, rep.Config.Seed)
	}
}

// TestSurvivalTargetsFromState pins each state rule with a mix that would
// break it if targets were drawn blindly: every injection must land.
func TestSurvivalTargetsFromState(t *testing.T) {
	hour := time.Hour
	cases := []struct {
		name    string
		opts    []fakes.Option
		cfg     engine.SurvivalConfig
		actions int // -1: any
		check   func(t *testing.T, rep *engine.SurvivalReport)
	}{
		{"resume only paused agents: none paused", nil,
			engine.SurvivalConfig{Mix: map[fault.Type]float64{fault.ResumeAgent: 1}}, 0, nil},
		{"pause and resume", []fakes.Option{fakes.WithWorkers(5)},
			engine.SurvivalConfig{Mix: map[fault.Type]float64{fault.PauseAgent: 1, fault.ResumeAgent: 3}, MaxActiveFaults: 100}, -1,
			func(t *testing.T, rep *engine.SurvivalReport) {
				if rep.ByType[fault.ResumeAgent].Landed == 0 {
					t.Error("no resume landed")
				}
			}},
		{"no kills of dead agents", []fakes.Option{fakes.WithoutResurrection()},
			engine.SurvivalConfig{Mix: map[fault.Type]float64{fault.KillAgent: 1}, MaxActiveFaults: 100}, 5, nil},
		{"no empty DAG targets", []fakes.Option{fakes.WithoutDAGRepair()},
			engine.SurvivalConfig{Mix: map[fault.Type]float64{fault.RemoveNode: 1}, MaxActiveFaults: 100}, 5, nil},
		{"type filter", nil,
			engine.SurvivalConfig{Targets: engine.TargetFilter{Types: []string{"worker"}}, MaxActiveFaults: 100,
				Mix: map[fault.Type]float64{fault.NetworkPartition: 1, fault.KillLeader: 1}}, -1,
			func(t *testing.T, rep *engine.SurvivalReport) {
				for _, ev := range rep.Events {
					if ev.Type == fault.KillLeader || ev.TargetID[:7] != "worker-" {
						t.Fatalf("event %+v hits a non-worker", ev)
					}
				}
			}},
		{"exclude", nil,
			engine.SurvivalConfig{Targets: engine.TargetFilter{Exclude: []string{"worker-1", "worker-2", "leader-0", "orchestrator-0"}},
				Mix: map[fault.Type]float64{fault.LLMFailure: 1}, MaxActiveFaults: 100}, -1,
			func(t *testing.T, rep *engine.SurvivalReport) {
				for _, ev := range rep.Events {
					if ev.TargetID != "worker-3" {
						t.Fatalf("event %+v hits an excluded agent", ev)
					}
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Duration, tc.cfg.Interval, tc.cfg.Seed = hour, 5*time.Second, 3
			rep := survive(t, newRig(tc.opts...), tc.cfg)
			if rep.InjectionErrorCount != 0 {
				t.Errorf("injection errors: %+v", rep.InjectionErrors)
			}
			if tc.actions >= 0 && rep.Actions != tc.actions {
				t.Errorf("actions = %d, want %d", rep.Actions, tc.actions)
			}
			if rep.Actions+rep.Skipped != rep.Ticks || rep.Ticks != 719 {
				t.Errorf("ticks %d = actions %d + skipped %d? want 719 ticks", rep.Ticks, rep.Actions, rep.Skipped)
			}
			if tc.check != nil {
				tc.check(t, rep)
			}
		})
	}
}

// TestSurvivalMixWeights: over a long run the types come out in proportion
// to their weights (Pearson's chi-square, 2 degrees of freedom, p > 0.001).
func TestSurvivalMixWeights(t *testing.T) {
	mix := map[fault.Type]float64{fault.SlowAgent: 1, fault.LLMFailure: 2, fault.ToolTimeout: 3}
	rep := survive(t, newRig(), engine.SurvivalConfig{Duration: 4 * time.Hour, Interval: time.Second,
		Seed: 5, Mix: mix, MaxActiveFaults: 1000})
	n := float64(rep.Actions)
	chi := 0.0
	for typ, w := range mix {
		want := n * w / 6
		got := float64(rep.ByType[typ].Attempted)
		chi += (got - want) * (got - want) / want
	}
	if rep.Actions != rep.Ticks || chi > 13.82 {
		t.Errorf("actions %d of %d ticks, chi² = %.2f (counts %+v); want every tick used and chi² ≤ 13.82", rep.Actions, rep.Ticks, chi, rep.ByType)
	}
}

// TestSurvivalMaxActiveFaults checks the bound at every probe sample: the
// probe runs after the injections of its instant (same-instant rule).
func TestSurvivalMaxActiveFaults(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithWorkers(6))
	var svc *engine.Service
	var worst atomic.Int64
	probe := func(ctx context.Context) error {
		if a := int64(svc.SurvivalStatus().Active); a > worst.Load() {
			worst.Store(a)
		}
		return c.Probe(ctx)
	}
	svc = engine.NewService(fault.NewInjector(c, c), nil, nil, engine.WithClock(clk), engine.WithProbe(probe), engine.WithChecks(c.Checks()...))
	rep, err := svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 3 * time.Hour,
		Interval: time.Second, Seed: 9, MaxActiveFaults: 2})
	if err != nil {
		t.Fatal(err)
	}
	if worst.Load() != 2 || rep.Skipped == 0 {
		t.Errorf("most active faults = %d, skipped ticks %d; want exactly the bound 2 and some ticks skipped", worst.Load(), rep.Skipped)
	}
}

func TestSurvivalConfigErrors(t *testing.T) {
	svc := engine.NewService(fault.NewInjector(fakes.NewCluster(), nil), nil, nil) // no DAG
	for _, tc := range []struct {
		cfg  engine.SurvivalConfig
		want string
	}{
		{engine.SurvivalConfig{Duration: -1}, "survival: duration: negative duration -1ns (want 0 to 720h)"},
		{engine.SurvivalConfig{Duration: engine.MaxSurvivalDuration + 1}, "survival: duration: 720h0m0.000000001s is out of range (want 0 to 720h)"},
		{engine.SurvivalConfig{Duration: engine.MaxSurvivalDuration, Interval: 25 * time.Millisecond}, "survival: interval: 25ms makes 103680000 ticks in 720h (want at most 100000000: a longer interval)"},
		{engine.SurvivalConfig{MaxLifetime: 25 * time.Hour}, "survival: max_lifetime: 25h is out of range (want 0 to 24h)"},
		{engine.SurvivalConfig{TimelineCap: engine.MaxListCap + 1}, "survival: timeline_cap: 1000001 is out of range (want 1 to 1000000)"},
		{engine.SurvivalConfig{Mix: map[fault.Type]float64{fault.KillAgent: 1e300}}, "survival: mix.kill_agent: weight 1e+300 is out of range (want 0 to 1e+06)"},
		{engine.SurvivalConfig{Interval: time.Hour, Duration: time.Minute}, "survival: interval: 1h0m0s is not shorter than the duration 1m0s"},
		{engine.SurvivalConfig{Mix: map[fault.Type]float64{"kill_evrything": 1}}, `survival: mix.kill_evrything: unknown action type (want one of kill_leader`},
		{engine.SurvivalConfig{Mix: map[fault.Type]float64{fault.KillAgent: -1}}, "survival: mix.kill_agent: weight -1 is out of range (want 0 to 1e+06)"},
		{engine.SurvivalConfig{Mix: map[fault.Type]float64{fault.KillAgent: 0}}, "survival: mix: every weight is zero"},
		{engine.SurvivalConfig{Mix: map[fault.Type]float64{fault.RemoveEdge: 1}}, "survival: mix.remove_edge: no DAG provider"},
		{engine.SurvivalConfig{MinLifetime: time.Minute, MaxLifetime: time.Second}, "survival: min_lifetime: 1m0s is longer than max_lifetime 1s"},
		{engine.SurvivalConfig{MaxActiveFaults: -2}, "survival: max_active_faults: -2 is out of range (want 1 to 10000)"},
		{engine.SurvivalConfig{Interval: time.Microsecond}, "survival: interval: 1µs is below the minimum 1ms"},
		{engine.SurvivalConfig{Duration: time.Hour, Observe: engine.ObserveOptions{ProbeInterval: time.Nanosecond}}, "survival: probe_interval: 1ns is out of range (want 1ms to 1h)"},
	} {
		_, err := svc.RunSurvival(context.Background(), tc.cfg)
		if err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
			t.Errorf("RunSurvival(%+v) = %v, want %q…", tc.cfg, err, tc.want)
		}
	}
}

// TestSurvivalShortRunDefaultsItsInterval: a duration under the default
// interval gets an interval of half of it, not an error about a knob the
// user never set; and a huge tick count is never queued up front.
func TestSurvivalShortRunDefaultsItsInterval(t *testing.T) {
	rep := survive(t, newRig(), engine.SurvivalConfig{Duration: 5 * time.Second, Seed: 1})
	if rep.Config.Interval != 2500*time.Millisecond || rep.Ticks != 1 {
		t.Errorf("interval %s, ticks %d; want 2.5s and 1", rep.Config.Interval, rep.Ticks)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	longest := engine.SurvivalConfig{Duration: engine.MaxSurvivalDuration, Interval: engine.MaxSurvivalDuration / engine.MaxSurvivalTicks, Seed: 1}
	_, err := newRig().svc.RunSurvival(ctx, longest)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, context.Canceled) || after.TotalAlloc-before.TotalAlloc > 50<<20 {
		t.Errorf("cancelled 1e8-tick run: err %v, allocated %d MB; want context.Canceled and little memory", err, (after.TotalAlloc-before.TotalAlloc)>>20)
	}
}

// TestSurvivalRoleFilter: kill_leader hits whoever Prepare resolves; when
// the filters exclude that holder, survival does not choose the type.
func TestSurvivalRoleFilter(t *testing.T) {
	rep := survive(t, newRig(), engine.SurvivalConfig{Duration: time.Hour, Seed: 2, MaxActiveFaults: 100,
		Mix:     map[fault.Type]float64{fault.KillLeader: 1, fault.LLMFailure: 1},
		Targets: engine.TargetFilter{Exclude: []string{"leader-0"}}})
	for _, ev := range rep.Events {
		if ev.TargetID == "leader-0" {
			t.Fatalf("event %+v hits the excluded leader-0", ev)
		}
	}
	if n := rep.ByType[fault.KillLeader].Attempted; n != 0 || rep.ByType[fault.LLMFailure].Attempted != rep.Actions || rep.Skipped != 0 {
		t.Errorf("kill_leader attempted %d times, by type %+v; want none (its holder is excluded) and every tick an llm_failure", n, rep.ByType)
	}
}

func TestParseMix(t *testing.T) {
	got, err := engine.ParseMix("kill_agent=2, llm_failure=0.5,slow_agent")
	if err != nil || len(got) != 3 || got[fault.KillAgent] != 2 || got[fault.LLMFailure] != 0.5 || got[fault.SlowAgent] != 1 {
		t.Errorf("ParseMix = %v, %v", got, err)
	}
	for in, want := range map[string]string{
		"kill_agnet=1":              `mix: unknown action type "kill_agnet"`,
		"kill_agent=x":              `mix.kill_agent: weight "x" is not a number from 0 to 1e+06`,
		"kill_agent=1,kill_agent=2": "mix.kill_agent: given twice",
		"":                          "mix: empty",
	} {
		if _, err := engine.ParseMix(in); err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("ParseMix(%q) = %v, want %q…", in, err, want)
		}
	}
}

// TestSurvivalStopAndCancel runs in real time inside a synctest bubble: Stop
// and cancel end the run at once (well within one interval), with a report,
// and a second start while running fails.
func TestSurvivalStopAndCancel(t *testing.T) {
	for _, how := range []string{"stop", "cancel"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := fakes.NewCluster()
				svc := engine.NewService(fault.NewInjector(c, c), nil, nil, engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				type result struct {
					rep *engine.SurvivalReport
					err error
				}
				done := make(chan result, 1)
				start := time.Now()
				go func() {
					rep, err := svc.RunSurvival(ctx, engine.SurvivalConfig{Duration: time.Hour, Interval: 10 * time.Second, Seed: 4})
					done <- result{rep, err}
				}()
				time.Sleep(35 * time.Second)
				st := svc.SurvivalStatus()
				if !st.Running || st.Actions != 3 || math.Abs(st.Progress-35.0/3600) > 1e-9 || st.Elapsed.D() != 35*time.Second {
					t.Errorf("status = %+v, want running, 3 actions, 35s elapsed", st)
				}
				if _, err := svc.RunSurvival(ctx, engine.SurvivalConfig{Seed: 1}); !errors.Is(err, engine.ErrSurvivalRunning) {
					t.Errorf("second start = %v, want ErrSurvivalRunning", err)
				}
				var rep *engine.SurvivalReport
				if how == "stop" {
					var err error
					rep, err = svc.StopSurvival()
					if err != nil || !rep.Stopped {
						t.Fatalf("StopSurvival = %v, stopped %v", err, rep != nil && rep.Stopped)
					}
					if r := <-done; r.rep != rep || r.err != nil {
						t.Errorf("RunSurvival returned %v, %v; want the same report as Stop", r.rep, r.err)
					}
				} else {
					cancel()
					r := <-done
					if !errors.Is(r.err, context.Canceled) || r.rep == nil {
						t.Fatalf("cancelled RunSurvival = %v, %v; want the report and context.Canceled", r.rep, r.err)
					}
					rep = r.rep
				}
				if d := time.Since(start); d != 35*time.Second {
					t.Errorf("run ended after %s, want at once (35s)", d)
				}
				if rep.End.Sub(rep.Start) != 35*time.Second || rep.Actions != 3 {
					t.Errorf("report covers %s with %d actions, want 35s and 3", rep.End.Sub(rep.Start), rep.Actions)
				}
				if st := svc.SurvivalStatus(); st.Running {
					t.Error("still running after the end")
				}
				if _, err := svc.StopSurvival(); !errors.Is(err, engine.ErrNoSurvival) {
					t.Errorf("StopSurvival with none running = %v, want ErrNoSurvival", err)
				}
			})
		})
	}
}

// BenchmarkSurvivalDay: 24 h of survival against a 10-agent fake cluster,
// interval 10s, probes every 100ms; reports simulated seconds per wall second.
func BenchmarkSurvivalDay(b *testing.B) {
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		e := newRig(fakes.WithWorkers(8))
		rep, err := e.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 24 * time.Hour, Seed: 1})
		if err != nil || rep.Samples != 864_001 {
			b.Fatalf("err %v, samples %d", err, rep.Samples)
		}
	}
	b.ReportMetric(86400*float64(b.N)/time.Since(start).Seconds(), "sim-s/wall-s")
}

// Six hours of seeded random chaos against the fake cluster, on a virtual
// clock: a fraction of a second of CPU, and the same report for the same
// seed.
func ExampleService_RunSurvival() {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(7))
	svc := engine.NewService(fault.NewInjector(cluster, cluster), nil, nil,
		engine.WithClock(clk), engine.WithProbe(cluster.Probe), engine.WithChecks(cluster.Checks()...))
	rep, err := svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 6 * time.Hour, Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d actions in %s of virtual time, grade %s\n", rep.Actions, rep.End.Sub(rep.Start), rep.Score.Grade)
	// Output: 2159 actions in 6h0m0s of virtual time, grade A+
}

// BenchmarkSurvivalWeek: 7 days of virtual survival at a 1s interval
// (604,800 actions, 6 million probe samples). It reports bytes and
// allocations per simulated hour, and the live heap after a GC at the end of
// days 1, 3, 6 and 7: a flat heap keeps them close.
func BenchmarkSurvivalWeek(b *testing.B) {
	const week = 7 * 24 * time.Hour
	for b.Loop() {
		e := newRig(fakes.WithWorkers(8))
		heapAt := map[int]uint64{}
		stop := make(chan struct{})
		polled := make(chan struct{})
		go func() { // sample the heap as the run crosses each day
			defer close(polled)
			for day := 1; day <= 6; {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if st := e.svc.SurvivalStatus(); st.Running && st.Elapsed.D() >= time.Duration(day)*24*time.Hour {
					runtime.GC()
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					heapAt[day] = ms.HeapAlloc
					day++
				}
			}
		}()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep, err := e.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: week, Interval: time.Second,
			Seed: 1, MaxActiveFaults: 1000})
		runtime.ReadMemStats(&after)
		close(stop)
		<-polled
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var end runtime.MemStats
		runtime.ReadMemStats(&end) // day 7: the run's end, with the report and the cluster alive
		heapAt[7] = end.HeapAlloc
		runtime.KeepAlive(e)
		hours := week.Hours()
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/hours, "B/sim-hour")
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/hours, "allocs/sim-hour")
		b.ReportMetric(float64(heapAt[1])/1e6, "heap-day1-MB")
		b.ReportMetric(float64(heapAt[3])/1e6, "heap-day3-MB")
		b.ReportMetric(float64(heapAt[6])/1e6, "heap-day6-MB")
		b.ReportMetric(float64(heapAt[7])/1e6, "heap-day7-MB")
		b.ReportMetric(float64(rep.Actions), "actions")
	}
}

func TestSurvivalConfigJSON(t *testing.T) {
	cfg := engine.SurvivalConfig{Duration: 24 * time.Hour, Interval: 1500 * time.Millisecond, Seed: 3,
		Mix: map[fault.Type]float64{fault.KillAgent: 2}, MinLifetime: time.Second, MaxLifetime: 5 * time.Second}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The durations come first: they shadow the config's own fields.
	want := `{"duration":"24h0m0s","interval":"1.5s","min_lifetime":"1s","max_lifetime":"5s","seed":3,"mix":{"kill_agent":2},"max_active_faults":0,"targets":{},"timeline_cap":0}`
	if string(b) != want {
		t.Errorf("Marshal = %s\nwant      %s", b, want)
	}
	// Documents written before (fields in the struct's order) read back the same.
	var back engine.SurvivalConfig
	old := `{"duration":"24h0m0s","interval":"1.5s","seed":3,"mix":{"kill_agent":2},"max_active_faults":0,"min_lifetime":"1s","max_lifetime":"5s","targets":{},"timeline_cap":0}`
	if err := json.Unmarshal([]byte(old), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cfg, back, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Unmarshal(Marshal(cfg)) (-want +got):\n%s", diff)
	}
	// Left-out fields are zero (their defaults); Observe, not in JSON, is kept.
	back = engine.SurvivalConfig{Seed: 9, TimelineCap: 5, Observe: engine.ObserveOptions{ListCap: 7}}
	if err := json.Unmarshal([]byte(`{"duration": 60, "interval": "2s", "mix": {"kill_agent": 2}}`), &back); err != nil {
		t.Fatal(err)
	}
	if back.Duration != time.Minute || back.Interval != 2*time.Second || back.Mix[fault.KillAgent] != 2 ||
		back.Seed != 0 || back.TimelineCap != 0 || back.Observe.ListCap != 7 {
		t.Errorf("Unmarshal = %+v", back)
	}
	if err := json.Unmarshal([]byte(`{"durration": "1h"}`), &back); err == nil || err.Error() != `json: unknown field "durration"` {
		t.Errorf("Unmarshal of a misspelt field = %v", err)
	}
}

// Issue 14: the report's per-fault list honours timeline_cap.
func TestSurvivalTimelineCapBoundsTheFaultList(t *testing.T) {
	rep := survive(t, newRig(fakes.WithSeed(3)), engine.SurvivalConfig{Duration: 2 * time.Hour, Seed: 3, TimelineCap: 5})
	if rep.Landed <= 5 || len(rep.Faults) != 5 || len(rep.Events) != 5 {
		t.Errorf("timeline_cap 5: %d landed, %d faults listed, %d events; want more than 5 landed, 5 of each listed", rep.Landed, len(rep.Faults), len(rep.Events))
	}
}

// A field of the wrong type is named by its JSON path: errors said
// "survivalFields.seed" before issue 26.
func TestSurvivalConfigTypeErrorsNameTheField(t *testing.T) {
	for body, field := range map[string]string{
		`{"seed":"x"}`:                   "seed",
		`{"targets":{"types":[1]}}`:      "targets.types",
		`{"mix":{"kill_agent":"heavy"}}`: "mix",
	} {
		var c engine.SurvivalConfig
		err := json.Unmarshal([]byte(body), &c)
		var typ *json.UnmarshalTypeError
		if !errors.As(err, &typ) || typ.Field != field || strings.Contains(err.Error(), "survivalFields") {
			t.Errorf("Unmarshal(%s) = %v, want a type error naming %q", body, err, field)
		}
	}
}
