package arenatest

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/regression"
	"github.com/ares-arena/arena/scenario"
)

// Option configures Run, Survive or Compare. Options are small named values
// (Uber's apply form), so tests can compare them. An option that does not
// apply to the helper it is given to is an error, never silently ignored.
type Option interface {
	apply(*options)
}

// options is what the helpers were given. given records the options by
// name, in order, to check them against the helper.
type options struct {
	given []string
	errs  []error // of options that contradict each other

	runtime   fault.AgentLister
	fresh     func(seed uint64) (fault.AgentLister, error) // WithFreshRuntime
	shrink    *time.Duration                               // WithShrinkOnFailure's budget
	dag       fault.DAGProvider
	faults    []fault.Spec
	cluster   []fakes.Option
	clock     clockMode
	seed      uint64
	reportDir string
	probe     fault.Probe
	checks    []fault.Check
	hasChecks bool
	roles     fault.RoleResolver
	observe   engine.ObserveOptions
	gate      *scenario.Gate
	abort     *engine.AbortWhen
	unhealthy bool // AllowUnhealthyStart
	watchdog  *time.Duration

	scorer     regression.Scorer
	experiment regression.Experiment
	verdicts   []regression.Verdict
}

type clockMode int

const (
	clockDefault clockMode = iota
	clockVirtual
	clockReal
)

func (m clockMode) String() string {
	switch m {
	case clockVirtual:
		return "Virtual()"
	case clockReal:
		return "RealTime()"
	}
	return "the default clock"
}

type runtimeOption struct{ rt fault.AgentLister }

func (o runtimeOption) apply(c *options) { c.given = append(c.given, "WithRuntime"); c.runtime = o.rt }

// WithRuntime runs against your system instead of the default fake
// cluster. Its faults land through rt; a DAG, probe and checks come from
// WithDAG, WithProbe and WithChecks or, when those are not given, from rt
// itself if it has the methods (ListNodes…, Probe(ctx) error,
// Checks() []fault.Check, as fakes.Cluster does).
//
// A runtime runs in real time, unless arena controls its whole system
// on a virtual clock (a clock.VirtualSystem, as a fakes.Cluster made with
// fakes.WithClock is). Asking Virtual() of a real-time runtime is an
// error: arena does not switch clocks behind your back. A runtime whose
// Clock() is a *clock.Virtual but that is no clock.VirtualSystem is refused: a
// system with goroutines and timers of its own runs in simulated time
// (Simulate) or in real time. Inside Simulate the default runtime is the
// simulation's world.
//
// The runtime needs only the capabilities of the faults it is given
// (fault.AgentLister plus, say, fault.AgentStopper and fault.Pauser): a
// step it cannot land fails the scenario's validation, naming the step.
func WithRuntime(rt fault.AgentLister) Option { return runtimeOption{rt} }

type freshRuntimeOption struct {
	f func(seed uint64) (fault.AgentLister, error)
}

func (o freshRuntimeOption) apply(c *options) {
	c.given = append(c.given, "WithFreshRuntime")
	c.fresh = o.f
}

// WithFreshRuntime is WithRuntime with a runtime made by f for every run,
// seeded with the run's seed: the run itself and, with
// WithShrinkOnFailure, each schedule the shrinker tries. The runtime's
// clock, DAG, probe and checks are found as with WithRuntime.
func WithFreshRuntime(f func(seed uint64) (fault.AgentLister, error)) Option {
	return freshRuntimeOption{f}
}

type faultsOption struct{ specs []fault.Spec }

func (o faultsOption) apply(c *options) {
	c.given = append(c.given, "WithFaults")
	c.faults = append(c.faults, o.specs...)
}

// WithFaults registers user-defined fault types (fault.WithFault) on the
// run's injector: scenarios and survival mixes may then use them.
func WithFaults(specs ...fault.Spec) Option { return faultsOption{slices.Clone(specs)} }

type dagOption struct{ dag fault.DAGProvider }

func (o dagOption) apply(c *options) { c.given = append(c.given, "WithDAG"); c.dag = o.dag }

// WithDAG sets the DAG provider that remove_node and remove_edge go
// through. Without it a WithRuntime runtime that is also an
// fault.DAGProvider is used, and the default fake cluster is its own.
func WithDAG(dag fault.DAGProvider) Option { return dagOption{dag} }

type clusterOption struct{ opts []fakes.Option }

func (o clusterOption) apply(c *options) {
	c.given = append(c.given, "WithCluster")
	c.cluster = append(c.cluster, o.opts...)
}

// WithCluster tunes the default fake cluster: workers, healing knobs,
// workload (fakes.WithWorkers(5), fakes.WithoutRetries(), …). The cluster's
// seed and clock are the run's: fakes.WithSeed and fakes.WithClock are
// errors here (use WithSeed, Virtual or RealTime).
func WithCluster(opts ...fakes.Option) Option { return clusterOption{slices.Clone(opts)} }

