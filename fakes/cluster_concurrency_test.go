package fakes

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/fault"
)

// TestConcurrentFaultsAndProbes is for -race: faults, probes, checks and
// inspection from many goroutines while the clock moves.
func TestConcurrentFaultsAndProbes(t *testing.T) {
	s := newClusterSim(t, WithWorkers(5))
	agents, _ := s.c.ListAgents(bgCtx)
	ids := make([]string, len(agents))
	for i, a := range agents {
		ids[i] = a.ID
	}
	var wg sync.WaitGroup
	var book liftBook
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for range 2000 {
			s.clock.Advance(probeStep)
		}
	})
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 0))
			for {
				select {
				case <-done:
					return
				default:
				}
				_ = randomFault(s.c, &book, r, ids)
				_ = book.lift(bgCtx, fault.PauseAgent, ids[r.IntN(len(ids))])
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				_ = s.c.Probe(bgCtx)
				for _, ch := range s.c.Checks() {
					_ = ch.Run(bgCtx)
				}
				_, _ = s.c.ListAgents(bgCtx)
				_, _ = s.c.ListEdges(bgCtx)
				_, _ = s.c.ListNodes(bgCtx)
				_, _ = s.c.Agent("worker-1")
				_ = s.c.Leader() + s.c.Orchestrator()
				_ = s.c.ErrorRate()
				ledgerBalances(t, s.c.Tasks())
			}
		})
	}
	wg.Wait()
	if got := s.elapsed(); got != 200*time.Second {
		t.Errorf("clock at %v, want 200s", got)
	}
}
