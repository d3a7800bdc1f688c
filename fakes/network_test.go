package fakes

import (
	"errors"
	"testing"
	"time"

	"github.com/ares-arena/arena/fault"
)

// linkOf returns what the network faults add to, and when they reset, an
// attempt on worker starting now.
func linkOf(s *clusterSim, worker string) (time.Duration, time.Duration) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.c.advance()
	p := s.c.link(s.c.index[worker])
	return p.Exchange(taskPayload), p.ResetAt
}

func TestNetworkLatency(t *testing.T) {
	t.Run("below the election timeout: attempts slower, cluster healthy", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.InjectLatency(bgCtx, "worker-1", fault.Latency{Latency: 800 * time.Millisecond}))
		if extra, reset := linkOf(s, "worker-1"); extra != 800*time.Millisecond || reset >= 0 {
			t.Errorf("link(worker-1) = %v, %v, want 800ms, no reset", extra, reset)
		}
		if extra, _ := linkOf(s, "worker-2"); extra != 0 {
			t.Errorf("link(worker-2) = %v, want 0: the fault is on worker-1's links", extra)
		}
		wantTimeline(t, s, 20*time.Second, []probeChange{{0, ""}})
		if st := s.c.Tasks(); st.Failed != 0 || st.Retries != 0 {
			t.Errorf("Tasks() = %+v, want no failure and no retry: 1s attempts are within the 3s deadline", st)
		}
	})
	t.Run("past the task deadline: attempts time out, retries and reroutes help", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.InjectLatency(bgCtx, "worker-1", fault.Latency{Latency: 4 * time.Second}))
		if a := s.agent("worker-1"); a.Latency.Latency != 4*time.Second {
			t.Errorf("Agent(worker-1).Latency = %+v, want 4s", a.Latency)
		}
		tl := s.timeline(30 * time.Second)
		if hasProbe(tl, "error rate ") {
			t.Errorf("timeline %v, want no error rate above the threshold: retries and reroutes route around", tl)
		}
		st := s.c.Tasks()
		if st.Failed != 0 || st.Retries == 0 || st.Reroutes == 0 {
			t.Errorf("Tasks() = %+v, want retries and reroutes and no failure", st)
		}
	})
	t.Run("past the task deadline without retries", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries())
		s.advance(faultAt)
		s.land(s.c.InjectLatency(bgCtx, "worker-1", fault.Latency{Latency: 4 * time.Second}))
		if tl := s.timeline(30 * time.Second); !hasProbe(tl, "error rate ") {
			t.Errorf("timeline %v, want the error rate above the threshold", tl)
		}
	})
	t.Run("a slow leader is replaced by election", func(t *testing.T) {
		s := newClusterSim(t, WithFailover(time.Second, 0))
		s.advance(faultAt)
		lift := s.land(s.c.InjectLatency(bgCtx, "leader-0", fault.Latency{Latency: 2 * time.Second}))
		wantTimeline(t, s, 5*time.Second, []probeChange{
			{0, "leader unavailable: leader-0 behind a latency of 2s"},
			{time.Second, ""},
		})
		s.must(lift(bgCtx))
		if a := s.agent("leader-0"); a.Latency != (fault.Latency{}) {
			t.Errorf("after its lift: Latency = %+v, want none", a.Latency)
		}
	})
	t.Run("a slow orchestrator slows every attempt", func(t *testing.T) {
		s := newClusterSim(t, WithoutHealing())
		s.advance(faultAt)
		s.land(s.c.InjectLatency(bgCtx, "orchestrator-0", fault.Latency{Latency: 500 * time.Millisecond}))
		for _, w := range []string{"worker-1", "worker-2", "worker-3"} {
			if extra, _ := linkOf(s, w); extra != 500*time.Millisecond {
				t.Errorf("link(%s) = %v, want 500ms", w, extra)
			}
		}
	})
	t.Run("peer: only the link to the peer", func(t *testing.T) {
		s := newClusterSim(t)
		s.land(s.c.InjectLatency(bgCtx, "worker-1", fault.Latency{Latency: time.Second, Peer: "leader-0"}))
		if extra, _ := linkOf(s, "worker-1"); extra != 0 {
			t.Errorf("link(worker-1) = %v, want 0: the attempt goes to the orchestrator, not the peer", extra)
		}
		s.land(s.c.InjectLatency(bgCtx, "worker-1", fault.Latency{Latency: time.Second, Peer: "orchestrator-0"}))
		if extra, _ := linkOf(s, "worker-1"); extra != time.Second {
			t.Errorf("link(worker-1) = %v, want 1s", extra)
		}
	})
	t.Run("jitter: seeded draws within latency ± jitter", func(t *testing.T) {
		draws := func() []time.Duration {
			s := newClusterSim(t, WithSeed(9))
			s.land(s.c.InjectLatency(bgCtx, "worker-2", fault.Latency{Latency: 100 * time.Millisecond, Jitter: 50 * time.Millisecond}))
			var out []time.Duration
			for range 200 {
				d, _ := linkOf(s, "worker-2")
				out = append(out, d)
			}
			return out
		}
		a, b := draws(), draws()
		lo, hi := time.Hour, time.Duration(0)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("draw %d: %v then %v for the same seed", i, a[i], b[i])
			}
			lo, hi = min(lo, a[i]), max(hi, a[i])
		}
		if lo < 50*time.Millisecond || hi > 150*time.Millisecond || hi-lo < 80*time.Millisecond {
			t.Errorf("draws span [%v, %v], want within and across most of [50ms, 150ms]", lo, hi)
		}
	})
	t.Run("jitter above the latency never goes below zero", func(t *testing.T) {
		s := newClusterSim(t)
		s.land(s.c.InjectLatency(bgCtx, "worker-2", fault.Latency{Latency: time.Millisecond, Jitter: time.Second}))
		for range 100 {
			if d, _ := linkOf(s, "worker-2"); d < 0 {
				t.Fatalf("link = %v, want ≥ 0", d)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		if _, err := s.c.InjectLatency(bgCtx, "worker-1", fault.Latency{}); err == nil {
			t.Error("InjectLatency(0) = nil, want an error")
		}
		if _, err := s.c.InjectLatency(bgCtx, "worker-1", fault.Latency{Latency: time.Second, Peer: "worker-9"}); !errors.Is(err, fault.ErrNoAgent) {
			t.Errorf("InjectLatency(peer worker-9) = %v, want ErrNoAgent", err)
		}
		if _, err := s.c.InjectLatency(bgCtx, "worker-9", fault.Latency{Latency: time.Second}); !errors.Is(err, fault.ErrNoAgent) {
			t.Errorf("InjectLatency(worker-9) = %v, want ErrNoAgent", err)
		}
	})
}

func TestNetworkBandwidth(t *testing.T) {
	t.Run("a transfer takes payload/rate longer", func(t *testing.T) {
		s := newClusterSim(t)
		lift := s.land(s.c.LimitBandwidth(bgCtx, "worker-1", 100_000))
		if extra, _ := linkOf(s, "worker-1"); extra != 320*time.Millisecond {
			t.Errorf("link(worker-1) = %v, want 320ms (32 kB at 100 kB/s)", extra)
		}
		s.land(s.c.LimitBandwidth(bgCtx, "orchestrator-0", 400_000))
		if extra, _ := linkOf(s, "worker-1"); extra != 320*time.Millisecond {
			t.Errorf("link(worker-1) = %v, want 320ms: the lower cap wins", extra)
		}
		if extra, _ := linkOf(s, "worker-2"); extra != 80*time.Millisecond {
			t.Errorf("link(worker-2) = %v, want 80ms (the orchestrator's cap)", extra)
		}
		s.must(lift(bgCtx))
		if a := s.agent("worker-1"); a.Bandwidth != 0 {
			t.Errorf("after its lift: Bandwidth = %d, want 0", a.Bandwidth)
		}
	})
	t.Run("a narrow link times out without retries, not with them", func(t *testing.T) {
		for _, retries := range []bool{true, false} {
			var opts []Option
			if !retries {
				opts = append(opts, WithoutRetries())
			}
			s := newClusterSim(t, opts...)
			s.advance(faultAt)
			s.land(s.c.LimitBandwidth(bgCtx, "worker-2", 5_000)) // 6.4s per attempt
			if got := hasProbe(s.timeline(30*time.Second), "error rate "); got == retries {
				t.Errorf("retries %v: error rate above the threshold = %v, want %v", retries, got, !retries)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		if _, err := s.c.LimitBandwidth(bgCtx, "worker-1", 0); err == nil {
			t.Error("LimitBandwidth(0) = nil, want an error")
		}
	})
}

func TestConnectionReset(t *testing.T) {
	t.Run("at once: attempts fail, retries and reroutes help", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.ResetConnections(bgCtx, "worker-1", 0))
		if a := s.agent("worker-1"); !a.Resetting {
			t.Errorf("Agent(worker-1).Resetting = false, want true")
		}
		if _, reset := linkOf(s, "worker-1"); reset != 0 {
			t.Errorf("link(worker-1) reset at %v, want 0", reset)
		}
		wantTimeline(t, s, 20*time.Second, []probeChange{{0, ""}})
		st := s.c.Tasks()
		if st.Failed != 0 || st.Retries == 0 || st.Reroutes == 0 {
			t.Errorf("Tasks() = %+v, want retries and reroutes and no failure", st)
		}
	})
	t.Run("at once without retries", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries())
		s.advance(faultAt)
		s.land(s.c.ResetConnections(bgCtx, "worker-1", 0))
		if tl := s.timeline(20 * time.Second); !hasProbe(tl, "error rate ") {
			t.Errorf("timeline %v, want the error rate above the threshold", tl)
		}
	})
	t.Run("after: only long attempts are reset; a retry may get through", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.ResetConnections(bgCtx, "worker-1", 200*time.Millisecond))
		s.advance(20 * time.Second)
		st := s.c.Tasks()
		if st.Failed != 0 || st.Retries == 0 {
			t.Errorf("Tasks() = %+v, want retries and no failure", st)
		}
		if st.Reroutes*4 > st.Retries {
			t.Errorf("Tasks() = %+v, want most resets healed by a retry on the same worker", st)
		}
	})
	t.Run("long after: no effect", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries())
		s.advance(faultAt)
		s.land(s.c.ResetConnections(bgCtx, "worker-1", 10*time.Second))
		s.advance(20 * time.Second)
		if st := s.c.Tasks(); st.Failed != 0 {
			t.Errorf("Tasks() = %+v, want no failure: attempts end before the reset", st)
		}
	})
	t.Run("lift", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries())
		lift := s.land(s.c.ResetConnections(bgCtx, "worker-1", 0))
		s.must(lift(bgCtx))
		if _, reset := linkOf(s, "worker-1"); reset >= 0 || s.agent("worker-1").Resetting {
			t.Errorf("after its lift: reset at %v, want never", reset)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		if _, err := s.c.ResetConnections(bgCtx, "worker-1", -time.Second); err == nil {
			t.Error("ResetConnections(-1s) = nil, want an error")
		}
	})
}