type clockOption clockMode

func (o clockOption) apply(c *options) {
	c.given = append(c.given, clockMode(o).String())
	if c.clock != clockDefault && c.clock != clockMode(o) {
		c.errs = append(c.errs, fmt.Errorf("both %s and %s given", c.clock, clockMode(o)))
	}
	c.clock = clockMode(o)
}

// Virtual runs on a virtual clock: a day of chaos against the fakes takes
// seconds, and the same seed gives the same report. It is the default for
// the fake cluster; with a real-time runtime it is an error.
func Virtual() Option { return clockOption(clockVirtual) }

// RealTime runs on the wall clock: the run takes as long as it says.
// It is the default with WithRuntime.
func RealTime() Option { return clockOption(clockReal) }

type seedOption uint64

func (o seedOption) apply(c *options) { c.given = append(c.given, "WithSeed"); c.seed = uint64(o) }

// WithSeed sets the run's seed (fake workload, target selectors, survival's
// choices, the A/B test's run seeds). -arena.seed and ARENA_SEED override
// it; see the package documentation.
func WithSeed(seed uint64) Option { return seedOption(seed) }

type reportDirOption string

func (o reportDirOption) apply(c *options) {
	c.given = append(c.given, "WithReportDir")
	c.reportDir = string(o)
}

// WithReportDir writes the reports (JSON, JUnit XML, text) to dir, which
// is created if needed. Without it, ARENA_REPORT_DIR names the directory;
// without either nothing is written.
func WithReportDir(dir string) Option { return reportDirOption(dir) }

type probeOption struct{ p fault.Probe }

func (o probeOption) apply(c *options) { c.given = append(c.given, "WithProbe"); c.probe = o.p }

// WithProbe sets the system's health probe, sampled every 100ms of the
// run's clock. Without a probe, availability and recovery are unmeasured.
func WithProbe(p fault.Probe) Option { return probeOption{p} }

type checksOption struct{ checks []fault.Check }

func (o checksOption) apply(c *options) {
	c.given = append(c.given, "WithChecks")
	c.checks, c.hasChecks = append(c.checks, o.checks...), true
}

// WithChecks sets the system's consistency checks, run after each recovery
// and at the end.
func WithChecks(checks ...fault.Check) Option { return checksOption{slices.Clone(checks)} }

type rolesOption struct{ r fault.RoleResolver }

func (o rolesOption) apply(c *options) { c.given = append(c.given, "WithRoles"); c.roles = o.r }

// WithRoles resolves the agents' roles live with r at every target
// selection (see fault.RoleResolver): kill_leader, type:leader and the
// survival mix follow the system's current leader, not the types listed at
// start.
func WithRoles(r fault.RoleResolver) Option { return rolesOption{r} }

type observeOption struct{ o engine.ObserveOptions }

func (o observeOption) apply(c *options) { c.given = append(c.given, "WithObserve"); c.observe = o.o }

// WithObserve sets how the run is observed (probe interval and timeout,
// settle time, stable samples, recovery deadline…; zero fields keep their
// defaults). A scenario's config.observe overrides it field by field.
func WithObserve(o engine.ObserveOptions) Option { return observeOption{o} }

type gateOption struct{ g scenario.Gate }

func (o gateOption) apply(c *options) {
	c.given = append(c.given, "WithGate")
	g := o.g
	if c.gate != nil {
		g = stricter(*c.gate, g)
	}
	c.gate = &g
}

// WithGate sets criteria the run must meet, as a scenario's expect block
// does. For Run they are added to the scenario's own gate (both must hold:
// the higher minimum, the lower maximum); for Survive they are the gate,
// which is otherwise empty: a survival run then fails only when it cannot
// be run, and its grade is yours to judge (matchers.SurviveWithGrade).
func WithGate(g scenario.Gate) Option { return gateOption{g} }

type abortOption struct{ a engine.AbortWhen }

func (o abortOption) apply(c *options) {
	c.given = append(c.given, "WithAbortWhen")
	a := o.a
	c.abort = &a
}

// WithAbortWhen sets the run's stop conditions (engine.AbortWhen), for Run in
// place of the scenario's config.abort_when, for Survive in place of the
// config's: when one is met the run stops injecting, its faults are lifted,
// and it ends aborted, which fails the test with the reason.
func WithAbortWhen(a engine.AbortWhen) Option { return abortOption{a} }

type unhealthyStartOption struct{}

func (unhealthyStartOption) apply(c *options) {
	c.given = append(c.given, "AllowUnhealthyStart()")
	c.unhealthy = true
}

