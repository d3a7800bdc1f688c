package fakes

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/fault"
)

func TestSlowAgent(t *testing.T) {
	t.Run("slow leader fails over", func(t *testing.T) {
		s := newClusterSim(t, WithFailover(time.Second, 0))
		s.advance(faultAt)
		lift := s.land(s.c.SlowAgent(bgCtx, "leader-0", 5*time.Second))
		if a := s.agent("leader-0"); a.SlowDelay != 5*time.Second {
			t.Errorf("SlowDelay = %v, want 5s", a.SlowDelay)
		}
		wantTimeline(t, s, 5*time.Second, []probeChange{
			{0, "leader unavailable: leader-0 slowed by 5s"},
			{time.Second, ""},
		})
		s.must(lift(bgCtx))
		if a := s.agent("leader-0"); a.SlowDelay != 0 || a.Type != fault.TypeWorker {
			t.Errorf("after its lift: %+v, want an un-slowed worker", a)
		}
	})
	t.Run("slightly slow leader", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.SlowAgent(bgCtx, "leader-0", time.Second))
		wantTimeline(t, s, 5*time.Second, []probeChange{{0, ""}})
	})
	t.Run("slow worker routed around", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.SlowAgent(bgCtx, "worker-1", 5*time.Second))
		wantTimeline(t, s, 30*time.Second, []probeChange{{0, ""}})
		st := s.c.Tasks()
		if st.Failed != 0 || st.Retries == 0 || st.Reroutes == 0 {
			t.Errorf("Tasks() = %+v, want retries and reroutes and no failure", st)
		}
	})
	t.Run("slow worker without retries", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries())
		s.advance(faultAt)
		s.land(s.c.SlowAgent(bgCtx, "worker-1", 5*time.Second))
		tl := s.timeline(30 * time.Second)
		if !hasProbe(tl, "error rate ") {
			t.Errorf("timeline %v, want the error rate above the threshold", tl)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		if _, err := s.c.SlowAgent(bgCtx, "worker-1", 0); err == nil {
			t.Error("SlowAgent(0) = nil, want an error")
		}
	})
}

func TestNetworkPartition(t *testing.T) {
	t.Run("healed after 3s", func(t *testing.T) {
		s := newClusterSim(t, WithoutFailover())
		s.advance(faultAt)
		s.land(s.c.PartitionNetwork(bgCtx, "leader-0"))
		if a := s.agent("leader-0"); !a.Partitioned {
			t.Errorf("after the partition: %+v, want partitioned", a)
		}
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "leader unavailable: leader-0 partitioned"},
			{3 * time.Second, ""},
		})
	})
	t.Run("lifted", func(t *testing.T) {
		s := newClusterSim(t, WithoutFailover())
		s.advance(faultAt)
		lift := s.land(s.c.PartitionNetwork(bgCtx, "worker-1"))
		s.land(s.c.PartitionNetwork(bgCtx, "worker-2"))
		s.advance(time.Second)
		s.must(lift(bgCtx))
		if a := s.agent("worker-1"); a.Partitioned {
			t.Errorf("after its lift: %+v, want healed", a)
		}
		wantTimeline(t, s, 10*time.Second, []probeChange{{0, ""}})
	})
	t.Run("second partition lasts its own delay", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		lift := s.land(s.c.PartitionNetwork(bgCtx, "worker-2"))
		s.advance(time.Second)
		s.must(lift(bgCtx))
		s.land(s.c.PartitionNetwork(bgCtx, "worker-2"))
		at := s.until(10*time.Second, func() bool { return !s.agent("worker-2").Partitioned })
		if at != 3*time.Second {
			t.Errorf("second partition healed after %v, want 3s", at)
		}
	})
	t.Run("quorum", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.PartitionNetwork(bgCtx, "worker-1"))
		s.land(s.c.PartitionNetwork(bgCtx, "worker-3"))
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "quorum lost: 1 of 3 workers available"},
			{3 * time.Second, ""},
		})
		if st := s.c.Tasks(); st.Failed != 0 || st.Lost != 0 {
			t.Errorf("Tasks() = %+v, want no failure", st)
		}
	})
	t.Run("failover", func(t *testing.T) {
		s := newClusterSim(t, WithFailover(time.Second, 0))
		s.advance(faultAt)
		s.land(s.c.PartitionNetwork(bgCtx, "orchestrator-0"))
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "orchestrator unavailable: orchestrator-0 partitioned"},
			{time.Second, ""},
		})
		if a := s.agent("orchestrator-0"); a.Type != fault.TypeWorker || a.Partitioned {
			t.Errorf("former orchestrator: %+v, want a healed worker", a)
		}
	})
	t.Run("without healing", func(t *testing.T) {
		s := newClusterSim(t, WithoutFailover(), WithoutPartitionHealing())
		s.advance(faultAt)
		lift := s.land(s.c.PartitionNetwork(bgCtx, "leader-0"))
		wantTimeline(t, s, time.Minute, []probeChange{{0, "leader unavailable: leader-0 partitioned"}})
		s.must(lift(bgCtx))
		if p := s.probe(); p != "" {
			t.Errorf("probe after its lift = %q, want healthy", p)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		s.land(s.c.PartitionNetwork(bgCtx, "worker-1"))
		if _, err := s.c.PartitionNetwork(bgCtx, "worker-1"); !errors.Is(err, fault.ErrCannotLand) {
			t.Errorf("PartitionNetwork(partitioned) = %v, want ErrCannotLand", err)
		}
	})
}

