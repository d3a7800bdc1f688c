package fakes

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/fault"
)

// faultAt is when faults land in these tests: the workload is running and
// the time is a multiple of the probe step.
const faultAt = time.Second

func wantTimeline(t *testing.T, s *clusterSim, d time.Duration, want []probeChange) {
	t.Helper()
	if diff := cmp.Diff(want, s.timeline(d)); diff != "" {
		t.Errorf("probe timeline (-want +got):\n%s", diff)
	}
}

func hasProbe(tl []probeChange, prefix string) bool {
	for _, c := range tl {
		if strings.HasPrefix(c.Probe, prefix) {
			return true
		}
	}
	return false
}

func TestKillLeader(t *testing.T) {
	t.Run("resurrection", func(t *testing.T) {
		s := newClusterSim(t, WithoutFailover(), WithResurrection(2*time.Second))
		s.advance(faultAt)
		s.must(s.c.StopAgent(bgCtx, "leader-0"))
		if a := s.agent("leader-0"); a.Status != fault.StatusStopped {
			t.Errorf("after the kill: %+v, want stopped", a)
		}
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "leader unavailable: leader-0 stopped"},
			{2 * time.Second, ""},
		})
		if a := s.agent("leader-0"); a.Status != fault.StatusRunning || a.Restarts != 1 || a.Type != fault.TypeLeader {
			t.Errorf("after resurrection: %+v, want a running leader with 1 restart", a)
		}
	})
	t.Run("failover", func(t *testing.T) {
		s := newClusterSim(t, WithFailover(time.Second, 0), WithResurrection(2*time.Second))
		s.advance(faultAt)
		s.must(s.c.StopAgent(bgCtx, "leader-0"))
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "leader unavailable: leader-0 stopped"},
			{time.Second, ""},
		})
		if got := s.c.Leader(); got != "worker-1" {
			t.Errorf("Leader() = %q, want worker-1", got)
		}
		agents, _ := s.c.ListAgents(bgCtx)
		want := []fault.AgentInfo{
			{ID: "leader-0", Type: fault.TypeWorker, Status: fault.StatusRunning, Restarts: 1},
			{ID: "orchestrator-0", Type: fault.TypeOrchestrator, Status: fault.StatusRunning},
			{ID: "worker-1", Type: fault.TypeLeader, Status: fault.StatusRunning},
			{ID: "worker-2", Type: fault.TypeWorker, Status: fault.StatusRunning},
			{ID: "worker-3", Type: fault.TypeWorker, Status: fault.StatusRunning},
		}
		if diff := cmp.Diff(want, agents); diff != "" {
			t.Errorf("ListAgents after failover (-want +got):\n%s", diff)
		}
		// kill_leader now hits the new leader; the old one serves as a worker.
		s.must(s.c.StopAgent(bgCtx, s.c.Leader()))
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "leader unavailable: worker-1 stopped"},
			{time.Second, ""},
		})
		if got := s.c.Leader(); got != "leader-0" {
			t.Errorf("Leader() after the second kill = %q, want leader-0 (lowest-ID available worker)", got)
		}
		if got := s.checks(); len(got) != 0 {
			t.Errorf("checks: %v", got)
		}
	})
	t.Run("jitter", func(t *testing.T) {
		s := newClusterSim(t, WithFailover(time.Second, 500*time.Millisecond), WithoutResurrection())
		s.advance(faultAt)
		s.must(s.c.StopAgent(bgCtx, "leader-0"))
		at := s.until(5*time.Second, func() bool { return s.c.Leader() != "leader-0" })
		if at < time.Second || at > 1500*time.Millisecond {
			t.Errorf("leadership moved after %v, want within [1s, 1.5s]", at)
		}
	})
	t.Run("no healing", func(t *testing.T) {
		s := newClusterSim(t, WithoutFailover(), WithoutResurrection())
		s.advance(faultAt)
		s.must(s.c.StopAgent(bgCtx, "leader-0"))
		wantTimeline(t, s, time.Minute, []probeChange{{0, "leader unavailable: leader-0 stopped"}})
	})
	t.Run("election retried without workers", func(t *testing.T) {
		s := newClusterSim(t, WithWorkers(1), WithFailover(time.Second, 0), WithoutResurrection())
		s.advance(faultAt)
		s.land(s.c.PauseAgent(bgCtx, "worker-1"))
		s.must(s.c.StopAgent(bgCtx, "leader-0"))
		s.advance(1500 * time.Millisecond)
		s.must(s.c.ResumeAgent(bgCtx, "worker-1"))
		// The election at +1s found no worker; its retry at +2s elects worker-1.
		wantTimeline(t, s, 5*time.Second, []probeChange{
			{0, "leader unavailable: leader-0 stopped"},
			{500 * time.Millisecond, "quorum lost: 0 of 1 workers available"},
		})
		if got := s.c.Leader(); got != "worker-1" {
			t.Errorf("Leader() = %q, want worker-1", got)
		}
	})
}

