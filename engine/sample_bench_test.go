package engine

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
)

// BenchmarkVirtualSampleHour: an hour of samples (36,001) of a probe that
// does nothing, on a virtual executor: the engine's own cost per sample
// (clock, queue, probe watchdog, observer), with no fault open.
func BenchmarkVirtualSampleHour(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ex := newVirtualExecutor(clock.NewVirtual(time.Time{}))
		o := newObserver(ex, func(context.Context) error { return nil }, nil, ObserveOptions{})
		end := ex.Now().Add(time.Hour)
		o.Start(end)
		if err := ex.Run(context.Background(), end); err != nil {
			b.Fatal(err)
		}
	}
}
