package arena_test

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkExecute is one Execute through the whole pipeline: fake cluster,
// event store, Prometheus metrics, evidence, flight and evolution bridges.
// The fault is a partition lifted at once (the lift is not timed), so
// every call lands. Beside
// BenchmarkInjectorBare, the ratio of the two is what the service adds:
//
//	go test -run '^$' -bench 'Execute$|InjectorBare' -benchmem -count 10 . | benchstat -
//
// (the target: at most 6×, at most 5 allocations).
func BenchmarkExecute(b *testing.B) {
	clock := arena.NewVirtualClock(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clock), fakes.WithWorkers(8))
	svc := arena.NewService(arena.NewInjector(c, c), events.NewMemoryStore(events.WithRetention(10_000)), fakes.NewEvidenceStore(),
		arena.WithClock(clock), arena.WithRegisterer(prometheus.NewRegistry()),
		arena.WithFlightRecorder(fakes.NewFlightRecorder()), arena.WithEvolution(fakes.NewEvolutionCoordinator()))
	ctx := context.Background()
	a := arena.Action{Type: arena.ActionNetworkPartition, TargetID: "worker-3"}
	b.ReportAllocs()
	for b.Loop() {
		res := svc.Execute(ctx, a)
		if !res.Success {
			b.Fatal(res.Error)
		}
		b.StopTimer()
		if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkInjectorBare lands the fault of BenchmarkExecute through the
// bare injector (Prepare and Inject): no ID, clock, stats, metrics, events,
// evidence or flight recorder.
func BenchmarkInjectorBare(b *testing.B) {
	clock := arena.NewVirtualClock(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clock), fakes.WithWorkers(8))
	inj := arena.NewInjector(c, c)
	ctx := context.Background()
	a := arena.Action{Type: arena.ActionNetworkPartition, TargetID: "worker-3"}
	b.ReportAllocs()
	for b.Loop() {
		prepared, params, err := inj.Prepare(ctx, a, nil)
		var lift arena.Lift
		if err == nil {
			lift, err = inj.Inject(ctx, prepared, params)
		}
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := lift(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkVirtualRun plays one simulated hour against a 10-agent fake
// cluster sampled every 100ms (36,001 samples) with a fault every 30s, and
// reports simulated seconds per wall second.
func BenchmarkVirtualRun(b *testing.B) {
	const hour = time.Hour
	kinds := []arena.Action{
		{Type: arena.ActionKillAgent, TargetID: "random"},
		{Type: arena.ActionNetworkPartition, TargetID: "type:worker", Metadata: map[string]any{"duration": "5s"}},
		{Type: arena.ActionLLMFailure, TargetID: "type:worker", Metadata: map[string]any{"duration": "5s"}},
		{Type: arena.ActionKillLeader},
	}
	var steps []arena.Step
	for t, i := 30*time.Second, 0; t < hour; t, i = t+30*time.Second, i+1 {
		steps = append(steps, arena.Step{At: t, Action: kinds[i%len(kinds)]})
	}
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		clock := arena.NewVirtualClock(time.Time{})
		c := fakes.NewCluster(fakes.WithClock(clock), fakes.WithWorkers(8))
		svc := arena.NewService(arena.NewInjector(c, c), events.NewMemoryStore(), nil,
			arena.WithClock(clock), arena.WithProbe(c.Probe), arena.WithChecks(c.Checks()...))
		rep, err := arena.RunSchedule(context.Background(), svc, arena.RunOptions{Seed: 1, Duration: hour}, steps...)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Samples != 36001 {
			b.Fatalf("samples = %d, want 36001", rep.Samples)
		}
	}
	b.ReportMetric(hour.Seconds()*float64(b.N)/time.Since(start).Seconds(), "sim-s/wall-s")
}
