package containers

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/fault"
)

// Defaults of the options.
const (
	DefaultProject          = "arena"
	DefaultPartitionHealing = 3 * time.Second // as fakes' partition healing
	DefaultRestartDelay     = 100 * time.Millisecond
	DefaultProbeTimeout     = 100 * time.Millisecond
	DefaultControlTimeout   = 2 * time.Second
	DefaultStartTimeout     = time.Minute
	// DefaultSlowReference is the CPU time of the reference work unit that
	// slow_agent's delay is added to: see Runtime.SlowAgent.
	DefaultSlowReference = 100 * time.Millisecond
)

// Option configures a Runtime. Options are small named values (Uber's
// functional-options form), so that tests can compare them.
type Option interface{ apply(*options) }

type options struct {
	project       string
	labels        map[string]string
	agents        []agentSpec
	refWorkers    int
	refImage      string
	refEnv        map[string]string
	partitionHeal time.Duration
	killMode      KillMode
	restartDelay  time.Duration
	probeTimeout  time.Duration
	ctlTimeout    time.Duration
	startTimeout  time.Duration
	slowRef       time.Duration
	hooks         map[fault.Type]FaultHook
	logger        tclog.Logger
	roles         fault.RoleResolver
	quorum        bool
	links         []linkSpec
}

func defaultOptions() options {
	return options{
		project:       DefaultProject,
		refWorkers:    -1,
		partitionHeal: DefaultPartitionHealing,
		killMode:      KillAuto,
		restartDelay:  DefaultRestartDelay,
		probeTimeout:  DefaultProbeTimeout,
		ctlTimeout:    DefaultControlTimeout,
		startTimeout:  DefaultStartTimeout,
		slowRef:       DefaultSlowReference,
		logger:        tclog.NewNoopLogger(),
	}
}

// agentSpec is an agent to start.
type agentSpec struct {
	id, typ   string
	req       testcontainers.ContainerRequest
	routes    []string
	port      string // control port, "8080/tcp"
	volume    string // where a data volume is mounted ("" none)
	health    string // health path ("" agentapi.PathHealth)
	reference bool

	// Planned before the start (planPorts).
	ctlPort   network.Port
	exposed   []string
	hostPorts map[network.Port]int // exposed port → its fixed host port
}

type agentOption struct {
	id, typ string
	req     testcontainers.ContainerRequest
	opts    []AgentOption
}

func (o agentOption) apply(opts *options) {
	s := agentSpec{id: o.id, typ: o.typ, req: o.req}
	for _, ao := range o.opts {
		ao.applyAgent(&s)
	}
	opts.agents = append(opts.agents, s)
}

// WithAgent adds an agent of your own: a container started from req (its
// image, environment, exposed ports, wait strategy…) that serves the
// agentapi contract on its control port (AgentControlPort; default the
// first of req.ExposedPorts, else 8080/tcp). The runtime adds its labels,
// the agents' network (with id as the host name), a restart policy
// ("always", unless req sets one through HostConfigModifier) and fixed
// host ports, and waits for GET /health unless req has a WaitingFor.
func WithAgent(id, agentType string, req testcontainers.ContainerRequest, opts ...AgentOption) Option {
	return agentOption{id: id, typ: agentType, req: req, opts: opts}
}

// AgentOption configures one agent of WithAgent.
type AgentOption interface{ applyAgent(*agentSpec) }

type agentRoutes []string

func (r agentRoutes) applyAgent(s *agentSpec) { s.routes = append([]string(nil), r...) }

// AgentRoutes sets the agent's outgoing edges of the task DAG (the agents it
// hands tasks to), for the DAG faults and ListEdges.
func AgentRoutes(ids ...string) AgentOption { return agentRoutes(ids) }

type agentPort string

func (p agentPort) applyAgent(s *agentSpec) { s.port = string(p) }

// AgentControlPort sets the port of the agent's health and fault-control
// endpoints, such as "8080/tcp".
func AgentControlPort(port string) AgentOption { return agentPort(port) }

type agentHealth string

func (p agentHealth) applyAgent(s *agentSpec) { s.health = string(p) }

// AgentHealthPath sets the path of the agent's health endpoint on its
// control port (default agentapi.PathHealth, "/health"): the probe and the
// start wait GET it, and any 200 is healthy. A NATS server, for one, answers
// on its monitoring port's "/healthz".
func AgentHealthPath(path string) AgentOption { return agentHealth(path) }

