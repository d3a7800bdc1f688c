package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
)

// daySamples is what a day of survival samples at the default 100ms probe
// interval: both ends included.
const daySamples = 864_001

// BenchmarkSurvivalDayWorkers: 24 h of survival (interval 10s, probes every
// 100ms) against fake clusters of 3 and 1,000 workers. The cost per worker
// per simulated day is the difference of the two sec/op over 997.
//
//	go test -run='^$' -bench=SurvivalDayWorkers -benchtime=1x -count=6 . | benchstat -
func BenchmarkSurvivalDayWorkers(b *testing.B) {
	for _, n := range []int{3, 1000} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				survivalDay(b, n)
			}
		})
	}
}

func survivalDay(b *testing.B, workers int) {
	e := newRig(fakes.WithWorkers(workers))
	rep, err := e.svc.RunSurvival(context.Background(), engine.SurvivalConfig{Duration: 24 * time.Hour, Seed: 1})
	if err != nil || rep.Samples != daySamples {
		b.Fatalf("err %v, samples %d", err, rep.Samples)
	}
}

// BenchmarkSurvivalFloor is the physical floor of a virtual day: the
// cheapest sample there is (advance the virtual clock 100ms, probe a quiet
// 3-worker fake cluster) 864,001 times, so sec/op is a day's worth and
// reads beside BenchmarkSurvivalDayWorkers/workers=3.
func BenchmarkSurvivalFloor(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		floorDay(b)
	}
}

func floorDay(b *testing.B) {
	ctx := context.Background()
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithWorkers(3))
	for range daySamples {
		clk.Advance(engine.DefaultProbeInterval)
		if err := c.Probe(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSurvivalVsFloor runs, in each iteration, the floor's day, a
// day of survival at 3 workers and one at 1,000, back to back, so that the
// machine's speed, which drifts minute to minute, is the same for all three;
// it reports the ratios: x-floor (3 workers over the floor) and x-3workers
// (1,000 workers over 3).
//
//	go test -run='^$' -bench=SurvivalVsFloor -benchtime=5x -count=6 . | benchstat -
func BenchmarkSurvivalVsFloor(b *testing.B) {
	var floor, three, thousand time.Duration
	lap := func(d *time.Duration, f func()) {
		t := time.Now()
		f()
		*d += time.Since(t)
	}
	for b.Loop() {
		lap(&floor, func() { floorDay(b) })
		lap(&three, func() { survivalDay(b, 3) })
		lap(&thousand, func() { survivalDay(b, 1000) })
	}
	b.ReportMetric(three.Seconds()/floor.Seconds(), "x-floor")
	b.ReportMetric(thousand.Seconds()/three.Seconds(), "x-3workers")
	b.ReportMetric(floor.Seconds()/float64(b.N), "floor-s/day")
	b.ReportMetric(three.Seconds()/float64(b.N), "3workers-s/day")
}
