package arenahttp

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// BenchmarkExecute measures Service.Execute with no event stream open, with
// a client reading the stream, and with a client that never reads (its
// socket fills, the store drops it, the handler cuts it off). A stalled
// client must not slow Execute: the store never waits for a subscriber.
//
//	go test -run='^$' -bench=BenchmarkExecute -benchtime=100000x ./arenahttp/
func BenchmarkExecute(b *testing.B) {
	for _, tc := range []struct {
		name   string
		client func(b *testing.B, s *system) func()
	}{
		{"no-stream", func(*testing.B, *system) func() { return func() {} }},
		{"reading-stream", func(b *testing.B, s *system) func() {
			c := dialStream(b, s, nil)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for {
					if _, err := c.r.Next(); err != nil {
						return
					}
				}
			}()
			return func() { c.close(); <-done }
		}},
		{"stalled-stream", func(b *testing.B, s *system) func() {
			conn := stallStream(b, s.srv.Listener.Addr().String())
			waitFor(b, "the stream to open", func() bool { return s.h.streams.Load() == 1 })
			return func() { conn.Close() }
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := newSystem(b, systemConfig{clock: clock.NewVirtual(time.Time{}), handlerOpts: []Option{WithWriteTimeout(time.Second)}})
			stop := tc.client(b, s)
			defer stop()
			ctx := context.Background()
			pause := fault.Action{Type: fault.PauseAgent, TargetID: "worker-1"}
			resume := fault.Action{Type: fault.ResumeAgent, TargetID: "worker-1"}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				a := pause
				if i%2 == 1 {
					a = resume
				}
				if res := s.svc.Execute(ctx, a); !res.Success {
					b.Fatal(res.Error)
				}
			}
			b.ReportMetric(float64(s.store.Stats().LaggedSubscribers+s.h.hub.dropped.Load()), "dropped")
		})
	}
}
