package events

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkAppend measures one single-event append. With subscribers, the
// stalled one fills its buffer and is dropped early on, as it would be in a
// run. The others read concurrently like a well-behaved client: when they
// lag they resubscribe from LastSequence, so they stay subscribed for the
// whole benchmark. lagged-subs counts every drop, delivered/op how many
// events the readers received per append.
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct {
		name          string
		subs, stalled int
	}{
		{"subscribers=0", 0, 0},
		{"subscribers=4/stalled=1", 4, 1},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			s := NewMemoryStore()
			var wg sync.WaitGroup
			var delivered atomic.Uint64
			for i := range bc.subs {
				sub, err := s.Subscribe(ctx, Filter{})
				if err != nil {
					b.Fatal(err)
				}
				if i < bc.stalled {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					follow(ctx, s, sub, &delivered)
				}()
			}
			evs := []Event{{Type: "arena.action.executed", Data: json.RawMessage(`{"action":"restart"}`)}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Append(ctx, "arena", evs, AnyVersion); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s.Close()
			wg.Wait()
			b.ReportMetric(float64(s.Stats().LaggedSubscribers), "lagged-subs")
			b.ReportMetric(float64(delivered.Load())/float64(b.N), "delivered/op")
		})
	}
}

// follow reads sub, resubscribing after each lag, until the store closes.
func follow(ctx context.Context, s *MemoryStore, sub *Subscription, delivered *atomic.Uint64) {
	for {
		n := uint64(0)
		for range sub.C() {
			n++
		}
		delivered.Add(n)
		if !errors.Is(sub.Err(), ErrLagged) {
			return
		}
		var err error
		if sub, err = s.Subscribe(ctx, Filter{FromSequence: sub.LastSequence()}); err != nil {
			return
		}
	}
}
