// Package fakes provides [Cluster], an in-memory agent cluster with real
// self-healing behaviour: the system under test of a virtual arena run.
// [NewCluster] returns one. It implements [fault.RuntimeProvider],
// [fault.DAGProvider] and every other capability of arena's built-in fault
// types, and offers a probe
// ([Cluster.Probe], [Cluster.ProbeFunc]) and consistency checks
// ([Cluster.Checks]). [Cluster.Agent], [Cluster.Tasks], [Cluster.ErrorRate],
// [Cluster.Leader] and [Cluster.Orchestrator] show its state to tests and
// reports. [Cluster.AppendAgents], [Cluster.AppendNodes] and
// [Cluster.AppendEdges] list into a caller's buffer, and the change feeds
// [Cluster.AppendAgentChanges], [Cluster.AppendNodeChanges] and
// [Cluster.AppendEdgeChanges] ([fault.AgentFeed], [fault.DAGFeed]) say what
// changed since a cursor: a survival run, which reads the system before
// every injection, keeps its copy of it in step through them.
//
// # Cluster model
//
// Agents are leader-0 (type leader), orchestrator-0 (type orchestrator) and
// worker-1 … worker-N (type worker, [WithWorkers], default 3), listed in ID
// order: string order, so worker-10 sorts before worker-2. The leader and
// orchestrator roles move by election ([Healing].Failover) to the lowest-ID
// available worker, whose type becomes the role's; the former holder becomes
// a worker at once, and serves as one when it comes back.
//
// The task DAG has one node per agent and the canonical edges
// leader-0→orchestrator-0 and orchestrator-0→worker-i. Its shape never
// changes, even when roles move. Removing a node hides its edges too;
// restoring it brings back those that were not removed on their own.
//
// A seeded workload ([WithSeed], [WithTaskInterval]) sends a task every 250ms
// ±20%. The orchestrator, when available, assigns it round-robin to a
// routable worker: of type worker, running, not paused, not partitioned, with
// its node and every incoming canonical edge present. Otherwise the task
// waits in a queue of at most 1000 tasks (an arrival beyond that fails
// terminally, so a cluster that never heals stays bounded). An attempt takes
// [WithTaskDuration] (200ms ±25%) plus the worker's slow delay, or, with a
// tool timeout, the timeout plus the slow delay, plus what the network faults
// on the link between the worker and the orchestrator add (see Network
// faults); past [WithTaskTimeout] (3s) it fails at the timeout. It fails too if the worker has a tool timeout, an
// LLM failure, a disconnected MCP session, corrupted memory or a partition
// (its result cannot be delivered) when it starts or ends, or if one of
// those lands while it runs. A failed attempt is retried on the same worker
// after Backoff, 2×Backoff… up to MaxRetries times (never for
// invalid_response, see [fault.LLMErrorType.Retryable]); then, or as soon as
// the worker is no longer routable, the task is rerouted to another routable
// worker (at most MaxReroutes times; back to the queue when no orchestrator
// is available to route it), and only then fails terminally. Without retries
// the first failure is terminal. The tasks of a worker that is killed or
// paused are requeued at once, oldest first, from the checkpointed ledger;
// without checkpoints they are lost.
//
// Every agent's memory has a checkpoint and its checksum. A checkpoint tick
// (every CheckpointInterval from the start) restores the memory of each
// running agent whose memory fails the checksum, and checkpoints the others.
// A restart restores memory from the last checkpoint. A kill or pause leaves
// the agent's other faults in place.
//
// # Time and determinism
//
// Nothing runs on goroutines or timers. Every transition (task arrivals and
// ends, retries, resurrections, elections, checkpoint ticks, repairs,
// reconnections) is a deadline in one min-heap ordered by (due time,
// scheduling sequence), and every method first advances the simulation to
// the clock's reading ([WithClock]), running each deadline due at or before
// it in that order; a deadline may schedule more. So deadlines due at one
// instant run in the order they were scheduled, and a fault or probe at
// instant t sees every deadline due at t done. Time zero is the clock's
// reading at NewCluster. Given the seed, the options and the calls with
// their clock readings, a run is deterministic, however often it is probed;
// workload, election jitter and corruption draw from separate seeded
// streams, so faults do not shift task arrivals. The cluster keeps counters,
// unfinished tasks and the finishes within the error window: memory does not
// grow with the length of a run.
//
// # Health
//
// An agent is available when it is running, not partitioned, and neither
// slowed, behind a network latency, nor with its clock ahead (clock_jump)
// by more than ElectionTimeout. The probe is healthy when the leader and the
// orchestrator are available, a quorum (⌊N/2⌋+1) of the N workers is
// available, the DAG is intact and the error rate (terminal failures over
// finished tasks within [WithErrorWindow], 2s; 0 when none finished; lost
// tasks are not finished) is at most [WithErrorThreshold], 0.2. Otherwise
// its error names the first reason found, in that order:
//
//	leader unavailable: leader-0 stopped        (or paused, partitioned, slowed by 5s,
//	                                             behind a latency of 2s, with its clock
//	                                             1m0s ahead)
//	orchestrator unavailable: worker-1 paused
//	quorum lost: 1 of 3 workers available
//	dag broken: missing node worker-2           (nodes before edges, in canonical order)
//	dag broken: missing edge orchestrator-0->worker-2
//	error rate 0.40 above 0.20
//
// The checks are "tasks" (no task lost: "3 tasks lost"), "memory" (the
// memory of every agent that is not stopped matches its checkpoint's
// checksum) and "dag" (the DAG is the canonical one).
//
// # Faults
//
// A fault lands at once or returns an error: [fault.ErrNoAgent], [ErrNoNode]
// or [ErrNoEdge] for an unknown target, [fault.ErrCannotLand] when the target's state
// rules it out (stop a stopped agent, pause one that is not running, resume
// one that is not paused, partition a partitioned one, disconnect a
// disconnected MCP, corrupt a stopped agent's memory, remove a missing node
// or edge). The kills land through StopAgent; every other type through the
// method of the capability its spec names ([fault.Spec.Capability]:
// PauseAgent of fault.Pauser, …, JumpClock of fault.ClockJumper; RemoveNode
// and RemoveEdge of fault.DAGProvider). What each does, and what heals it
// ([Healing] knob, default):
//
//	fault              effect                                        healed by
//	kill_leader        holder stopped: "leader unavailable"          election (Failover, 1s + [0, 500ms)),
//	                                                                 restart (Resurrection, 2s)
//	kill_orchestrator  holder stopped: "orchestrator unavailable";   as kill_leader; the queue drains once an
//	                   new tasks queue                               orchestrator is available
//	kill_agent         stopped; its tasks requeued from the ledger   restart (Resurrection, 2s); requeue
//	                   (LOST without checkpoints); "quorum lost"     (Checkpoints)
//	                   when too few workers remain
//	pause_agent        paused: unavailable, no tasks, its tasks      ResumeAgent, its lift; election for a
//	                   requeued (LOST without checkpoints)           role holder (Failover)
//	resume_agent       a paused agent runs again                     (it is a healing)
//	slow_agent         attempts take longer, fail past TaskTimeout;  retries, reroutes (Retries); election
//	                   unavailable beyond ElectionTimeout            (Failover); its lift
//	network_partition  unavailable, no tasks, its attempts fail      heal (PartitionHealing, 3s); reroutes
//	                                                                 (Retries); election (Failover); its lift
//	tool_timeout       attempts fail after the timeout               retries, reroutes (Retries); its lift
//	memory_corrupt     checksum mismatch: its attempts fail,         next checkpoint tick (Checkpoints, 1s);
//	                   "memory" check fails                          restart; retries, reroutes (Retries)
//	mcp_disconnect     attempts fail                                 reconnect (MCPReconnect, 1s); retries,
//	                                                                 reroutes (Retries); its lift
//	llm_failure        attempts fail; invalid_response is only       retries, reroutes (Retries); its lift
//	                   rerouted, never retried
//	remove_node        "dag broken"; the node's worker, or every     repair (DAGRepair, 1s)
//	                   worker below a role node, gets no tasks
//	remove_edge        "dag broken"; the edge's target gets no tasks repair (DAGRepair, 1s)
//	network_latency    attempts over its links take latency ± jitter retries, reroutes (Retries); election
//	                   longer, fail past TaskTimeout; unavailable    (Failover); its lift
//	                   beyond ElectionTimeout
//	network_bandwidth  attempts over its links take 32 kB / rate     retries, reroutes (Retries); its lift
//	                   longer, fail past TaskTimeout
//	connection_reset   attempts over its links fail at once, or      retries (a fresh connection may get
//	                   when they have run for after                  through), reroutes (Retries); its lift
//	clock_jump         its clock is offset ahead: beyond             election (Failover); its lift
//	                   ElectionTimeout the others reject its
//	                   heartbeats as from the future: unavailable
//
// The method of every type arena lifts ([fault.Spec].Lifts; its row
// says "its lift") hands back the fault's [fault.Lift], which ends that
// fault on the agent; lifting a fault that is no longer active does
// nothing. Of those, a partition and an MCP disconnect also end by
// themselves (PartitionHealing, MCPReconnect), and a pause when
// resume_agent lands; the others stay until lifted: a healthy cluster heals
// them by routing around them (retries, reroutes, election), which keeps
// its error rate low.
//
// # Network faults
//
// Tasks travel over the link between the orchestrator and a worker; a
// network fault on either end ([Cluster.InjectLatency],
// [Cluster.LimitBandwidth], [Cluster.ResetConnections]) acts on each attempt
// over it, decided when the attempt starts, by arena's one set of network
// rules (the ones netfault applies too). A latency adds latency plus a
// uniform draw in [−jitter, +jitter] (never below zero; drawn from a seeded
// stream of its own) once per attempt, whatever its direction, and only on
// the link to its peer when it has one; two latencies on the two ends add
// up. A bandwidth cap adds the time to move 32 kB at the lower of the two
// ends' rates. A reset fails the attempt at once, or when it has run for
// after if it would run that long; the failure is retryable. A partition of
// either end fails the attempt. Every sum saturates: no accepted value
// overflows. The leader has no task links: a latency beyond ElectionTimeout
// makes it (like any agent) unavailable, which election heals.
package fakes

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/heapq"
	"github.com/ares-arena/arena/internal/netrules"
)