func TestKillOrchestrator(t *testing.T) {
	t.Run("resurrection", func(t *testing.T) {
		s := newClusterSim(t, WithoutFailover(), WithResurrection(2*time.Second))
		s.advance(faultAt)
		s.must(s.c.StopAgent(bgCtx, "orchestrator-0"))
		s.advance(1900 * time.Millisecond)
		if st := s.c.Tasks(); st.Queued < 5 {
			t.Errorf("Tasks() without an orchestrator = %+v, want tasks queued", st)
		}
		s.clock.Advance(probeStep)
		if p := s.probe(); p != "" {
			t.Errorf("probe at +2s = %q, want healthy", p)
		}
		st := s.c.Tasks()
		if st.Queued != 0 || st.Lost != 0 {
			t.Errorf("Tasks() once the orchestrator is back = %+v, want the queue drained and nothing lost", st)
		}
		if a := s.agent("orchestrator-0"); a.Restarts != 1 || a.Type != fault.TypeOrchestrator {
			t.Errorf("after resurrection: %+v", a)
		}
	})
	t.Run("timeline", func(t *testing.T) {
		s := newClusterSim(t, WithoutFailover(), WithResurrection(2*time.Second))
		s.advance(faultAt)
		s.must(s.c.StopAgent(bgCtx, "orchestrator-0"))
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "orchestrator unavailable: orchestrator-0 stopped"},
			{2 * time.Second, ""},
		})
	})
	t.Run("failover", func(t *testing.T) {
		s := newClusterSim(t, WithFailover(time.Second, 0), WithoutResurrection())
		s.advance(faultAt)
		s.must(s.c.StopAgent(bgCtx, "orchestrator-0"))
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "orchestrator unavailable: orchestrator-0 stopped"},
			{time.Second, ""},
		})
		if got := s.c.Orchestrator(); got != "worker-1" {
			t.Errorf("Orchestrator() = %q, want worker-1", got)
		}
		if a := s.agent("orchestrator-0"); a.Type != fault.TypeWorker || a.Status != fault.StatusStopped {
			t.Errorf("former orchestrator: %+v, want a stopped worker", a)
		}
		if st := s.c.Tasks(); st.Queued != 0 || st.Lost != 0 {
			t.Errorf("Tasks() = %+v, want the new orchestrator to dispatch", st)
		}
	})
}

func TestKillAgent(t *testing.T) {
	t.Run("one worker", func(t *testing.T) {
		s := newClusterSim(t, WithTaskDuration(time.Second))
		s.advance(faultAt)
		if inFlightOn(s.c, "worker-1") == 0 {
			t.Fatal("worker-1 has no task in flight; the test needs one")
		}
		s.must(s.c.StopAgent(bgCtx, "worker-1"))
		if got := inFlightOn(s.c, "worker-1"); got != 0 {
			t.Errorf("tasks on the killed worker = %d, want 0 (requeued)", got)
		}
		wantTimeline(t, s, 10*time.Second, []probeChange{{0, ""}}) // quorum holds
		a := s.agent("worker-1")
		if a.Status != fault.StatusRunning || a.Restarts != 1 {
			t.Errorf("after resurrection: %+v", a)
		}
		if got := s.checks(); len(got) != 0 {
			t.Errorf("checks: %v", got)
		}
	})
	t.Run("resurrected at +2s", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.must(s.c.StopAgent(bgCtx, "worker-1"))
		at := s.until(10*time.Second, func() bool { return s.agent("worker-1").Status == fault.StatusRunning })
		if at != 2*time.Second {
			t.Errorf("worker-1 running again after %v, want 2s", at)
		}
	})
	t.Run("quorum", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.must(s.c.StopAgent(bgCtx, "worker-1"))
		s.must(s.c.StopAgent(bgCtx, "worker-2"))
		wantTimeline(t, s, 10*time.Second, []probeChange{
			{0, "quorum lost: 1 of 3 workers available"},
			{2 * time.Second, ""},
		})
	})
	t.Run("tasks lost without checkpoints", func(t *testing.T) {
		s := newClusterSim(t, WithTaskDuration(time.Second), WithoutCheckpoints())
		s.advance(faultAt)
		n := inFlightOn(s.c, "worker-1")
		if n == 0 {
			t.Fatal("worker-1 has no task in flight; the test needs one")
		}
		s.must(s.c.StopAgent(bgCtx, "worker-1"))
		st := s.c.Tasks()
		if st.Lost != n {
			t.Errorf("Tasks().Lost = %d, want %d", st.Lost, n)
		}
		ledgerBalances(t, st)
		s.advance(10 * time.Second)
		want := map[string]string{"tasks": fmt.Sprintf("%d tasks lost", n)}
		if n == 1 {
			want["tasks"] = "1 task lost"
		}
		if diff := cmp.Diff(want, s.checks()); diff != "" {
			t.Errorf("checks (-want +got):\n%s", diff)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t)
		s.must(s.c.StopAgent(bgCtx, "worker-1"))
		err := s.c.StopAgent(bgCtx, "worker-1")
		if !errors.Is(err, fault.ErrCannotLand) || err.Error() != `fakes: agent "worker-1": fault cannot land: already stopped` {
			t.Errorf("StopAgent(stopped) = %v, want ErrCannotLand", err)
		}
	})
}

