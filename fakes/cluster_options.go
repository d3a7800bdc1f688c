package fakes

import (
	"fmt"
	"math"
	"time"

	"github.com/ares-arena/arena"
)

// Option configures a Cluster. Options are small comparable values, so tests
// can compare them; invalid values panic when NewCluster applies them.
type Option interface{ apply(*options) }

type options struct {
	workers        int
	seed           uint64
	clock          arena.Clock
	taskInterval   time.Duration
	taskDuration   time.Duration
	taskTimeout    time.Duration
	errorThreshold float64
	errorWindow    time.Duration
	healing        Healing
}

// Workload and health defaults.
const (
	DefaultWorkers        = 3
	DefaultSeed           = 1
	DefaultTaskInterval   = 250 * time.Millisecond
	DefaultTaskDuration   = 200 * time.Millisecond
	DefaultTaskTimeout    = 3 * time.Second
	DefaultErrorThreshold = 0.2
	DefaultErrorWindow    = 2 * time.Second
)

func defaultOptions() options {
	return options{
		workers:        DefaultWorkers,
		seed:           DefaultSeed,
		clock:          arena.RealClock{},
		taskInterval:   DefaultTaskInterval,
		taskDuration:   DefaultTaskDuration,
		taskTimeout:    DefaultTaskTimeout,
		errorThreshold: DefaultErrorThreshold,
		errorWindow:    DefaultErrorWindow,
		healing:        DefaultHealing(),
	}
}

// Healing holds the self-healing mechanisms of a Cluster and their knobs.
// A mechanism that is off keeps its durations; they are ignored, except
// ElectionTimeout, which is also the slowness above which a role holder or a
// worker counts as unavailable.
type Healing struct {
	// Resurrection starts a stopped agent again after ResurrectionDelay,
	// with its memory restored from its last checkpoint.
	Resurrection      bool
	ResurrectionDelay time.Duration

	// Failover elects a new leader or orchestrator (the lowest-ID available
	// worker) when the holder has been unavailable for ElectionTimeout plus
	// a seeded jitter in [0, ElectionJitter).
	Failover        bool
	ElectionTimeout time.Duration
	ElectionJitter  time.Duration

	// Checkpoints snapshots every agent's memory each CheckpointInterval,
	// restores corrupted memory at the next tick, and keeps the task ledger
	// that lets the tasks of a killed or paused worker be requeued.
	Checkpoints        bool
	CheckpointInterval time.Duration

	// DAGRepair restores a removed node or edge after DAGRepairDelay.
	DAGRepair      bool
	DAGRepairDelay time.Duration

	// Retries retries a failed attempt on the same worker up to MaxRetries
	// times, waiting Backoff, 2×Backoff, 4×Backoff…, then reroutes the task
	// to another worker at most MaxReroutes times.
	Retries     bool
	MaxRetries  int
	Backoff     time.Duration
	MaxReroutes int

	// PartitionHealing heals a partitioned agent's network after
	// PartitionHealDelay.
	PartitionHealing   bool
	PartitionHealDelay time.Duration

	// MCPReconnect reconnects a disconnected MCP session after
	// MCPReconnectDelay.
	MCPReconnect      bool
	MCPReconnectDelay time.Duration
}

// DefaultHealing returns every mechanism on with its default knobs:
// resurrection 2s, election 1s + [0, 500ms), checkpoints every 1s, DAG repair
// 1s, 3 retries from 100ms doubling and 2 reroutes, partition healing 3s, MCP
// reconnect 1s.
func DefaultHealing() Healing {
	return Healing{
		Resurrection: true, ResurrectionDelay: 2 * time.Second,
		Failover: true, ElectionTimeout: time.Second, ElectionJitter: 500 * time.Millisecond,
		Checkpoints: true, CheckpointInterval: time.Second,
		DAGRepair: true, DAGRepairDelay: time.Second,
		Retries: true, MaxRetries: 3, Backoff: 100 * time.Millisecond, MaxReroutes: 2,
		PartitionHealing: true, PartitionHealDelay: 3 * time.Second,
		MCPReconnect: true, MCPReconnectDelay: time.Second,
	}
}

// problem returns what is wrong with h, or "".
func (h Healing) problem() string {
	durations := []struct {
		name string
		d    time.Duration
	}{
		{"ResurrectionDelay", h.ResurrectionDelay}, {"ElectionTimeout", h.ElectionTimeout},
		{"ElectionJitter", h.ElectionJitter}, {"CheckpointInterval", h.CheckpointInterval},
		{"DAGRepairDelay", h.DAGRepairDelay}, {"Backoff", h.Backoff},
		{"PartitionHealDelay", h.PartitionHealDelay}, {"MCPReconnectDelay", h.MCPReconnectDelay},
	}
	for _, f := range durations {
		if f.d < 0 {
			return fmt.Sprintf("%s is negative (%s)", f.name, f.d)
		}
	}
	switch {
	case h.MaxRetries < 0:
		return fmt.Sprintf("MaxRetries is negative (%d)", h.MaxRetries)
	case h.MaxReroutes < 0:
		return fmt.Sprintf("MaxReroutes is negative (%d)", h.MaxReroutes)
	case h.Checkpoints && h.CheckpointInterval == 0:
		return "CheckpointInterval must be positive when Checkpoints is on"
	case h.Failover && h.ElectionTimeout == 0:
		return "ElectionTimeout must be positive when Failover is on"
	}
	return ""
}