// Errors of fault injection of the DAG, wrapped with the target's ID; an
// unknown agent is fault.ErrNoAgent, and a fault the target's state rules
// out (stop a stopped agent, resume a running one, remove a removed edge,
// …) fault.ErrCannotLand.
var (
	// ErrNoNode: the canonical DAG has no such node.
	ErrNoNode = errors.New("no such node")
	// ErrNoEdge: the canonical DAG has no such edge.
	ErrNoEdge = errors.New("no such edge")
)

var (
	_ fault.RuntimeProvider = (*Cluster)(nil)
	_ fault.DAGProvider     = (*Cluster)(nil)
)

// Cluster is an in-memory, clock-driven agent cluster. It is safe for
// concurrent use.
type Cluster struct {
	mu    sync.Mutex
	opts  options
	clock clock.Clock
	start time.Time
	now   time.Duration // simulated time since start; never decreases

	agents []agent // in ID order; an agent's index is its node index
	index  map[string]int
	roles  [2]role // roleLeader, roleOrchestrator
	// upWorkers counts the agents with upWorker set, so a probe reads the
	// quorum without walking the agents. touch keeps it true.
	upWorkers int
	// The last unhealthy probe's verdict and error (verdict).
	lastVerdict probeVerdict
	lastErr     error
	// agentLog records each touch, for the agent feed (AppendAgentChanges):
	// every change of a listing is followed by a touch.
	agentLog changeLog
	// corrupt lists, once each, the agents whose memory may not match
	// their checkpoint (every corrupted agent is on it), so a checkpoint
	// tick does not walk the agents.
	corrupt []int

	dag    dagState
	work   workload
	events heapq.Heap[event, *event]
	seq    uint64
	// compactAt is the queue length at which schedule next drops stale
	// deadlines: twice what was live after the last time.
	compactAt int

	// One stream per purpose, so that faults (which draw election jitter and
	// corruption masks) do not shift the workload's arrivals.
	rngArrival, rngDuration, rngElection, rngMemory, rngNetwork *rand.Rand
}