func TestPauseAndResumeAgent(t *testing.T) {
	t.Run("stays paused", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(faultAt)
		s.land(s.c.PauseAgent(bgCtx, "worker-1"))
		lift := s.land(s.c.PauseAgent(bgCtx, "worker-2"))
		wantTimeline(t, s, time.Minute, []probeChange{{0, "quorum lost: 1 of 3 workers available"}})
		if a := s.agent("worker-1"); a.Status != fault.StatusPaused {
			t.Errorf("after a minute: %+v, want paused", a)
		}
		s.must(s.c.ResumeAgent(bgCtx, "worker-1"))
		if p := s.probe(); p != "" {
			t.Errorf("probe after ResumeAgent = %q, want healthy", p)
		}
		s.must(lift(bgCtx))
		if a := s.agent("worker-2"); a.Status != fault.StatusRunning {
			t.Errorf("after its lift(pause_agent): %+v, want running", a)
		}
		if got := s.checks(); len(got) != 0 {
			t.Errorf("checks: %v", got)
		}
	})
	t.Run("paused orchestrator fails over", func(t *testing.T) {
		s := newClusterSim(t, WithFailover(time.Second, 0), WithTaskDuration(time.Second))
		s.advance(faultAt)
		s.land(s.c.PauseAgent(bgCtx, "orchestrator-0"))
		wantTimeline(t, s, 5*time.Second, []probeChange{
			{0, "orchestrator unavailable: orchestrator-0 paused"},
			{time.Second, ""},
		})
		s.must(s.c.ResumeAgent(bgCtx, "orchestrator-0"))
		if a := s.agent("orchestrator-0"); a.Type != fault.TypeWorker {
			t.Errorf("resumed former orchestrator: %+v, want a worker", a)
		}
		s.advance(2 * time.Second)
		if got := inFlightOn(s.c, "orchestrator-0"); got == 0 {
			t.Error("the former orchestrator gets no tasks as a worker")
		}
	})
	t.Run("resumed before the election", func(t *testing.T) {
		s := newClusterSim(t, WithFailover(time.Second, 0))
		s.advance(faultAt)
		s.land(s.c.PauseAgent(bgCtx, "leader-0"))
		s.advance(500 * time.Millisecond)
		s.must(s.c.ResumeAgent(bgCtx, "leader-0"))
		s.advance(5 * time.Second)
		if got := s.c.Leader(); got != "leader-0" {
			t.Errorf("Leader() = %q, want leader-0 (the election was cancelled)", got)
		}
	})
	t.Run("tasks requeued", func(t *testing.T) {
		s := newClusterSim(t, WithTaskDuration(time.Second))
		s.advance(faultAt)
		if inFlightOn(s.c, "worker-1") == 0 {
			t.Fatal("worker-1 has no task in flight; the test needs one")
		}
		s.land(s.c.PauseAgent(bgCtx, "worker-1"))
		if got, st := inFlightOn(s.c, "worker-1"), s.c.Tasks(); got != 0 || st.Lost != 0 {
			t.Errorf("after the pause: %d tasks on worker-1, %+v; want 0 and nothing lost", got, st)
		}
	})
	t.Run("tasks lost without checkpoints", func(t *testing.T) {
		s := newClusterSim(t, WithTaskDuration(time.Second), WithoutCheckpoints())
		s.advance(faultAt)
		n := inFlightOn(s.c, "worker-1")
		s.land(s.c.PauseAgent(bgCtx, "worker-1"))
		if st := s.c.Tasks(); st.Lost != n || n == 0 {
			t.Errorf("Tasks().Lost = %d, want %d (> 0)", st.Lost, n)
		}
	})
	t.Run("errors", func(t *testing.T) {
		s := newClusterSim(t, WithoutResurrection())
		s.land(s.c.PauseAgent(bgCtx, "worker-1"))
		s.must(s.c.StopAgent(bgCtx, "worker-2"))
		pause := func(id string) error { _, err := s.c.PauseAgent(bgCtx, id); return err }
		for _, tt := range []struct {
			name string
			err  error
			want string
		}{
			{"pause paused", pause("worker-1"), `fakes: agent "worker-1": fault cannot land: agent is paused`},
			{"pause stopped", pause("worker-2"), `fakes: agent "worker-2": fault cannot land: agent is stopped`},
			{"resume running", s.c.ResumeAgent(bgCtx, "worker-3"), `fakes: agent "worker-3": fault cannot land: agent is running, not paused`},
			{"resume stopped", s.c.ResumeAgent(bgCtx, "worker-2"), `fakes: agent "worker-2": fault cannot land: agent is stopped, not paused`},
		} {
			if !errors.Is(tt.err, fault.ErrCannotLand) || tt.err.Error() != tt.want {
				t.Errorf("%s = %v, want %s", tt.name, tt.err, tt.want)
			}
		}
		s.must(s.c.StopAgent(bgCtx, "worker-1")) // a paused agent can be killed
	})
}
