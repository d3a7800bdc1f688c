package fakes

import (
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/ares-arena/arena/clock"
)

// Option configures a Cluster. Options are small comparable values, so tests
// can compare them; invalid values panic when NewCluster applies them.
type Option interface{ apply(*options) }

type options struct {
	workers        int
	seed           uint64
	clock          clock.Clock
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
		clock:          clock.Real{},
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

// problem returns what is wrong with h, or "": a negative knob (the
// durations first, then the counts, each in field order, read off the
// struct so that a new knob is checked too), or Checkpoints or Failover on
// with a zero interval or timeout.
func (h Healing) problem() string {
	v := reflect.ValueOf(h)
	for _, kind := range []reflect.Type{reflect.TypeFor[time.Duration](), reflect.TypeFor[int]()} {
		for i := range v.NumField() {
			if f := v.Field(i); f.Type() == kind && f.Int() < 0 {
				return fmt.Sprintf("%s is negative (%v)", v.Type().Field(i).Name, f)
			}
		}
	}
	switch {
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

type clockOption struct{ clock clock.Clock }

func (o clockOption) apply(opts *options) {
	if o.clock == nil {
		panic("fakes: WithClock(nil): need a clock")
	}
	opts.clock = o.clock
}

// WithClock sets the clock the simulation follows (default clock.Real{}).
// Its reading at NewCluster is the simulation's time zero.
func WithClock(c clock.Clock) Option { return clockOption{c} }

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
	for _, m := range mechanisms {
		*m.on(&opts.healing) = false
	}
}

// WithoutHealing switches every mechanism off (knobs keep their values).
func WithoutHealing() Option { return withoutHealingOption{} }

// mechanism names one self-healing mechanism of Healing: an index into
// mechanisms.
type mechanism uint8

const (
	mechResurrection mechanism = iota
	mechFailover
	mechCheckpoints
	mechDAGRepair
	mechRetries
	mechPartitionHealing
	mechMCPReconnect
)

// knobs are the values a WithX option gives its mechanism, in the order of
// its parameters; a mechanism reads the ones it has.
type knobs struct {
	d1, d2 time.Duration
	n      int
}

// mechanisms says, for each mechanism, where its switch is in Healing and
// how its WithX option checks and stores its knobs (panicking, in the
// option's name, on an invalid one). Adding a mechanism is one entry here,
// its Healing fields and its WithX/WithoutX pair; WithoutHealing and
// TestMechanismsCoverHealing follow the table.
var mechanisms = [...]struct {
	on  func(*Healing) *bool
	set func(*Healing, knobs)
}{
	mechResurrection: {
		func(h *Healing) *bool { return &h.Resurrection },
		func(h *Healing, k knobs) {
			mustNonNegative("WithResurrection", k.d1)
			h.ResurrectionDelay = k.d1
		},
	},
	mechFailover: {
		func(h *Healing) *bool { return &h.Failover },
		func(h *Healing, k knobs) {
			mustPositive("WithFailover", k.d1)
			mustNonNegative("WithFailover", k.d2)
			h.ElectionTimeout, h.ElectionJitter = k.d1, k.d2
		},
	},
	mechCheckpoints: {
		func(h *Healing) *bool { return &h.Checkpoints },
		func(h *Healing, k knobs) {
			mustPositive("WithCheckpoints", k.d1)
			h.CheckpointInterval = k.d1
		},
	},
	mechDAGRepair: {
		func(h *Healing) *bool { return &h.DAGRepair },
		func(h *Healing, k knobs) {
			mustNonNegative("WithDAGRepair", k.d1)
			h.DAGRepairDelay = k.d1
		},
	},
	mechRetries: {
		func(h *Healing) *bool { return &h.Retries },
		func(h *Healing, k knobs) {
			if k.n < 0 {
				panic(fmt.Sprintf("fakes: WithRetries(%d, %s): negative retry count", k.n, k.d1))
			}
			mustNonNegative("WithRetries", k.d1)
			h.MaxRetries, h.Backoff = k.n, k.d1
		},
	},
	mechPartitionHealing: {
		func(h *Healing) *bool { return &h.PartitionHealing },
		func(h *Healing, k knobs) {
			mustNonNegative("WithPartitionHealing", k.d1)
			h.PartitionHealDelay = k.d1
		},
	},
	mechMCPReconnect: {
		func(h *Healing) *bool { return &h.MCPReconnect },
		func(h *Healing, k knobs) {
			mustNonNegative("WithMCPReconnect", k.d1)
			h.MCPReconnectDelay = k.d1
		},
	},
}

// mechanismOption is every WithX and WithoutX of one mechanism: on with its
// knobs, or off (knobs zero, and the mechanism's knobs in Healing kept).
// A comparable value, like every Option.
type mechanismOption struct {
	m  mechanism
	on bool
	k  knobs
}

func (o mechanismOption) apply(opts *options) {
	m := &mechanisms[o.m]
	if o.on {
		m.set(&opts.healing, o.k)
	}
	*m.on(&opts.healing) = o.on
}

func turnOn(m mechanism, k knobs) Option { return mechanismOption{m: m, on: true, k: k} }
func turnOff(m mechanism) Option         { return mechanismOption{m: m} }

// WithResurrection turns resurrection on with the given delay.
func WithResurrection(delay time.Duration) Option {
	return turnOn(mechResurrection, knobs{d1: delay})
}

// WithoutResurrection turns resurrection off: a stopped agent stays stopped.
func WithoutResurrection() Option { return turnOff(mechResurrection) }

// WithFailover turns failover on with the given election timeout and jitter.
func WithFailover(timeout, jitter time.Duration) Option {
	return turnOn(mechFailover, knobs{d1: timeout, d2: jitter})
}

// WithoutFailover turns failover off: roles stay with their holders.
func WithoutFailover() Option { return turnOff(mechFailover) }

// WithCheckpoints turns checkpoints on with the given interval.
func WithCheckpoints(interval time.Duration) Option {
	return turnOn(mechCheckpoints, knobs{d1: interval})
}

// WithoutCheckpoints turns checkpoints off: corrupted memory stays corrupted
// (until a resurrection) and a killed worker's tasks are lost.
func WithoutCheckpoints() Option { return turnOff(mechCheckpoints) }

// WithDAGRepair turns DAG repair on with the given delay.
func WithDAGRepair(delay time.Duration) Option { return turnOn(mechDAGRepair, knobs{d1: delay}) }

// WithoutDAGRepair turns DAG repair off: removed nodes and edges stay removed.
func WithoutDAGRepair() Option { return turnOff(mechDAGRepair) }

// WithRetries turns retries (and reroutes) on with the given retry count and
// initial backoff.
func WithRetries(max int, backoff time.Duration) Option {
	return turnOn(mechRetries, knobs{d1: backoff, n: max})
}

// WithoutRetries turns retries and reroutes off: a task's first failure is
// terminal.
func WithoutRetries() Option { return turnOff(mechRetries) }

// WithPartitionHealing turns partition healing on with the given delay.
func WithPartitionHealing(delay time.Duration) Option {
	return turnOn(mechPartitionHealing, knobs{d1: delay})
}

// WithoutPartitionHealing turns partition healing off: a partition lasts
// until lifted, by the fault.Lift that PartitionNetwork handed back (arena
// calls it at the fault's duration, on request, or when the run ends).
func WithoutPartitionHealing() Option { return turnOff(mechPartitionHealing) }

// WithMCPReconnect turns MCP reconnection on with the given delay.
func WithMCPReconnect(delay time.Duration) Option {
	return turnOn(mechMCPReconnect, knobs{d1: delay})
}

// WithoutMCPReconnect turns MCP reconnection off: a disconnect lasts until
// lifted, by the fault.Lift that DisconnectMCP handed back (arena calls it
// at the fault's duration, on request, or when the run ends).
func WithoutMCPReconnect() Option { return turnOff(mechMCPReconnect) }