func TestToolTimeout(t *testing.T) {
	t.Run("with retries", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		lift := s.land(s.c.ToolTimeout(bgCtx, "worker-1", 5*time.Second))
		if a := s.agent("worker-1"); a.ToolTimeout != 5*time.Second {
			t.Errorf("ToolTimeout = %v, want 5s", a.ToolTimeout)
		}
		wantTimeline(t, s, 30*time.Second, []probeChange{{0, ""}})
		st := s.c.Tasks()
		if st.Failed != 0 || st.Retries == 0 || st.Reroutes == 0 {
			t.Errorf("Tasks() = %+v, want retries, reroutes and no failure", st)
		}
		s.must(lift(bgCtx))
		if a := s.agent("worker-1"); a.ToolTimeout != 0 {
			t.Errorf("after its lift: %+v", a)
		}
	})
	t.Run("fails after the timeout", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries(), WithWorkers(1), WithTaskInterval(10*time.Second))
		s.land(s.c.ToolTimeout(bgCtx, "worker-1", 1500*time.Millisecond))
		var arrived time.Duration
		s.until(time.Minute, func() bool {
			if st := s.c.Tasks(); st.Created == 1 && arrived == 0 {
				arrived = s.elapsed()
			}
			return s.c.Tasks().Failed == 1
		})
		if st := s.c.Tasks(); st.Created != 1 {
			t.Fatalf("Tasks() = %+v, want one task", st)
		}
		if got := s.elapsed() - arrived; got < 1400*time.Millisecond || got > 1600*time.Millisecond {
			t.Errorf("the attempt failed %v after it arrived, want 1.5s (± one step)", got)
		}
	})
	t.Run("without retries", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries())
		s.advance(faultAt)
		s.land(s.c.ToolTimeout(bgCtx, "worker-1", 100*time.Millisecond))
		if tl := s.timeline(30 * time.Second); !hasProbe(tl, "error rate ") {
			t.Errorf("timeline %v, want the error rate above the threshold", tl)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		if _, err := s.c.ToolTimeout(bgCtx, "worker-1", -time.Second); err == nil {
			t.Error("ToolTimeout(-1s) = nil, want an error")
		}
	})
}

func TestMCPDisconnect(t *testing.T) {
	t.Run("reconnects after 1s", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.DisconnectMCP(bgCtx, "worker-1"))
		at := s.until(10*time.Second, func() bool { return !s.agent("worker-1").MCPDisconnected })
		if at != time.Second {
			t.Errorf("MCP reconnected after %v, want 1s", at)
		}
	})
	t.Run("attempts fail and are retried", func(t *testing.T) {
		s := newClusterSim(t, WithoutMCPReconnect())
		s.advance(faultAt)
		lift := s.land(s.c.DisconnectMCP(bgCtx, "worker-1"))
		wantTimeline(t, s, 30*time.Second, []probeChange{{0, ""}})
		if st := s.c.Tasks(); st.Failed != 0 || st.Retries == 0 || st.Reroutes == 0 {
			t.Errorf("Tasks() = %+v, want retries and reroutes and no failure", st)
		}
		if a := s.agent("worker-1"); !a.MCPDisconnected {
			t.Errorf("without reconnect: %+v, want disconnected", a)
		}
		s.must(lift(bgCtx))
		if a := s.agent("worker-1"); a.MCPDisconnected {
			t.Errorf("after its lift: %+v", a)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		s.land(s.c.DisconnectMCP(bgCtx, "worker-1"))
		if _, err := s.c.DisconnectMCP(bgCtx, "worker-1"); !errors.Is(err, fault.ErrCannotLand) {
			t.Errorf("DisconnectMCP(disconnected) = %v, want ErrCannotLand", err)
		}
	})
}

