package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// benchFaults is how many partitions the Execute benchmarks land before
// they lift them all, untimed: one agent each, since a partitioned agent
// cannot be partitioned again. Stopping the timer for every lift would
// time the timer instead (testing reads the memory statistics at each
// stop and start: microseconds, more than an Execute).
const benchFaults = 64

// benchService is the pipeline of BenchmarkExecute: a fake cluster of
// benchFaults workers on a virtual clock, an event store, Prometheus
// metrics, evidence, flight and evolution bridges.
func benchService() (*engine.Service, *fakes.Cluster, []fault.Action) {
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithWorkers(benchFaults))
	svc := engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(events.WithRetention(10_000)), fakes.NewEvidenceStore(),
		engine.WithClock(clk), engine.WithRegisterer(prometheus.NewRegistry()),
		engine.WithFlightRecorder(fakes.NewFlightRecorder()), engine.WithEvolution(fakes.NewEvolutionCoordinator()))
	acts := make([]fault.Action, benchFaults)
	for i := range acts {
		acts[i] = fault.Action{Type: fault.NetworkPartition, TargetID: fmt.Sprintf("worker-%d", i+1)}
	}
	return svc, c, acts
}

// BenchmarkExecute is one Execute through the whole pipeline (benchService):
// a partition, lifted later and untimed (benchFaults), so every call lands
// and enters the active-fault registry. Beside BenchmarkInjectorBare, the
// ratio of the two is what the service adds; BenchmarkExecuteVsBare
// measures that ratio in one run:
//
//	go test -run '^$' -bench 'Execute$|InjectorBare|ExecuteVsBare' -benchmem -count 10 . | benchstat -
//
// (issue 27's target: at most 3x, at most 3 allocations).
func BenchmarkExecute(b *testing.B) {
	svc, _, acts := benchService()
	ctx := context.Background()
	ids := make([]string, len(acts))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := i % benchFaults
		res := svc.Execute(ctx, acts[k])
		if !res.Success {
			b.Fatal(res.Error)
		}
		ids[k] = res.Action.ID
		if k == benchFaults-1 {
			b.StopTimer()
			for _, id := range ids {
				if err := svc.LiftFault(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
	}
}

// BenchmarkInjectorBare lands the faults of BenchmarkExecute through the
// bare injector (Prepare and Inject): no ID, clock, stats, metrics, events,
// registry, evidence or flight recorder.
func BenchmarkInjectorBare(b *testing.B) {
	_, c, acts := benchService()
	inj := fault.NewInjector(c, c)
	ctx := context.Background()
	lifts := make([]fault.Lift, len(acts))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := i % benchFaults
		prepared, params, err := inj.Prepare(ctx, acts[k], nil)
		if err == nil {
			lifts[k], err = inj.Inject(ctx, prepared, params)
		}
		if err != nil {
			b.Fatal(err)
		}
		if k == benchFaults-1 {
			b.StopTimer()
			for _, lift := range lifts {
				if err := lift(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
	}
}

// BenchmarkExecuteVsBare times, in each iteration, benchFaults Executes
// and benchFaults bare landings (each batch lifted after, untimed) on
// clusters alike, so that the machine's speed is the same for both, and
// reports x-bare, the ratio of the two, with each one's ns per fault.
func BenchmarkExecuteVsBare(b *testing.B) {
	svc, _, acts := benchService()
	_, c, _ := benchService()
	inj := fault.NewInjector(c, c)
	ids := make([]string, len(acts))
	lifts := make([]fault.Lift, len(acts))
	var exec, bare time.Duration
	for b.Loop() {
		t, _ := executeBatch(b, svc, acts, ids)
		exec += t
		t, _ = injectBatch(b, inj, acts, lifts)
		bare += t
	}
	n := float64(b.N * benchFaults)
	b.ReportMetric(float64(exec)/float64(bare), "x-bare")
	b.ReportMetric(float64(exec.Nanoseconds())/n, "execute-ns")
	b.ReportMetric(float64(bare.Nanoseconds())/n, "bare-ns")
}

// executeBatch executes each action (timed), then lifts them.
func executeBatch(b *testing.B, svc *engine.Service, acts []fault.Action, ids []string) (timed, lifting time.Duration) {
	ctx := context.Background()
	start := time.Now()
	for i, a := range acts {
		res := svc.Execute(ctx, a)
		if !res.Success {
			b.Fatal(res.Error)
		}
		ids[i] = res.Action.ID
	}
	mid := time.Now()
	for _, id := range ids {
		if err := svc.LiftFault(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
	return mid.Sub(start), time.Since(mid)
}

// injectBatch is executeBatch through the bare injector (Prepare and
// Inject).
func injectBatch(b *testing.B, inj *fault.Injector, acts []fault.Action, lifts []fault.Lift) (timed, lifting time.Duration) {
	ctx := context.Background()
	start := time.Now()
	for i, a := range acts {
		prepared, params, err := inj.Prepare(ctx, a, nil)
		if err == nil {
			lifts[i], err = inj.Inject(ctx, prepared, params)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	mid := time.Now()
	for _, lift := range lifts {
		if err := lift(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return mid.Sub(start), time.Since(mid)
}

// BenchmarkVirtualRun plays one simulated hour against a 10-agent fake
// cluster sampled every 100ms (36,001 samples) with a fault every 30s, and
// reports simulated seconds per wall second.
func BenchmarkVirtualRun(b *testing.B) {
	const hour = time.Hour
	kinds := []fault.Action{
		{Type: fault.KillAgent, TargetID: "random"},
		{Type: fault.NetworkPartition, TargetID: "type:worker", Metadata: map[string]any{"duration": "5s"}},
		{Type: fault.LLMFailure, TargetID: "type:worker", Metadata: map[string]any{"duration": "5s"}},
		{Type: fault.KillLeader},
	}
	var steps []engine.Step
	for t, i := 30*time.Second, 0; t < hour; t, i = t+30*time.Second, i+1 {
		steps = append(steps, engine.Step{At: t, Action: kinds[i%len(kinds)]})
	}
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		clk := clock.NewVirtual(time.Time{})
		c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithWorkers(8))
		svc := engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
			engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...))
		rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 1, Duration: hour}, steps...)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Samples != 36001 {
			b.Fatalf("samples = %d, want 36001", rep.Samples)
		}
	}
	b.ReportMetric(hour.Seconds()*float64(b.N)/time.Since(start).Seconds(), "sim-s/wall-s")
}
