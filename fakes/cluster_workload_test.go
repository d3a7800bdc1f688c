package fakes

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ares-arena/arena/fault"
)

// chaosSample is what a run looks like at one probe.
type chaosSample struct {
	At    time.Duration
	Probe string
	Tasks TaskStats
}

// runChaos lands a fixed script of faults while stepping for d, and records
// every probe.
func runChaos(t testing.TB, d time.Duration, opts ...Option) []chaosSample {
	s := newClusterSim(t, opts...)
	var book liftBook
	keep := func(kind fault.Type, id string) func(fault.Lift, error) {
		return func(lift fault.Lift, err error) { book.keep(kind, id, lift, err) }
	}
	script := map[time.Duration]func(){
		2 * time.Second: func() { s.c.StopAgent(bgCtx, s.c.Leader()) },
		3 * time.Second: func() {
			keep(fault.LLMFailure, "worker-2")(s.c.InjectLLMFailure(bgCtx, "worker-2", fault.LLMOverloaded))
		},
		5 * time.Second:  func() { s.c.PartitionNetwork(bgCtx, "worker-3") },
		6 * time.Second:  func() { s.c.CorruptMemory(bgCtx, "worker-1") },
		7 * time.Second:  func() { s.c.RemoveEdge(bgCtx, "orchestrator-0", "worker-1") },
		9 * time.Second:  func() { s.c.StopAgent(bgCtx, s.c.Orchestrator()) },
		10 * time.Second: func() { book.lift(bgCtx, fault.LLMFailure, "worker-2") },
		12 * time.Second: func() { s.c.PauseAgent(bgCtx, "worker-2") },
		14 * time.Second: func() { s.c.ResumeAgent(bgCtx, "worker-2") },
		15 * time.Second: func() { keep(fault.ToolTimeout, "worker-3")(s.c.ToolTimeout(bgCtx, "worker-3", 5*time.Second)) },
		16 * time.Second: func() { keep(fault.SlowAgent, "worker-1")(s.c.SlowAgent(bgCtx, "worker-1", 2*time.Second)) },
		17 * time.Second: func() { s.c.DisconnectMCP(bgCtx, "worker-2") },
		20 * time.Second: func() { s.c.RemoveNode(bgCtx, "worker-2") },
		25 * time.Second: func() { book.lift(bgCtx, fault.ToolTimeout, "worker-3") },
		26 * time.Second: func() { book.lift(bgCtx, fault.SlowAgent, "worker-1") },
	}
	var out []chaosSample
	for s.elapsed() < d {
		s.clock.Advance(probeStep)
		if f := script[s.elapsed()]; f != nil {
			f()
		}
		out = append(out, chaosSample{s.elapsed(), s.probe(), s.c.Tasks()})
	}
	return out
}

func TestDeterministic(t *testing.T) {
	a := runChaos(t, time.Minute, WithSeed(7))
	b := runChaos(t, time.Minute, WithSeed(7))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two runs with seed 7 differ (-first +second):\n%s", diff)
	}
	c := runChaos(t, time.Minute, WithSeed(8))
	if cmp.Equal(a, c) {
		t.Error("runs with seeds 7 and 8 are identical, want the seed to probeChange the workload")
	}
}

func TestSeedChangesWorkload(t *testing.T) {
	arrivals := func(seed uint64) []int {
		s := newClusterSim(t, WithSeed(seed))
		var out []int
		for range 600 {
			s.advance(probeStep)
			out = append(out, s.c.Tasks().Created)
		}
		return out
	}
	if a, b := arrivals(1), arrivals(2); cmp.Equal(a, b) {
		t.Error("seeds 1 and 2 give the same arrivals over 60s")
	}
	if a, b := arrivals(3), arrivals(3); !cmp.Equal(a, b) {
		t.Error("seed 3 twice gives different arrivals")
	}
}