// AllowUnhealthyStart injects even when the system is not healthy when the
// first fault is due (the end of a scenario's warmup, survival's first
// tick); by default the run is then aborted before it injects anything.
func AllowUnhealthyStart() Option { return unhealthyStartOption{} }

type scorerOption struct{ s regression.Scorer }

func (o scorerOption) apply(c *options) { c.given = append(c.given, "WithScorer"); c.scorer = o.s }

// WithScorer scores Compare's runs. Without it both strategies must be
// regression.System values (such as fakes.Strategy), scored by
// regression.ExperimentScorer over the experiment (WithExperiment).
func WithScorer(s regression.Scorer) Option { return scorerOption{s} }

type experimentOption struct{ exp regression.Experiment }

func (o experimentOption) apply(c *options) {
	c.given = append(c.given, "WithExperiment")
	c.experiment = o.exp
}

// WithExperiment sets what each run of a fakes.Strategy does in Compare
// (default DefaultExperiment: the built-in scenario everything-at-once).
func WithExperiment(exp regression.Experiment) Option { return experimentOption{exp} }

type verdictsOption struct{ vs []regression.Verdict }

func (o verdictsOption) apply(c *options) {
	c.given = append(c.given, "WantVerdicts")
	c.verdicts = slices.Clone(o.vs)
}

// WantVerdicts sets the verdicts with which Compare passes (default: only
// regression.VerdictBetter, "the candidate is significantly better").
func WantVerdicts(vs ...regression.Verdict) Option { return verdictsOption{slices.Clone(vs)} }

// NoRegression makes Compare pass unless the candidate is significantly
// worse: WantVerdicts(regression.VerdictBetter, regression.VerdictNoDifference, regression.VerdictInconclusive).
// It is the gate of a CI job that guards against regressions.
func NoRegression() Option {
	return WantVerdicts(regression.VerdictBetter, regression.VerdictNoDifference, regression.VerdictInconclusive)
}

// collect applies opts and checks them against what the helper accepts.
func collect(fn string, allowed []string, opts []Option) (*options, error) {
	o := &options{}
	for i, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("options[%d]: nil option", i)
		}
		opt.apply(o)
	}
	if len(o.errs) > 0 {
		return nil, o.errs[0]
	}
	for _, name := range o.given {
		if !slices.Contains(allowed, name) {
			return nil, fmt.Errorf("%s does not apply to %s", name, fn)
		}
	}
	for i, fo := range o.cluster {
		switch {
		case fo == nil:
			return nil, fmt.Errorf("WithCluster: options[%d]: nil option", i)
		case sameType(fo, fakes.WithSeed(0)):
			return nil, fmt.Errorf("WithCluster: options[%d]: fakes.WithSeed: the cluster is seeded with the run's seed (use WithSeed)", i)
		case sameType(fo, fakes.WithClock(nil)):
			return nil, fmt.Errorf("WithCluster: options[%d]: fakes.WithClock: the cluster follows the run's clock (use Virtual or RealTime)", i)
		}
	}
	if o.runtime == nil && slices.Contains(o.given, "WithRuntime") {
		return nil, fmt.Errorf("WithRuntime: nil runtime")
	}
	if o.runtime != nil && len(o.cluster) > 0 {
		return nil, fmt.Errorf("WithCluster tunes the default fake cluster; it does not apply with WithRuntime")
	}
	if err := o.checkFresh(); err != nil {
		return nil, err
	}
	for _, v := range o.verdicts {
		switch v {
		case regression.VerdictBetter, regression.VerdictWorse, regression.VerdictNoDifference, regression.VerdictInconclusive:
		default:
			return nil, fmt.Errorf("WantVerdicts: unknown verdict %q", v)
		}
	}
	return o, nil
}

// sameType tells a fakes option's kind without fakes exporting it.
func sameType(a, b any) bool { return reflect.TypeOf(a) == reflect.TypeOf(b) }

// stricter is the gate that holds when both a and b hold.
func stricter(a, b scenario.Gate) scenario.Gate {
	out := a
	if b.MinGrade != engine.GradeNone && (a.MinGrade == engine.GradeNone || !a.MinGrade.AtLeast(b.MinGrade)) {
		out.MinGrade = b.MinGrade
	}
	if b.MinScore != nil && (a.MinScore == nil || *b.MinScore > *a.MinScore) {
		out.MinScore = b.MinScore
	}
	if b.MaxMTTR != nil && (a.MaxMTTR == nil || *b.MaxMTTR < *a.MaxMTTR) {
		out.MaxMTTR = b.MaxMTTR
	}
	out.AllRecovered = a.AllRecovered || b.AllRecovered
	out.Consistent = a.Consistent || b.Consistent
	return out
}
