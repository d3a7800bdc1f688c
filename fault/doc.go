// Package fault is arena's vocabulary: what a fault is, how it is written
// and checked, and how it reaches a system. The engine and every layer
// above it import it; below it are only package clock (for durations) and
// arena's internal bounds on text.
//
// # Actions
//
// An Action asks for one fault: its Type (Types lists the built-ins), its
// target and its metadata, each validated strictly (Action.Validate returns
// a *ValidationError naming the field): unknown or misspelt metadata keys,
// wrong types, negative durations and unknown LLM error types are errors,
// never silently defaulted. The network faults (network_latency,
// network_bandwidth, connection_reset) degrade an agent's links: a rate is
// a whole number of bytes per second, a latency is added to each round
// trip. A target may be a selector, resolved with the run's seed (the
// chosen ID is in the Result), so that one scenario runs on any system:
// any (random) for any agent, type:<t> for an agent of type t
// (type:leader), not:<t> for one of any other type (not:leader: anyone
// but the leader), and any for a DAG node or an edge's ends (see
// SelectAny). A selector prefers agents on which no fault of its type is
// still unlifted, so two partitions of not:leader cut off two agents.
// Before a run starts, Injector.Targets lists what the system has and
// Targets.Check resolves each target against it: an ID the runtime does
// not list, or a selector no agent fits, is a *TargetError naming what it
// lists and the fix (ErrNoTarget); a role nobody holds yet (no leader
// elected) says so (TargetError.Role), for a check once the system has
// settled. WithoutAgents leaves a test's own nodes out. Durations
// have one encoding everywhere (clock.Duration): "1.5s", or a bare number
// of seconds. A `duration` in the metadata makes the engine lift the fault
// after it, with the Lift the runtime handed back when the fault landed;
// kills, memory corruption and DAG surgery are never lifted.
//
// # Specs
//
// Each fault type is one Spec (Specs lists the built-ins, Lookup finds
// one): targets, metadata keys (MetaKey: kind, default, checks), lifting,
// the runtime capability that lands it, its HTTP route, the flight
// recorder's category and fix, the evolution priority and suggestion, and
// its schema text. Validation, the injector, the engine's bridges,
// arenahttp and the schema read it. A Registry is the types one injector,
// or one validation, knows: the built-ins, then the user's own
// (NewRegistry, Injector.Registry). Every list of fault types in arena is
// computed from it.
//
// A fault type of your own is a Spec with an Inject function (and a Lift,
// paired with it by the engine, for a liftable one), registered on one
// injector with WithFault: scenarios, survival, arenahttp and schema.For
// then treat it as a built-in. Name it in a namespace of your own,
// "acme.disk_full", and no release of arena can take its name. See
// examples/userfault.
//
// # Capabilities
//
// A runtime implements only the capabilities it has: AgentLister plus any
// of AgentStopper, Pauser, Slower, Partitioner, ToolTimeouter,
// MemoryCorrupter, MCPDisconnecter, LLMFailer (RuntimeProvider is all of
// them), LatencyInjector, BandwidthLimiter, ConnectionResetter (the network
// faults; package netfault lands them on a Go service in the process),
// ClockJumper, and a DAGProvider for DAG surgery. The capability of a fault
// arena can lift hands back its Lift when it lands. A runtime says in one
// place why it refuses the built-in types it does not land: type by type
// (Refuser), or a whole Scope it does not reach (ScopeRefuser: sim and
// netfault reach no agent's code, a runtime without a DAG no DAG fault).
// arenatest.TestRuntime fails it while a built-in type is neither landed
// nor refused: a new built-in type asks every runtime that reaches its
// scope to decide, and is refused by the others with their reason. A
// runtime whose agents do not all have what a type acts on (agentwire: an
// agent without a model client, for llm_failure) is a Reacher: selectors
// and survival then pick among the agents it reaches.
//
// The Injector finds the capabilities by type assertion
// (NewInjectorFor(rt, WithDAG(dag))); a type the runtime cannot land is
// ErrUnsupported with the runtime's reason, reported before a run starts.
// It resolves targets (Prepare, Resolve), live roles included
// (WithRoles), lands a prepared action (Inject, Land) and never panics: a
// provider's panic is ErrProviderPanic. A runtime written before Lift
// (methods returning only an error, and the deprecated Lifter) still works
// through NewInjectorFor.
//
// # Checks
//
// A Probe says whether the system is healthy now; a Check is a named
// invariant. A check that could not look returns ErrNotApplicable, one out
// of budget an *UndecidedError (ErrUndecided): neither counts as passed. A
// check that found something wrong returns a *Violation with the
// operations involved.
//
// # Index
//
//   - Actions: Action, Type, Types, Params, Result, ValidationError,
//     Invalid, IdentifierProblem, LLMErrorType, LLMErrorTypes; metadata
//     keys MetaDuration, MetaDelay, MetaTimeout, MetaErrorType, MetaOffset,
//     MetaLatency, MetaJitter, MetaDirection, MetaPeer, MetaRate,
//     MetaAfter; their defaults DefaultSlowDelay, DefaultToolTimeout,
//     DefaultLLMError, DefaultClockOffset, DefaultLatency, DefaultRate;
//     errors ErrInvalidAction, ErrNoRuntime, ErrNoDAG, ErrNoTarget,
//     ErrProviderPanic; selectors SelectAny, SelectRandom, SelectType,
//     SelectNot, IsSelector.
//   - Specs: Spec, Specs, Lookup, Registry, NewRegistry, TargetRule, Scope,
//     Scopes,
//     MetaKey, MetaKind, ErrBuiltinName; the flight recorder's categories
//     CategoryInvalidAction, CategoryConfiguration, CategoryTargeting,
//     CategoryProviderPanic, CategoryCancelled, CategoryRuntime,
//     CategoryDAG.
//   - Injector: Injector, NewInjector, NewInjectorFor, InjectorOption
//     (WithDAG, WithFault, WithRoles, WithoutAgents), Binding, RoleResolver,
//     Targets, TargetError, ErrUnsupported, ErrCannotLand, ErrNoAgent.
//   - Systems: RuntimeProvider, AgentLister, AgentAppender, AgentStopper,
//     Pauser, Slower, Partitioner, ToolTimeouter, MemoryCorrupter,
//     MCPDisconnecter, LLMFailer, LatencyInjector, Latency, Direction,
//     BandwidthLimiter, ConnectionResetter, ClockJumper, DAGProvider, Lift,
//     Refuser, ScopeRefuser, RefusalsOf, Reacher, HealReporter, Lifter (deprecated),
//     AgentInfo, AgentStatus,
//     TypeLeader, TypeOrchestrator, TypeWorker, Edge; change feeds for large
//     systems: AgentFeed, AgentChange, DAGFeed, NodeChange, EdgeChange.
//   - Checks: Probe, Check, ErrNotApplicable, ErrUndecided, UndecidedError,
//     Violation, ViolationOp, ReportDirEnv.
//   - Bounds: MaxMetaDuration, MaxMetaNumber, MaxMetaString, MaxDelay,
//     MaxRate.
package fault