func mustNonNegative(option string, d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("fakes: %s(%s): negative duration", option, d))
	}
}

func mustPositive(option string, d time.Duration) {
	if d <= 0 {
		panic(fmt.Sprintf("fakes: %s(%s): duration must be positive", option, d))
	}
}

type workersOption int

func (o workersOption) apply(opts *options) {
	if o < 1 {
		panic(fmt.Sprintf("fakes: WithWorkers(%d): need at least one worker", int(o)))
	}
	opts.workers = int(o)
}

// WithWorkers sets the number of workers, worker-1 … worker-n (default 3).
// n < 1 panics.
func WithWorkers(n int) Option { return workersOption(n) }

type seedOption uint64

func (o seedOption) apply(opts *options) { opts.seed = uint64(o) }

// WithSeed seeds every random choice of the cluster (default 1): task
// arrivals and durations, election jitter, memory corruption.
func WithSeed(seed uint64) Option { return seedOption(seed) }

type clockOption struct{ clock arena.Clock }

func (o clockOption) apply(opts *options) {
	if o.clock == nil {
		panic("fakes: WithClock(nil): need a clock")
	}
	opts.clock = o.clock
}

// WithClock sets the clock the simulation follows (default arena.RealClock{}).
// Its reading at NewCluster is the simulation's time zero.
func WithClock(c arena.Clock) Option { return clockOption{c} }

type taskIntervalOption time.Duration

func (o taskIntervalOption) apply(opts *options) {
	mustPositive("WithTaskInterval", time.Duration(o))
	opts.taskInterval = time.Duration(o)
}

// WithTaskInterval sets the mean time between task arrivals (default 250ms,
// ±20% seeded jitter).
func WithTaskInterval(d time.Duration) Option { return taskIntervalOption(d) }

type taskDurationOption time.Duration

func (o taskDurationOption) apply(opts *options) {
	mustNonNegative("WithTaskDuration", time.Duration(o))
	opts.taskDuration = time.Duration(o)
}

// WithTaskDuration sets the mean duration of an attempt on a healthy worker
// (default 200ms, ±25% seeded jitter).
func WithTaskDuration(d time.Duration) Option { return taskDurationOption(d) }

type taskTimeoutOption time.Duration

func (o taskTimeoutOption) apply(opts *options) {
	mustPositive("WithTaskTimeout", time.Duration(o))
	opts.taskTimeout = time.Duration(o)
}

// WithTaskTimeout sets the time after which an attempt fails (default 3s).
func WithTaskTimeout(d time.Duration) Option { return taskTimeoutOption(d) }

type errorThresholdOption float64

func (o errorThresholdOption) apply(opts *options) {
	f := float64(o)
	if math.IsNaN(f) || f < 0 || f > 1 {
		panic(fmt.Sprintf("fakes: WithErrorThreshold(%v): want a value in [0, 1]", f))
	}
	opts.errorThreshold = f
}

// WithErrorThreshold sets the error rate above which the probe reports the
// cluster unhealthy (default 0.2).
func WithErrorThreshold(f float64) Option { return errorThresholdOption(f) }

type errorWindowOption time.Duration

func (o errorWindowOption) apply(opts *options) {
	mustPositive("WithErrorWindow", time.Duration(o))
	opts.errorWindow = time.Duration(o)
}

// WithErrorWindow sets the sliding window of the error rate (default 2s).
func WithErrorWindow(d time.Duration) Option { return errorWindowOption(d) }

type healingOption Healing

func (o healingOption) apply(opts *options) {
	if p := Healing(o).problem(); p != "" {
		panic("fakes: WithHealing: " + p)
	}
	opts.healing = Healing(o)
}

// WithHealing replaces every healing mechanism and knob with h.
func WithHealing(h Healing) Option { return healingOption(h) }

type withoutHealingOption struct{}

func (withoutHealingOption) apply(opts *options) {
	h := &opts.healing
	h.Resurrection, h.Failover, h.Checkpoints, h.DAGRepair = false, false, false, false
	h.Retries, h.PartitionHealing, h.MCPReconnect = false, false, false
}