func TestLLMFailure(t *testing.T) {
	t.Run("retries keep the error rate low", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		lift := s.land(s.c.InjectLLMFailure(bgCtx, "worker-1", fault.LLMRateLimit))
		if a := s.agent("worker-1"); a.LLMFailure != fault.LLMRateLimit {
			t.Errorf("LLMFailure = %q, want rate_limit", a.LLMFailure)
		}
		for range 300 {
			s.advance(probeStep)
			if r := s.c.ErrorRate(); r > DefaultErrorThreshold {
				t.Fatalf("error rate %.2f at %v, want ≤ 0.2", r, s.elapsed())
			}
		}
		if st := s.c.Tasks(); st.Failed != 0 || st.Retries == 0 || st.Reroutes == 0 {
			t.Errorf("Tasks() = %+v, want retries and reroutes and no failure", st)
		}
		s.must(lift(bgCtx))
		if a := s.agent("worker-1"); a.LLMFailure != "" {
			t.Errorf("after its lift: %+v", a)
		}
	})
	t.Run("without retries the error rate exceeds the threshold", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries())
		s.advance(faultAt)
		s.land(s.c.InjectLLMFailure(bgCtx, "worker-1", fault.LLMRateLimit))
		tl := s.timeline(30 * time.Second)
		if !hasProbe(tl, "error rate ") {
			t.Errorf("timeline %v, want the error rate above the threshold", tl)
		}
		if st := s.c.Tasks(); st.Failed == 0 || st.Retries != 0 || st.Reroutes != 0 {
			t.Errorf("Tasks() = %+v, want terminal failures and neither retries nor reroutes", st)
		}
	})
	t.Run("invalid_response is rerouted, not retried", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.InjectLLMFailure(bgCtx, "worker-1", fault.LLMInvalidResponse))
		wantTimeline(t, s, 30*time.Second, []probeChange{{0, ""}})
		if st := s.c.Tasks(); st.Failed != 0 || st.Retries != 0 || st.Reroutes == 0 {
			t.Errorf("Tasks() = %+v, want reroutes only", st)
		}
	})
	t.Run("every worker failing", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		for _, w := range []string{"worker-1", "worker-2", "worker-3"} {
			s.land(s.c.InjectLLMFailure(bgCtx, w, fault.LLMServerError))
		}
		s.advance(10 * time.Second)
		if got, want := s.probe(), "error rate 1.00 above 0.20"; got != want {
			t.Errorf("probe = %q, want %q", got, want)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		if _, err := s.c.InjectLLMFailure(bgCtx, "worker-1", "garbage"); err == nil {
			t.Error(`InjectLLMFailure("garbage") = nil, want an error`)
		}
	})
}

func TestMemoryCorrupt(t *testing.T) {
	t.Run("restored at the next checkpoint tick", func(t *testing.T) {
		s := newClusterSim(t) // ticks at 1s, 2s, 3s…
		s.advance(1500 * time.Millisecond)
		s.must(s.c.CorruptMemory(bgCtx, "worker-1"))
		if a := s.agent("worker-1"); !a.MemoryCorrupted {
			t.Errorf("after the corruption: %+v, want corrupted", a)
		}
		want := map[string]string{"memory": "memory does not match its checkpoint checksum: worker-1"}
		if diff := cmp.Diff(want, s.checks()); diff != "" {
			t.Errorf("checks (-want +got):\n%s", diff)
		}
		at := s.until(10*time.Second, func() bool { return !s.agent("worker-1").MemoryCorrupted })
		if at != 500*time.Millisecond {
			t.Errorf("memory restored after %v, want 500ms (the tick at 2s)", at)
		}
		if got := s.checks(); len(got) != 0 {
			t.Errorf("checks: %v", got)
		}
	})
	t.Run("probe stays healthy", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.must(s.c.CorruptMemory(bgCtx, "worker-2"))
		wantTimeline(t, s, 10*time.Second, []probeChange{{0, ""}})
	})
	t.Run("without checkpoints", func(t *testing.T) {
		s := newClusterSim(t, WithoutCheckpoints())
		s.advance(faultAt)
		s.must(s.c.CorruptMemory(bgCtx, "worker-1"))
		s.must(s.c.CorruptMemory(bgCtx, "worker-1")) // twice is still corrupted
		s.advance(time.Minute)
		if a := s.agent("worker-1"); !a.MemoryCorrupted {
			t.Errorf("after a minute without checkpoints: %+v, want corrupted", a)
		}
		if st := s.c.Tasks(); st.Failed != 0 || st.Reroutes == 0 {
			t.Errorf("Tasks() = %+v, want reroutes around the corrupted worker", st)
		}
		// Resurrection restores memory from the (initial) checkpoint.
		s.must(s.c.StopAgent(bgCtx, "worker-1"))
		s.advance(2 * time.Second)
		if a := s.agent("worker-1"); a.MemoryCorrupted || a.Restarts != 1 {
			t.Errorf("after resurrection: %+v, want memory restored", a)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		s.must(s.c.StopAgent(bgCtx, "worker-1"))
		if err := s.c.CorruptMemory(bgCtx, "worker-1"); !errors.Is(err, fault.ErrCannotLand) {
			t.Errorf("CorruptMemory(stopped) = %v, want ErrCannotLand", err)
		}
	})
}