// AgentState is a snapshot of one agent, faults included.
type AgentState struct {
	ID              string
	Type            string
	Status          fault.AgentStatus
	Restarts        int
	SlowDelay       time.Duration
	Partitioned     bool
	ToolTimeout     time.Duration // 0: none
	MCPDisconnected bool
	LLMFailure      fault.LLMErrorType // "": none
	MemoryCorrupted bool
	Latency         fault.Latency // Latency.Latency 0: none
	Bandwidth       int64         // bytes per second; 0: no cap
	Resetting       bool          // connection_reset is active
	ClockOffset     time.Duration // how far clock_jump put its clock ahead; 0: none
}

type agent struct {
	id          string
	typ         string
	status      fault.AgentStatus
	restarts    int
	slow        time.Duration
	partitioned bool
	toolTimeout time.Duration
	mcpDown     bool
	llm         fault.LLMErrorType
	net         netrules.Faults // the network faults on its links (not its partition: partitioned)
	clock       time.Duration   // clock_jump's offset

	mem     uint64 // memory contents
	ckpt    uint64 // contents at the last good checkpoint
	ckptSum uint64 // checksum recorded with the checkpoint

	// faultEpoch counts faults landed that fail attempts, so an attempt can
	// tell that one landed while it ran, even if it was lifted since.
	faultEpoch uint64
	// Generations of the agent's pending deadlines; a deadline carrying an
	// older generation is stale.
	lifeGen, partGen, mcpGen uint32
	// upWorker: of type worker and available, as of the last touch.
	upWorker bool
	// listed: on the cluster's corrupt list.
	listed bool
}