// TestIndependentOfProbeRate: the simulation does not depend on how often
// it is looked at.
func TestIndependentOfProbeRate(t *testing.T) {
	run := func(probeEvery time.Duration) []TaskStats {
		s := newClusterSim(t, WithSeed(11))
		var out []TaskStats
		for s.elapsed() < 30*time.Second {
			s.clock.Advance(probeEvery)
			switch s.elapsed() {
			case 3 * time.Second:
				s.must(s.c.StopAgent(bgCtx, "leader-0"))
				s.land(s.c.InjectLLMFailure(bgCtx, "worker-1", fault.LLMTimeout))
			case 6 * time.Second:
				s.must(s.c.StopAgent(bgCtx, "worker-2"))
			}
			if s.elapsed()%time.Second == 0 {
				out = append(out, s.c.Tasks())
			} else {
				s.probe()
			}
		}
		return out
	}
	if diff := cmp.Diff(run(probeStep), run(time.Second)); diff != "" {
		t.Errorf("probing every 100ms and every 1s differ (-100ms +1s):\n%s", diff)
	}
}

// availability is the share of healthy probes over d with a permanent LLM
// failure on worker-1.
func availability(t testing.TB, d time.Duration, opts ...Option) float64 {
	s := newClusterSim(t, opts...)
	s.advance(faultAt)
	s.land(s.c.InjectLLMFailure(bgCtx, "worker-1", fault.LLMRateLimit))
	healthy, n := 0, 0
	for range int(d / probeStep) {
		s.clock.Advance(probeStep)
		if s.probe() == "" {
			healthy++
		}
		n++
	}
	return float64(healthy) / float64(n)
}

func TestRetriesAB(t *testing.T) {
	with := availability(t, time.Minute)
	without := availability(t, time.Minute, WithoutRetries())
	t.Logf("availability under an LLM failure: %.3f with retries, %.3f without", with, without)
	if with != 1 || without > 0.5 {
		t.Errorf("availability with retries %.2f, without %.2f; want 1 and under 0.5", with, without)
	}
	if again := availability(t, time.Minute, WithoutRetries()); again != without {
		t.Errorf("identical configs differ: %.3f vs %.3f", without, again)
	}
}

func TestErrorWindowAndThreshold(t *testing.T) {
	t.Run("failures leave the window", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries())
		s.advance(faultAt)
		workers := []string{"worker-1", "worker-2", "worker-3"}
		var lifts []fault.Lift
		for _, w := range workers {
			lifts = append(lifts, s.land(s.c.InjectLLMFailure(bgCtx, w, fault.LLMRateLimit)))
		}
		s.advance(5 * time.Second)
		if r := s.c.ErrorRate(); r != 1 {
			t.Errorf("ErrorRate() = %v with every worker failing, want 1", r)
		}
		for _, lift := range lifts {
			s.must(lift(bgCtx))
		}
		s.advance(time.Second)
		if r := s.c.ErrorRate(); r == 0 || r == 1 {
			t.Errorf("ErrorRate() = %v 1s after the lift, want failures and completions in the window", r)
		}
		// The last attempt that started failing ends ≤ 250ms after the lift;
		// its failure leaves the 2s window by +2.25s.
		s.advance(1300 * time.Millisecond)
		if r := s.c.ErrorRate(); r != 0 {
			t.Errorf("ErrorRate() = %v 2.3s after the lift, want 0", r)
		}
		if st := s.c.Tasks(); st.Failed == 0 {
			t.Errorf("Tasks() = %+v, want failures", st)
		}
	})
	t.Run("threshold", func(t *testing.T) {
		s := newClusterSim(t, WithoutRetries(), WithErrorThreshold(0.5), WithErrorWindow(10*time.Second))
		s.advance(faultAt)
		s.land(s.c.InjectLLMFailure(bgCtx, "worker-1", fault.LLMRateLimit))
		wantTimeline(t, s, time.Minute, []probeChange{{0, ""}})
		if r := s.c.ErrorRate(); r < 0.2 || r > 0.5 {
			t.Errorf("ErrorRate() = %.2f, want about a third", r)
		}
	})
	t.Run("empty window", func(t *testing.T) {
		s := newClusterSim(t)
		if r := s.c.ErrorRate(); r != 0 {
			t.Errorf("ErrorRate() before any task = %v, want 0", r)
		}
	})
}

