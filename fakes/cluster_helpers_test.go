package fakes

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// probeStep is the probe interval of an arena run.
const probeStep = 100 * time.Millisecond

// clusterSim drives a cluster on a virtual clock the way the virtual
// executor does: advance 100ms, probe.
type clusterSim struct {
	t     testing.TB
	clock *clock.Virtual
	c     *Cluster
	start time.Time
}

func newClusterSim(t testing.TB, opts ...Option) *clusterSim {
	t.Helper()
	clk := clock.NewVirtual(time.Time{})
	c := NewCluster(append([]Option{WithClock(clk)}, opts...)...)
	return &clusterSim{t: t, clock: clk, c: c, start: clk.Now()}
}

// elapsed is the simulated time since the cluster started.
func (s *clusterSim) elapsed() time.Duration { return s.clock.Now().Sub(s.start) }

// probe returns the probe's error text, "" when healthy.
func (s *clusterSim) probe() string {
	if err := s.c.Probe(context.Background()); err != nil {
		return err.Error()
	}
	return ""
}

// advance moves the clock d forward in probe steps, probing at each.
func (s *clusterSim) advance(d time.Duration) {
	for end := s.elapsed() + d; s.elapsed() < end; {
		s.clock.Advance(probeStep)
		s.probe()
	}
}

// probeChange is a change of the probe's state, at an offset from the
// start of a timeline.
type probeChange struct {
	At    time.Duration
	Probe string // "" = healthy
}

// timeline probes now and then after every step for d, and returns the
// probe's state changes relative to now (the first sample always counts).
func (s *clusterSim) timeline(d time.Duration) []probeChange {
	from := s.elapsed()
	var out []probeChange
	add := func() {
		p := s.probe()
		if len(out) == 0 || out[len(out)-1].Probe != p {
			out = append(out, probeChange{s.elapsed() - from, p})
		}
	}
	add()
	for s.elapsed()-from < d {
		s.clock.Advance(probeStep)
		add()
	}
	return out
}

// until steps until cond holds and returns the offset from now at which it
// first did; -1 if it never did within limit.
func (s *clusterSim) until(limit time.Duration, cond func() bool) time.Duration {
	from := s.elapsed()
	for {
		if cond() {
			return s.elapsed() - from
		}
		if s.elapsed()-from >= limit {
			return -1
		}
		s.clock.Advance(probeStep)
		s.probe()
	}
}

// must fails the test on a fault that did not land.
func (s *clusterSim) must(err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("fault did not land: %v", err)
	}
}

// land fails the test on a fault that did not land, and returns its lift.
func (s *clusterSim) land(lift fault.Lift, err error) fault.Lift {
	s.t.Helper()
	s.must(err)
	if lift == nil {
		s.t.Fatal("the fault landed without a lift")
	}
	return lift
}

func (s *clusterSim) agent(id string) AgentState {
	s.t.Helper()
	a, ok := s.c.Agent(id)
	if !ok {
		s.t.Fatalf("Agent(%q): no such agent", id)
	}
	return a
}

// checks runs the consistency checks and returns the failing ones' errors
// by name.
func (s *clusterSim) checks() map[string]string {
	out := map[string]string{}
	for _, ch := range s.c.Checks() {
		if err := ch.Run(context.Background()); err != nil {
			out[ch.Name] = err.Error()
		}
	}
	return out
}

// inFlightOn counts the tasks assigned to agent id.
func inFlightOn(c *Cluster, id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.index[id]
	n := 0
	for _, t := range c.work.tasks {
		if (t.state == taskRunning || t.state == taskBackoff) && int(t.worker) == i {
			n++
		}
	}
	return n
}

// ledgerBalances checks Created = Completed + Failed + Lost + InFlight + Queued.
func ledgerBalances(t testing.TB, st TaskStats) {
	t.Helper()
	if got := st.Completed + st.Failed + st.Lost + st.InFlight + st.Queued; got != st.Created {
		t.Fatalf("ledger does not balance: %+v (sum %d)", st, got)
	}
}

var bgCtx = context.Background()

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// liftBook keeps the lift of the latest fault of each kind on each agent
// that a test landed, so that the test can lift it later by kind and agent.
// It is safe for concurrent use.
type liftBook struct {
	mu sync.Mutex
	m  map[liftKey]fault.Lift
}

type liftKey struct {
	kind fault.Type
	id   string
}

// keep keeps the lift of a fault of kind on id that landed (err nil), and
// returns err.
func (b *liftBook) keep(kind fault.Type, id string, lift fault.Lift, err error) error {
	if err != nil || lift == nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[liftKey]fault.Lift{}
	}
	b.m[liftKey{kind, id}] = lift
	return nil
}

// lift lifts the fault of kind on id kept last (nil when none is kept).
func (b *liftBook) lift(ctx context.Context, kind fault.Type, id string) error {
	b.mu.Lock()
	lift := b.m[liftKey{kind, id}]
	delete(b.m, liftKey{kind, id})
	b.mu.Unlock()
	if lift == nil {
		return nil
	}
	return lift(ctx)
}

// liftAll lifts every fault kept.
func (b *liftBook) liftAll(ctx context.Context) error {
	b.mu.Lock()
	lifts := slices.Collect(maps.Values(b.m))
	clear(b.m)
	b.mu.Unlock()
	var errs []error
	for _, lift := range lifts {
		errs = append(errs, lift(ctx))
	}
	return errors.Join(errs...)
}

// liftable are kinds chaosOp lifts.
var liftable = []fault.Type{fault.PauseAgent, fault.SlowAgent, fault.NetworkPartition,
	fault.MCPDisconnect, fault.NetworkLatency}

// chaosOps is how many faults chaosOp knows; ops from chaosOps on lift.
const chaosOps = 10

// chaosOp lands fault op (0 to chaosOps-1) on agent id, node or edge,
// keeping its lift in book, or lifts the fault of kind lift on id that
// book holds (op >= chaosOps), for the randomised tests; size (1 to 3)
// scales a slowdown (seconds) and a latency (700ms steps). Errors are
// expected (a fault that cannot land now) and ignored.
func chaosOp(c *Cluster, book *liftBook, op, size int, id, node string, edge fault.Edge, lift fault.Type) {
	ctx := context.Background()
	switch op {
	case 0:
		_ = c.StopAgent(ctx, id)
	case 1:
		l, err := c.PauseAgent(ctx, id)
		_ = book.keep(fault.PauseAgent, id, l, err)
	case 2:
		_ = c.ResumeAgent(ctx, id)
	case 3:
		l, err := c.SlowAgent(ctx, id, time.Duration(size)*time.Second)
		_ = book.keep(fault.SlowAgent, id, l, err)
	case 4:
		l, err := c.PartitionNetwork(ctx, id)
		_ = book.keep(fault.NetworkPartition, id, l, err)
	case 5:
		_ = c.CorruptMemory(ctx, id)
	case 6:
		l, err := c.InjectLatency(ctx, id, fault.Latency{Latency: time.Duration(size) * 700 * time.Millisecond})
		_ = book.keep(fault.NetworkLatency, id, l, err)
	case 7:
		l, err := c.DisconnectMCP(ctx, id)
		_ = book.keep(fault.MCPDisconnect, id, l, err)
	case 8:
		if node != "" {
			_ = c.RemoveNode(ctx, node)
		}
	case 9:
		if edge.Source != "" {
			_ = c.RemoveEdge(ctx, edge.Source, edge.Target)
		}
	default:
		_ = book.lift(ctx, lift, id)
	}
}