// WithoutHealing switches every mechanism off (knobs keep their values).
func WithoutHealing() Option { return withoutHealingOption{} }

type resurrectionOption struct {
	on    bool
	delay time.Duration
}

func (o resurrectionOption) apply(opts *options) {
	mustNonNegative("WithResurrection", o.delay)
	opts.healing.Resurrection = o.on
	if o.on {
		opts.healing.ResurrectionDelay = o.delay
	}
}

// WithResurrection turns resurrection on with the given delay.
func WithResurrection(delay time.Duration) Option { return resurrectionOption{true, delay} }

// WithoutResurrection turns resurrection off: a stopped agent stays stopped.
func WithoutResurrection() Option { return resurrectionOption{} }

type failoverOption struct {
	on              bool
	timeout, jitter time.Duration
}

func (o failoverOption) apply(opts *options) {
	if o.on {
		mustPositive("WithFailover", o.timeout)
		mustNonNegative("WithFailover", o.jitter)
		opts.healing.ElectionTimeout, opts.healing.ElectionJitter = o.timeout, o.jitter
	}
	opts.healing.Failover = o.on
}

// WithFailover turns failover on with the given election timeout and jitter.
func WithFailover(timeout, jitter time.Duration) Option {
	return failoverOption{true, timeout, jitter}
}

// WithoutFailover turns failover off: roles stay with their holders.
func WithoutFailover() Option { return failoverOption{} }

type checkpointsOption struct {
	on       bool
	interval time.Duration
}

func (o checkpointsOption) apply(opts *options) {
	if o.on {
		mustPositive("WithCheckpoints", o.interval)
		opts.healing.CheckpointInterval = o.interval
	}
	opts.healing.Checkpoints = o.on
}

// WithCheckpoints turns checkpoints on with the given interval.
func WithCheckpoints(interval time.Duration) Option { return checkpointsOption{true, interval} }

// WithoutCheckpoints turns checkpoints off: corrupted memory stays corrupted
// (until a resurrection) and a killed worker's tasks are lost.
func WithoutCheckpoints() Option { return checkpointsOption{} }

type dagRepairOption struct {
	on    bool
	delay time.Duration
}

func (o dagRepairOption) apply(opts *options) {
	mustNonNegative("WithDAGRepair", o.delay)
	opts.healing.DAGRepair = o.on
	if o.on {
		opts.healing.DAGRepairDelay = o.delay
	}
}

// WithDAGRepair turns DAG repair on with the given delay.
func WithDAGRepair(delay time.Duration) Option { return dagRepairOption{true, delay} }

// WithoutDAGRepair turns DAG repair off: removed nodes and edges stay removed.
func WithoutDAGRepair() Option { return dagRepairOption{} }

type retriesOption struct {
	on      bool
	max     int
	backoff time.Duration
}

func (o retriesOption) apply(opts *options) {
	if o.on {
		if o.max < 0 {
			panic(fmt.Sprintf("fakes: WithRetries(%d, %s): negative retry count", o.max, o.backoff))
		}
		mustNonNegative("WithRetries", o.backoff)
		opts.healing.MaxRetries, opts.healing.Backoff = o.max, o.backoff
	}
	opts.healing.Retries = o.on
}

// WithRetries turns retries (and reroutes) on with the given retry count and
// initial backoff.
func WithRetries(max int, backoff time.Duration) Option { return retriesOption{true, max, backoff} }

// WithoutRetries turns retries and reroutes off: a task's first failure is
// terminal.
func WithoutRetries() Option { return retriesOption{} }

type partitionHealingOption struct {
	on    bool
	delay time.Duration
}

func (o partitionHealingOption) apply(opts *options) {
	mustNonNegative("WithPartitionHealing", o.delay)
	opts.healing.PartitionHealing = o.on
	if o.on {
		opts.healing.PartitionHealDelay = o.delay
	}
}

// WithPartitionHealing turns partition healing on with the given delay.
func WithPartitionHealing(delay time.Duration) Option { return partitionHealingOption{true, delay} }

// WithoutPartitionHealing turns partition healing off: a partition lasts
// until LiftFault.
func WithoutPartitionHealing() Option { return partitionHealingOption{} }

type mcpReconnectOption struct {
	on    bool
	delay time.Duration
}

func (o mcpReconnectOption) apply(opts *options) {
	mustNonNegative("WithMCPReconnect", o.delay)
	opts.healing.MCPReconnect = o.on
	if o.on {
		opts.healing.MCPReconnectDelay = o.delay
	}
}

// WithMCPReconnect turns MCP reconnection on with the given delay.
func WithMCPReconnect(delay time.Duration) Option { return mcpReconnectOption{true, delay} }

// WithoutMCPReconnect turns MCP reconnection off: a disconnect lasts until
// LiftFault.
func WithoutMCPReconnect() Option { return mcpReconnectOption{} }