type agentVolume string

func (v agentVolume) applyAgent(s *agentSpec) { s.volume = string(v) }

// AgentVolume mounts a labelled Docker volume of the run at path, so that
// what the agent writes there survives its restarts (its checkpoint). The
// volume is removed with the runtime.
func AgentVolume(path string) AgentOption { return agentVolume(path) }

type referenceAgents int

func (n referenceAgents) apply(o *options) { o.refWorkers = int(n) }

// WithReferenceAgents adds the reference cluster of agentd agents: leader-0,
// orchestrator-0 and worker-1 … worker-<workers>, wired leader-0 →
// orchestrator-0 → worker-i, each with its ledger and checkpoint on a volume.
// The image is built from cmd/agentd unless WithAgentImage names one.
func WithReferenceAgents(workers int) Option { return referenceAgents(workers) }

type agentImage string

func (i agentImage) apply(o *options) { o.refImage = string(i) }

// WithAgentImage runs the reference agents from this image instead of
// building one (see BuildAgentImage).
func WithAgentImage(image string) Option { return agentImage(image) }

type referenceEnv map[string]string

func (e referenceEnv) apply(o *options) {
	if o.refEnv == nil {
		o.refEnv = map[string]string{}
	}
	maps.Copy(o.refEnv, e)
}

// WithReferenceEnv sets environment variables of every reference agent:
// agentd's flags as AGENTD_<FLAG> (AGENTD_TASK_INTERVAL=100ms, AGENTD_DATA=
// to keep the ledger in memory only, …).
func WithReferenceEnv(env map[string]string) Option { return referenceEnv(maps.Clone(env)) }

type project string

func (p project) apply(o *options) { o.project = string(p) }

// WithProject sets the arena.project label of everything the runtime
// creates (default "arena"). Sweep, SweepStale and Leftovers select by it:
// give each test process its own project (under a prefix of its package's),
// so that one process's sweep does not remove what another, running at the
// same time on the same daemon, still uses.
func WithProject(name string) Option { return project(name) }

type labels map[string]string

func (l labels) apply(o *options) {
	if o.labels == nil {
		o.labels = map[string]string{}
	}
	maps.Copy(o.labels, l)
}

// WithLabels adds labels to every container, network and volume created.
func WithLabels(l map[string]string) Option { return labels(maps.Clone(l)) }

type partitionHealing time.Duration

func (d partitionHealing) apply(o *options) { o.partitionHeal = time.Duration(d) }

// WithPartitionHealing sets how long a partition lasts when nothing lifts it
// first: the network heals (the agent is reconnected) after d, as a
// transient network failure would, even when the fault's duration is
// longer; the report then says the partition was healed by the runtime, and
// when (fault.HealReporter). 0 turns healing off: a partition lasts its
// duration, or until its lift. Default 3s.
func WithPartitionHealing(d time.Duration) Option { return partitionHealing(d) }

type killMode KillMode

func (m killMode) apply(o *options) { o.killMode = KillMode(m) }

// WithKillMode chooses how kills are delivered (default KillAuto).
func WithKillMode(m KillMode) Option { return killMode(m) }

type restartDelay time.Duration

func (d restartDelay) apply(o *options) { o.restartDelay = time.Duration(d) }

// WithRestartDelay sets the supervisor's delay before it restarts an agent
// killed through the Docker API (KillAPI). Default 100ms, Docker's first
// restart backoff.
func WithRestartDelay(d time.Duration) Option { return restartDelay(d) }

type probeTimeout time.Duration

func (d probeTimeout) apply(o *options) { o.probeTimeout = time.Duration(d) }

// WithProbeTimeout bounds each health request of Probe (default 100ms).
// Keep it at or under the run's probe interval: samples are taken one after
// the other, so a probe that waits longer on a paused agent delays the next.
func WithProbeTimeout(d time.Duration) Option { return probeTimeout(d) }

type controlTimeout time.Duration

func (d controlTimeout) apply(o *options) { o.ctlTimeout = time.Duration(d) }

// WithControlTimeout bounds each fault-control and state request (default 2s).
func WithControlTimeout(d time.Duration) Option { return controlTimeout(d) }

