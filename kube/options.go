package kube

import (
	"fmt"
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
)

// Defaults of the options.
const (
	DefaultNamespace        = "default"
	DefaultTypeLabel        = "arena.io/type"
	DefaultProject          = "arena"
	DefaultPartitionHealing = 3 * time.Second
	DefaultSlowReference    = 100 * time.Millisecond
	DefaultControlPort      = 8080
	DefaultProbeTimeout     = time.Second
)

// Labels arena puts on everything it creates, and on the pods it partitions.
const (
	LabelProject   = "arena.io/project"
	LabelRun       = "arena.io/run"
	LabelPartition = "arena.io/partition" // on a partitioned pod: the name of its NetworkPolicy
)

// Enforcement says whether a NetworkPolicy isolates a pod in the cluster.
type Enforcement int

const (
	// EnforcementDetect (the default): a pod on a kwok node
	// (annotation kwok.x-k8s.io/node=fake) has no network, so no CNI enforces
	// a policy on it: partitioning it fails with ErrNotEnforced. On other
	// nodes the cluster is taken to enforce NetworkPolicy (see the README:
	// that needs a CNI that does, such as Calico or Cilium).
	EnforcementDetect Enforcement = iota
	// EnforcementAssumed counts a created policy as a landed partition on
	// every node, simulated or not (tests of the policies' lifecycle).
	EnforcementAssumed
)

// Option configures a Runtime. Options are small named values, as in the
// containers package.
type Option interface{ apply(*options) }

type options struct {
	namespace     string
	selector      labels.Selector
	typeLabel     string
	leaderLease   string
	project       string
	runID         string
	enforcement   Enforcement
	partitionHeal time.Duration
	slowRef       time.Duration
	labels        map[string]string
	errs          []error
	refWorkers    int
	cfg           *rest.Config
	controlPort   int // the agents' agentapi port; 0: they have none
	probeTimeout  time.Duration
}

func defaultOptions() options {
	return options{
		namespace:     DefaultNamespace,
		selector:      labels.Everything(),
		typeLabel:     DefaultTypeLabel,
		project:       DefaultProject,
		partitionHeal: DefaultPartitionHealing,
		slowRef:       DefaultSlowReference,
		controlPort:   DefaultControlPort,
		probeTimeout:  DefaultProbeTimeout,
	}
}

type namespace string

func (n namespace) apply(o *options) { o.namespace = string(n) }

// WithNamespace sets the namespace of the agents' pods (default "default").
func WithNamespace(ns string) Option { return namespace(ns) }

type selector struct{ s labels.Selector }

func (s selector) apply(o *options) { o.selector = s.s }

// WithSelector chooses the agents' pods by label selector (kubectl's
// syntax, "app=web,tier!=db"). Only pods that also carry the type label
// (WithTypeLabel) are agents.
func WithSelector(sel string) Option {
	s, err := labels.Parse(sel)
	if err != nil {
		return badOption{fmt.Errorf("kube: WithSelector: %w", err)}
	}
	return selector{s}
}

type typeLabel string

func (l typeLabel) apply(o *options) { o.typeLabel = string(l) }

// WithTypeLabel names the pod label whose value is the agent's type
// (default arena.io/type: leader, orchestrator, worker or a type of yours).
func WithTypeLabel(key string) Option { return typeLabel(key) }

type leaderLease string

func (l leaderLease) apply(o *options) { o.leaderLease = string(l) }

// WithLeaderLease names a coordination.k8s.io Lease in the namespace, as
// Kubernetes' leader election keeps it: the agent whose pod name is its
// holderIdentity is listed with type leader, whatever its label says, so
// that kill_leader follows the current leader.
func WithLeaderLease(name string) Option { return leaderLease(name) }

type project string

func (p project) apply(o *options) { o.project = string(p) }

// WithProject sets the arena.io/project label of what the runtime creates
// (default "arena"); Sweep removes what carries it.
func WithProject(name string) Option { return project(name) }

type runID string

func (r runID) apply(o *options) { o.runID = string(r) }

// WithRunID sets the arena.io/run label of what the runtime creates
// (default: a new random ID per Runtime).
func WithRunID(id string) Option { return runID(id) }

type enforcement Enforcement

func (e enforcement) apply(o *options) { o.enforcement = Enforcement(e) }

