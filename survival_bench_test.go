package arena_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/fakes"
)

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
				e := newEngine(fakes.WithWorkers(n))
				rep, err := e.svc.RunSurvival(context.Background(), arena.SurvivalConfig{Duration: 24 * time.Hour, Seed: 1})
				if err != nil || rep.Samples != 864_001 {
					b.Fatalf("err %v, samples %d", err, rep.Samples)
				}
			}
		})
	}
}