// TestLedgerUnderChaos lands seeded random faults for five minutes, then
// lifts what the cluster does not heal itself: the ledger balances at every
// probeStep, nothing is lost (checkpoints are on), and the cluster ends healthy
// and consistent.
func TestLedgerUnderChaos(t *testing.T) {
	s := newClusterSim(t, WithWorkers(5), WithSeed(3))
	r := rand.New(rand.NewPCG(3, 3))
	agents, _ := s.c.ListAgents(bgCtx)
	ids := make([]string, len(agents))
	for i, a := range agents {
		ids[i] = a.ID
	}
	landed := 0
	var book liftBook
	for range 3000 {
		s.clock.Advance(probeStep)
		if r.IntN(5) == 0 {
			if err := randomFault(s.c, &book, r, ids); err == nil {
				landed++
			}
		}
		s.probe()
		ledgerBalances(t, s.c.Tasks())
	}
	if landed < 300 {
		t.Errorf("only %d faults landed", landed)
	}
	s.must(book.liftAll(bgCtx))
	s.advance(30 * time.Second)
	if p := s.probe(); p != "" {
		t.Errorf("probe 30s after the chaos = %q, want healthy", p)
	}
	if got := s.checks(); len(got) != 0 {
		t.Errorf("checks after the chaos: %v", got)
	}
	st := s.c.Tasks()
	t.Logf("%d faults landed; %+v", landed, st)
	ledgerBalances(t, st)
	if st.Lost != 0 || st.Retries == 0 || st.Reroutes == 0 {
		t.Errorf("Tasks() = %+v, want retries, reroutes and nothing lost", st)
	}
}

// randomFault lands a fault drawn with r on the cluster, keeping its lift
// in book.
func randomFault(c *Cluster, book *liftBook, r *rand.Rand, ids []string) error {
	id := ids[r.IntN(len(ids))]
	switch r.IntN(13) {
	case 0:
		return c.StopAgent(bgCtx, c.Leader())
	case 1:
		return c.StopAgent(bgCtx, c.Orchestrator())
	case 2:
		return c.StopAgent(bgCtx, id)
	case 3:
		lift, err := c.PauseAgent(bgCtx, id)
		return book.keep(fault.PauseAgent, id, lift, err)
	case 4:
		return c.ResumeAgent(bgCtx, id)
	case 5:
		lift, err := c.SlowAgent(bgCtx, id, time.Duration(r.IntN(5000)+1)*time.Millisecond)
		return book.keep(fault.SlowAgent, id, lift, err)
	case 6:
		lift, err := c.PartitionNetwork(bgCtx, id)
		return book.keep(fault.NetworkPartition, id, lift, err)
	case 7:
		lift, err := c.ToolTimeout(bgCtx, id, time.Duration(r.IntN(5000)+1)*time.Millisecond)
		return book.keep(fault.ToolTimeout, id, lift, err)
	case 8:
		return c.CorruptMemory(bgCtx, id)
	case 9:
		lift, err := c.DisconnectMCP(bgCtx, id)
		return book.keep(fault.MCPDisconnect, id, lift, err)
	case 10:
		types := fault.LLMErrorTypes()
		lift, err := c.InjectLLMFailure(bgCtx, id, types[r.IntN(len(types))])
		return book.keep(fault.LLMFailure, id, lift, err)
	case 11:
		return c.RemoveNode(bgCtx, id)
	default:
		if r.IntN(2) == 0 {
			return c.RemoveEdge(bgCtx, "leader-0", "orchestrator-0")
		}
		return c.RemoveEdge(bgCtx, "orchestrator-0", id)
	}
}