// WithEnforcement says how a partition is known to land (default
// EnforcementDetect).
func WithEnforcement(e Enforcement) Option { return enforcement(e) }

type partitionHeal time.Duration

func (d partitionHeal) apply(o *options) { o.partitionHeal = time.Duration(d) }

// WithPartitionHealing sets how long a partition lasts when nothing lifts it
// (default 3s, as in the containers package); 0 keeps it until its lift or
// Close.
func WithPartitionHealing(d time.Duration) Option { return partitionHeal(d) }

type slowRef time.Duration

func (d slowRef) apply(o *options) { o.slowRef = time.Duration(d) }

// WithSlowReference sets the work unit slow_agent's delay is measured
// against: the CPU limit is scaled by ref/(ref+delay) (default 100ms).
func WithSlowReference(d time.Duration) Option { return slowRef(d) }

type extraLabels map[string]string

func (l extraLabels) apply(o *options) {
	if o.labels == nil {
		o.labels = map[string]string{}
	}
	maps.Copy(o.labels, l)
}

// WithLabels adds labels to everything the runtime creates.
func WithLabels(l map[string]string) Option { return extraLabels(maps.Clone(l)) }

type referenceAgents int

func (n referenceAgents) apply(o *options) { o.refWorkers = int(n) }

// WithReferenceAgents has the runtime create the reference system in its
// namespace: StatefulSets leader (leader-0), orchestrator (orchestrator-0)
// and worker (worker-1 … worker-N) of image ReferenceImage (agentd), the
// headless Service arena-agents, their pods labelled with the run and
// requesting 100m of CPU with a limit of one CPU, and returns once every
// agent answers GET /health (unless WithoutAgentAPI). Close deletes them.
// The image is meant for kubetest planes, whose runner (WithAgentd) runs
// each pod as an agentd process: no registry serves it.
func WithReferenceAgents(workers int) Option { return referenceAgents(workers) }

type controlPort int

func (p controlPort) apply(o *options) { o.controlPort = int(p) }

// WithControlPort sets the port on which the agents' pods serve the
// fault-control contract of package agentapi (default 8080), reached
// through the API server's pod proxy.
func WithControlPort(port int) Option {
	if port <= 0 || port > 65535 {
		return badOption{fmt.Errorf("kube: WithControlPort: %d, want 1-65535", port)}
	}
	return controlPort(port)
}

// WithoutAgentAPI says the agents' pods serve no agentapi contract: Probe
// reads readiness only, the runtime has no checks, and the agent-level,
// pause and DAG faults fail with fault.ErrUnsupported.
func WithoutAgentAPI() Option { return controlPort(0) }

type probeTimeout time.Duration

func (d probeTimeout) apply(o *options) { o.probeTimeout = time.Duration(d) }

// WithProbeTimeout bounds Probe's GET /health of each agent through the pod
// proxy (default 1s): an agent that does not answer within it (a paused
// one) is unavailable.
func WithProbeTimeout(d time.Duration) Option { return probeTimeout(d) }

type config struct{ cfg *rest.Config }

func (c config) apply(o *options) { o.cfg = c.cfg }

// WithConfig has ForTest use this cluster instead of starting a kubetest
// plane (NewRuntime takes its config as an argument and ignores this).
func WithConfig(cfg *rest.Config) Option { return config{cfg} }

type badOption struct{ err error }

func (b badOption) apply(o *options) { o.errs = append(o.errs, b.err) }

func (o *options) validate() error {
	switch {
	case len(o.errs) > 0:
		return o.errs[0]
	case o.namespace == "":
		return fmt.Errorf("kube: WithNamespace: empty")
	case o.typeLabel == "":
		return fmt.Errorf("kube: WithTypeLabel: empty")
	case o.project == "":
		return fmt.Errorf("kube: WithProject: empty")
	case o.partitionHeal < 0:
		return fmt.Errorf("kube: WithPartitionHealing: negative (%v)", o.partitionHeal)
	case o.refWorkers < 0:
		return fmt.Errorf("kube: WithReferenceAgents: %d workers", o.refWorkers)
	case o.probeTimeout <= 0:
		return fmt.Errorf("kube: WithProbeTimeout: %v, want > 0", o.probeTimeout)
	case o.slowRef <= 0:
		return fmt.Errorf("kube: WithSlowReference: %v, want > 0", o.slowRef)
	}
	return nil
}
