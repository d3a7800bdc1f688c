package engine

import (
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// A run's selectors share one locked generator: no allocation per action,
// and the draws are the run's seeded stream.
func TestRunRandShared(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, 0)
	svc := NewService(fault.NewInjector(stub, stub), nil, nil, WithClock(clk))
	r, err := svc.NewRun(RunOptions{Seed: 7, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := svc.NewRun(RunOptions{Seed: 7, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if a, b := r.Rand().Uint64(), svc.selectorRand(r2).Uint64(); a != b {
			t.Fatalf("draw %d: %d and %d from two runs of seed 7", i, a, b)
		}
	}
	if r.Rand() != svc.selectorRand(r) {
		t.Fatal("the run's Rand and its selectors' generator differ")
	}
	if n := testing.AllocsPerRun(100, func() { _ = svc.selectorRand(r).Uint64() }); n != 0 {
		t.Fatalf("selectorRand allocates %v times per action, want 0", n)
	}
}