// TestMemoryBounded runs a virtual hour and checks that what the cluster
// keeps does not grow with time.
func TestMemoryBounded(t *testing.T) {
	sizes := func(c *Cluster) (tasks, events, window int) {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.work.tasks), len(c.events), len(c.work.window.buf)
	}
	t.Run("healthy", func(t *testing.T) {
		s := newClusterSim(t)
		s.advance(time.Hour)
		tasks, events, window := sizes(s.c)
		if tasks > 20 || events > 40 || window > 64 {
			t.Errorf("after an hour: %d task slots, %d deadlines, window ring %d; want a handful", tasks, events, window)
		}
		if st := s.c.Tasks(); st.Created < 14000 {
			t.Errorf("Tasks() = %+v", st)
		}
	})
	t.Run("orchestrator dead for good", func(t *testing.T) {
		s := newClusterSim(t, WithoutHealing())
		s.must(s.c.StopAgent(bgCtx, "orchestrator-0"))
		s.advance(time.Hour)
		tasks, events, _ := sizes(s.c)
		st := s.c.Tasks()
		if st.Queued != queueLimit || tasks > queueLimit+5 || events > 10 {
			t.Errorf("after an hour: %+v, %d task slots, %d deadlines; want the queue capped at %d", st, tasks, events, queueLimit)
		}
		if st.Failed != st.Created-queueLimit-st.Completed-st.InFlight {
			t.Errorf("Tasks() = %+v, want arrivals beyond the queue limit failed", st)
		}
	})
}

func TestRealClock(t *testing.T) {
	c := NewCluster()
	if err := c.Probe(bgCtx); err != nil {
		t.Errorf("Probe() on a fresh real-time cluster = %v", err)
	}
	if err := c.StopAgent(bgCtx, "worker-1"); err != nil {
		t.Fatal(err)
	}
	if a, _ := c.Agent("worker-1"); a.Status != fault.StatusStopped {
		t.Errorf("Agent(worker-1) = %+v, want stopped", a)
	}
}

// TestFaultDuringAttempt: a fault that lands and is lifted while an attempt
// runs still fails it.
func TestFaultDuringAttempt(t *testing.T) {
	s := newClusterSim(t, WithWorkers(1), WithTaskInterval(10*time.Second), WithTaskDuration(2*time.Second), WithoutRetries())
	if s.until(time.Minute, func() bool { return s.c.Tasks().InFlight == 1 }) < 0 {
		t.Fatal("no task started")
	}
	lift := s.land(s.c.InjectLLMFailure(bgCtx, "worker-1", fault.LLMTimeout))
	s.must(lift(bgCtx))
	s.until(5*time.Second, func() bool { return s.c.Tasks().InFlight == 0 })
	if st := s.c.Tasks(); st.Failed != 1 || st.Completed != 0 {
		t.Errorf("Tasks() = %+v, want the attempt failed", st)
	}
	s.until(time.Minute, func() bool { return s.c.Tasks().Completed == 1 })
	if st := s.c.Tasks(); st.Failed != 1 || st.Completed != 1 {
		t.Errorf("Tasks() = %+v, want the next task completed", st)
	}
}

// TestVirtualDay probes a 10-agent cluster every 100ms for 24 virtual hours
// (864,000 probes) under a fault every minute.
func TestVirtualDay(t *testing.T) {
	if testing.Short() {
		t.Skip("a virtual day takes a few seconds under -race")
	}
	s := newClusterSim(t, WithWorkers(8), WithSeed(24))
	r := rand.New(rand.NewPCG(24, 24))
	agents, _ := s.c.ListAgents(bgCtx)
	ids := make([]string, len(agents))
	for i, a := range agents {
		ids[i] = a.ID
	}
	start := time.Now()
	var book liftBook
	for i := range 864_000 {
		s.clock.Advance(probeStep)
		if i%600 == 0 {
			_ = randomFault(s.c, &book, r, ids)
		}
		if i%3000 == 0 { // lift what only lifting heals, now and then
			for _, id := range ids {
				for _, kind := range []fault.Type{fault.SlowAgent, fault.ToolTimeout, fault.LLMFailure, fault.PauseAgent} {
					_ = book.lift(bgCtx, kind, id)
				}
			}
		}
		s.probe()
	}
	st := s.c.Tasks()
	t.Logf("24h virtual in %v: %+v", time.Since(start), st)
	ledgerBalances(t, st)
	s.c.mu.Lock()
	tasks, events := len(s.c.work.tasks), len(s.c.events)
	s.c.mu.Unlock()
	if tasks > 2*queueLimit || events > 2*queueLimit {
		t.Errorf("after a day: %d task slots, %d deadlines", tasks, events)
	}
}