type startTimeout time.Duration

func (d startTimeout) apply(o *options) { o.startTimeout = time.Duration(d) }

// WithStartTimeout bounds the start of each agent until it is healthy
// (default 1m).
func WithStartTimeout(d time.Duration) Option { return startTimeout(d) }

type slowReference time.Duration

func (d slowReference) apply(o *options) { o.slowRef = time.Duration(d) }

// WithSlowReference sets the CPU time of the work unit that slow_agent's
// delay is added to (default 100ms): see Runtime.SlowAgent.
func WithSlowReference(d time.Duration) Option { return slowReference(d) }

// FaultHook lands (and lifts) one kind of agent-level fault in an agent that
// does not implement the agentapi contract, or differently from it. Inject
// gets the fault as the contract would carry it. Lift may be nil: the fault
// is then not liftable.
type FaultHook struct {
	Inject func(ctx context.Context, a *Agent, f agentapi.Fault) error
	Lift   func(ctx context.Context, a *Agent) error
}

type hook struct {
	kind fault.Type
	h    FaultHook
}

func (h hook) apply(o *options) {
	if o.hooks == nil {
		o.hooks = map[fault.Type]FaultHook{}
	}
	o.hooks[h.kind] = h.h
}

// WithFaultHook lands faults of kind through h instead of the agent's
// fault-control endpoint. kind is one of the faults that go to that
// endpoint: an agent-level fault (tool_timeout, mcp_disconnect, llm_failure,
// memory_corrupt, clock_jump) or a DAG fault (remove_node, remove_edge);
// NewRuntime refuses a hook for any other type.
func WithFaultHook(kind fault.Type, h FaultHook) Option { return hook{kind, h} }

type roles struct{ r fault.RoleResolver }

func (o roles) apply(opts *options) { opts.roles = o.r }

// WithRoles makes ListAgents report each agent's live role as r resolves it
// from the system (see fault.RoleResolver): in a Raft cluster, the member
// that leads now is the leader, so kill_leader, type:leader and the survival
// mix follow it. The types given to WithAgent are what r receives.
func WithRoles(r fault.RoleResolver) Option { return roles{r} }

type quorumProbe struct{}

func (quorumProbe) apply(o *options) { o.quorum = true }

// WithQuorumProbe makes Probe judge a symmetric cluster (Raft, Paxos): the
// system is healthy when a majority (⌊N/2⌋+1) of all N agents answers its
// health endpoint, whatever their types. Without it, every agent that is not
// a worker must answer.
func WithQuorumProbe() Option { return quorumProbe{} }

type logger struct{ l tclog.Logger }

func (l logger) apply(o *options) { o.logger = l.l }

// WithLogger sends testcontainers' log lines to l (default: nowhere).
// tclog.TestLogger(t) puts them in the test's output.
func WithLogger(l tclog.Logger) Option { return logger{l} }

func (o *options) validate() error {
	if o.project == "" {
		return fmt.Errorf("containers: empty project name")
	}
	if o.refWorkers == 0 || o.refWorkers < -1 {
		return fmt.Errorf("containers: WithReferenceAgents(%d): want at least 1 worker", o.refWorkers)
	}
	if o.refWorkers < 0 && len(o.agents) == 0 {
		return fmt.Errorf("containers: no agents: use WithReferenceAgents or WithAgent")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"partition healing", o.partitionHeal}, {"restart delay", o.restartDelay}} {
		if d.v < 0 {
			return fmt.Errorf("containers: negative %s %s", d.name, d.v)
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"probe timeout", o.probeTimeout}, {"control timeout", o.ctlTimeout}, {"start timeout", o.startTimeout}, {"slow reference", o.slowRef}} {
		if d.v <= 0 {
			return fmt.Errorf("containers: %s must be positive, got %s", d.name, d.v)
		}
	}
	switch o.killMode {
	case KillAuto, KillSignal, KillAPI:
	default:
		return fmt.Errorf("containers: unknown kill mode %q", o.killMode)
	}
	for k := range o.hooks {
		if !hookable(k) {
			return fmt.Errorf("containers: WithFaultHook(%s): only the faults that go to the agent's fault-control endpoint take hooks: %v", k, hookTypes())
		}
	}
	return nil
}