func (a *agent) corrupted() bool { return checksum(a.mem) != a.ckptSum }

const (
	roleLeader = iota
	roleOrchestrator
)

type role struct {
	typ     string
	holder  int
	pending bool   // an election is scheduled
	epoch   uint32 // bumped when an election is scheduled, cancelled or held
}

// NewCluster returns a cluster at its start: every agent running, the DAG
// intact, no task yet. Invalid options panic.
func NewCluster(opts ...Option) *Cluster {
	o := defaultOptions()
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&o)
		}
	}
	c := &Cluster{
		opts:        o,
		clock:       o.clock,
		start:       o.clock.Now(),
		index:       make(map[string]int, o.workers+2),
		rngArrival:  rand.New(rand.NewPCG(o.seed, 0x9e3779b97f4a7c15)),
		rngDuration: rand.New(rand.NewPCG(o.seed, 0xbf58476d1ce4e5b9)),
		rngElection: rand.New(rand.NewPCG(o.seed, 0x94d049bb133111eb)),
		rngMemory:   rand.New(rand.NewPCG(o.seed, 0xd6e8feb86659fd93)),
		rngNetwork:  rand.New(rand.NewPCG(o.seed, 0xa0761d6478bd642f)),
	}
	// IDs sort as strings: worker-10 comes before worker-2.
	ids := []string{"leader-0", "orchestrator-0"}
	types := map[string]string{"leader-0": fault.TypeLeader, "orchestrator-0": fault.TypeOrchestrator}
	for i := 1; i <= o.workers; i++ {
		id := fmt.Sprintf("worker-%d", i)
		ids = append(ids, id)
		types[id] = fault.TypeWorker
	}
	slices.Sort(ids)
	for i, id := range ids {
		mem := checksum(o.seed + uint64(i) + 1)
		c.agents = append(c.agents, agent{
			id: id, typ: types[id], status: fault.StatusRunning,
			mem: mem, ckpt: mem, ckptSum: checksum(mem),
		})
		c.index[id] = i
		c.touch(i)
	}
	c.roles[roleLeader] = role{typ: fault.TypeLeader, holder: c.index["leader-0"]}
	c.roles[roleOrchestrator] = role{typ: fault.TypeOrchestrator, holder: c.index["orchestrator-0"]}
	c.dag.init(c)
	c.work.init()
	c.scheduleArrival()
	if o.healing.Checkpoints {
		c.schedule(o.healing.CheckpointInterval, evCheckpoint, 0, 0)
	}
	return c
}

// checksum is the splitmix64 finaliser: a bijection, so two different memory
// contents never share a checksum.
func checksum(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (c *Cluster) lookup(id string) (int, error) {
	i, ok := c.index[id]
	if !ok {
		return 0, fmt.Errorf("fakes: agent %q: %w", id, fault.ErrNoAgent)
	}
	return i, nil
}

// available reports whether agent i can serve: running, not partitioned,
// and neither slowed, behind a latency nor with its clock ahead by more
// than the election timeout.
func (c *Cluster) available(i int) bool {
	a := &c.agents[i]
	return a.status == fault.StatusRunning && !a.partitioned && a.slow <= c.opts.healing.ElectionTimeout &&
		a.net.Latency.Latency <= c.opts.healing.ElectionTimeout && a.clock <= c.opts.healing.ElectionTimeout
}

// routable reports whether the orchestrator may send agent i a task.
func (c *Cluster) routable(i int) bool {
	a := &c.agents[i]
	return a.typ == fault.TypeWorker && a.status == fault.StatusRunning && !a.partitioned && c.dag.reachable(i)
}

func (c *Cluster) unavailableReason(i int) string {
	a := &c.agents[i]
	switch k := c.unavailableKey(i); k.why {
	case whyStatus:
		return a.id + " " + string(a.status)
	case whyPartitioned:
		return a.id + " partitioned"
	case whyLatency:
		return a.id + " behind a latency of " + k.d.String()
	case whyClock:
		return a.id + " with its clock " + k.d.String() + " ahead"
	default:
		return a.id + " slowed by " + k.d.String()
	}
}

// unavailable is what unavailableReason says of an agent: which reason,
// the agent and the status or duration it names.
type unavailable struct {
	agent  int
	why    uint8
	status fault.AgentStatus
	d      time.Duration
}

const (
	whyStatus = iota + 1
	whyPartitioned
	whyLatency
	whyClock
	whySlow
)

func (c *Cluster) unavailableKey(i int) unavailable {
	a := &c.agents[i]
	switch {
	case a.status != fault.StatusRunning:
		return unavailable{agent: i, why: whyStatus, status: a.status}
	case a.partitioned:
		return unavailable{agent: i, why: whyPartitioned}
	case a.net.Latency.Latency > c.opts.healing.ElectionTimeout:
		return unavailable{agent: i, why: whyLatency, d: a.net.Latency.Latency}
	case a.clock > c.opts.healing.ElectionTimeout:
		return unavailable{agent: i, why: whyClock, d: a.clock}
	default:
		return unavailable{agent: i, why: whySlow, d: a.slow}
	}
}

// Clock returns the clock the cluster follows.
func (c *Cluster) Clock() clock.Clock { return c.clock }

var _ clock.VirtualSystem = (*Cluster)(nil)

// VirtualClock returns the cluster's clock when it is virtual (nil
// otherwise): the cluster keeps no goroutines or timers of its own, and
// every transition it schedules is evaluated against the clock, so arena
// may run it in virtual time (clock.VirtualSystem).
func (c *Cluster) VirtualClock() *clock.Virtual {
	vc, _ := c.clock.(*clock.Virtual)
	return vc
}

// Leader returns the ID of the agent holding the leader role.
func (c *Cluster) Leader() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	return c.agents[c.roles[roleLeader].holder].id
}

// Orchestrator returns the ID of the agent holding the orchestrator role.
func (c *Cluster) Orchestrator() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	return c.agents[c.roles[roleOrchestrator].holder].id
}

// Agent returns a snapshot of the agent with this ID.
func (c *Cluster) Agent(id string) (AgentState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	i, ok := c.index[id]
	if !ok {
		return AgentState{}, false
	}
	a := &c.agents[i]
	return AgentState{
		ID: a.id, Type: a.typ, Status: a.status, Restarts: a.restarts,
		SlowDelay: a.slow, Partitioned: a.partitioned, ToolTimeout: a.toolTimeout,
		MCPDisconnected: a.mcpDown, LLMFailure: a.llm, MemoryCorrupted: a.corrupted(),
		Latency: a.net.Latency, Bandwidth: a.net.Rate, Resetting: a.net.Reset, ClockOffset: a.clock,
	}, true
}

// ListAgents returns every agent in ID order.
func (c *Cluster) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.AppendAgents(ctx, make([]fault.AgentInfo, 0, len(c.agents)))
}

// AppendAgents appends every agent, in ID order, to dst and returns the
// extended slice: ListAgents for callers that list often and keep a buffer
// (a survival run lists before every injection).
func (c *Cluster) AppendAgents(ctx context.Context, dst []fault.AgentInfo) ([]fault.AgentInfo, error) {
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	for i := range c.agents {
		a := &c.agents[i]
		dst = append(dst, fault.AgentInfo{ID: a.id, Type: a.typ, Status: a.status, Restarts: a.restarts})
	}
	return dst, nil
}

// Probe returns nil when the cluster is healthy, else an error naming the
// first reason found (see the package documentation). It does not allocate
// when healthy, and its work does not grow with the number of agents (it
// reads a count of the available workers, kept as they change).
func (c *Cluster) Probe(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	if h := c.roles[roleLeader].holder; !c.available(h) {
		return c.verdict(probeVerdict{kind: verdictLeader, reason: c.unavailableKey(h)}, func() string {
			return "leader unavailable: " + c.unavailableReason(h)
		})
	}
	if h := c.roles[roleOrchestrator].holder; !c.available(h) {
		return c.verdict(probeVerdict{kind: verdictOrchestrator, reason: c.unavailableKey(h)}, func() string {
			return "orchestrator unavailable: " + c.unavailableReason(h)
		})
	}
	if n := c.opts.workers; c.upWorkers < n/2+1 {
		return c.verdict(probeVerdict{kind: verdictQuorum, a: uint64(c.upWorkers)}, func() string {
			return fmt.Sprintf("quorum lost: %d of %d workers available", c.upWorkers, n)
		})
	}
	if c.dag.missing > 0 {
		return c.verdict(probeVerdict{kind: verdictDAG, a: c.dag.nodeLog.cursor(), b: c.dag.edgeLog.cursor()}, func() string {
			return "dag broken: " + c.dag.firstMissing(c)
		})
	}
	if r := c.work.errorRate(c.now, c.opts.errorWindow); r > c.opts.errorThreshold {
		return c.verdict(probeVerdict{kind: verdictErrorRate, a: uint64(c.work.bad), b: uint64(c.work.ok)}, func() string {
			return fmt.Sprintf("error rate %.2f above %.2f", r, c.opts.errorThreshold)
		})
	}
	return nil
}

// probeVerdict is what an unhealthy probe's message is made of, so that a
// probe finding what the last one found returns its error again instead of
// making the same message: an outage is sampled ten times a second.
type probeVerdict struct {
	kind   uint8
	reason unavailable // of the role's holder
	a, b   uint64      // the counts or versions the message reads
}

const (
	verdictLeader = iota + 1
	verdictOrchestrator
	verdictQuorum
	verdictDAG
	verdictErrorRate
)

// verdict returns the error of v: the last one made, if the last unhealthy
// probe found v too.
func (c *Cluster) verdict(v probeVerdict, message func() string) error {
	if v != c.lastVerdict || c.lastErr == nil {
		c.lastVerdict, c.lastErr = v, errors.New(message())
	}
	return c.lastErr
}

// touch brings agent i's upWorker, and the count of them, up to date. Every
// change of what available reads (an agent's type, status, partition,
// slowness, latency or clock offset) is followed by a touch of the agent:
// inject touches after every fault and lift.
func (c *Cluster) touch(i int) {
	c.agentLog.add(i, len(c.agents))
	a := &c.agents[i]
	up := a.typ == fault.TypeWorker && c.available(i)
	if up != a.upWorker {
		a.upWorker = up
		if up {
			c.upWorkers++
		} else {
			c.upWorkers--
		}
	}
}

// ProbeFunc returns Probe as a fault.Probe.
func (c *Cluster) ProbeFunc() fault.Probe { return c.Probe }

// Checks returns the consistency checks "tasks", "memory" and "dag".
func (c *Cluster) Checks() []fault.Check {
	return []fault.Check{
		{Name: "tasks", Run: c.checkTasks},
		{Name: "memory", Run: c.checkMemory},
		{Name: "dag", Run: c.checkDAG},
	}
}

func (c *Cluster) checkTasks(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	switch n := c.work.stats.Lost; n {
	case 0:
		return nil
	case 1:
		return errors.New("1 task lost")
	default:
		return fmt.Errorf("%d tasks lost", n)
	}
}

func (c *Cluster) checkMemory(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	var bad []string
	for i := range c.agents {
		if a := &c.agents[i]; a.status != fault.StatusStopped && a.corrupted() {
			bad = append(bad, a.id)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("memory does not match its checkpoint checksum: %s", strings.Join(bad, ", "))
	}
	return nil
}

func (c *Cluster) checkDAG(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	if c.dag.missing == 0 {
		return nil
	}
	return errors.New("dag differs from canonical: " + strings.Join(c.dag.allMissing(c), ", "))
}

// Tasks returns the task ledger's counters. Created = Completed + Failed +
// Lost + InFlight + Queued.
func (c *Cluster) Tasks() TaskStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	s := c.work.stats
	s.Queued = c.work.queue.len()
	s.InFlight = len(c.work.tasks) - len(c.work.free) - s.Queued
	return s
}

// ErrorRate returns terminal failures over finished tasks within the error
// window, 0 when none finished.
func (c *Cluster) ErrorRate() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance()
	return c.work.errorRate(c.now, c.opts.errorWindow)
}
