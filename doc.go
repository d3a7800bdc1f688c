// Package arena is a resilience (chaos) test harness for systems of agents.
//
// arena injects faults into a running system — kills, pauses, slowdowns,
// network partitions, tool timeouts, memory corruption, MCP disconnects, LLM
// failures, DAG surgery — watches the system heal, and scores the healing:
// availability 40%, recovery 30%, consistency 30%, graded A+ to F.
//
// # Quick start
//
// A system is a runtime (RuntimeProvider, or only the capabilities it has:
// see Faults) and optionally a DAGProvider, plus a health Probe and
// consistency Checks. The fakes package has one in memory:
//
//	clock := arena.NewVirtualClock(time.Time{})
//	cluster := fakes.NewCluster(fakes.WithClock(clock), fakes.WithSeed(7))
//	svc := arena.NewService(arena.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
//		arena.WithClock(clock), arena.WithProbe(cluster.Probe), arena.WithChecks(cluster.Checks()...))
//	rep, err := arena.RunSchedule(ctx, svc, arena.RunOptions{Seed: 7, Duration: time.Minute},
//		arena.Step{At: 10 * time.Second, Action: arena.Action{Type: arena.ActionKillLeader}})
//	fmt.Print(rep) // score, grade, dimensions, each fault with its TTR
//
// A *VirtualClock makes the run virtual: the run jumps the clock from
// event to event, so an hour of chaos takes milliseconds and the same
// seed always gives the same report.
//
// # Actions
//
// The built-in fault types (ActionTypes), each validated strictly (Action.Validate
// returns a *ValidationError naming the field): unknown or misspelt metadata
// keys, wrong types, negative durations and unknown LLM error types are
// errors, never silently defaulted. The network faults (network_latency,
// network_bandwidth, connection_reset) degrade an agent's links: a rate is a
// whole number of bytes per second, a latency is added to each round trip. A target may be a selector, "random" or
// "type:<agent type>", resolved with the run's seed; the chosen ID is in the
// Result. Durations have one encoding everywhere (Duration): "1.5s", or a bare
// number of seconds. A `duration` in the metadata makes the engine lift the
// fault after it, with the Lift the runtime handed back when the fault
// landed; kills, memory corruption and DAG surgery are never lifted.
//
// # Faults
//
// Each fault type is one FaultSpec (FaultSpecs lists the built-ins): targets,
// metadata keys (MetaKey: kind, default, checks), lifting, the runtime
// capability that lands it, its HTTP route, the flight recorder's category
// and fix, the evolution priority and suggestion, and its schema text.
// Validation, the injector, the bridges, arenahttp and the schema read it.
//
// A runtime implements only the capabilities it has: AgentLister plus any of
// AgentStopper, Pauser, Slower, Partitioner, ToolTimeouter, MemoryCorrupter,
// MCPDisconnecter, LLMFailer (RuntimeProvider is all of them),
// LatencyInjector, BandwidthLimiter, ConnectionResetter (the network
// faults; package netfault lands them on a Go service in the process). The
// capability of a fault arena can lift hands back its Lift when it lands.
// A runtime says in one place why it refuses the built-in types it does
// not land (Refuser), and arenatest.TestRuntime fails it while a built-in
// type is neither landed nor refused. NewInjectorFor(rt, WithDAG(dag))
// finds the capabilities by type assertion; a type the runtime cannot land
// is ErrUnsupported (with the runtime's reason), reported before a run
// starts by Service.ValidateScenario and RunScenarioReport (naming the
// step), left out of survival's mix with a warning. A runtime written
// before Lift (methods returning only an error, and the deprecated
// FaultLifter) still works through NewInjectorFor.
//
// A fault type of your own is a FaultSpec with an Inject function (and a
// Lift, paired with it by the engine, for a liftable one), registered on
// one injector with WithFault: scenarios (LoadScenario with
// Injector.FaultTypes), survival, arenahttp and schema.For then
// treat it as a built-in. See examples/userfault.
//
// # Fault lifecycle
//
// Every landed fault arena can lift is in the service's active-fault
// registry (ActiveFaults, LiftFault, ActiveFault with its FaultOrigin) until
// it is lifted: at its duration on the service's clock, whether it came
// from Execute (a timer; on a VirtualClock, when the clock passes it) or
// from a run (a KindLift event); on request; or by a rollback. A run rolls
// back its faults however it ends and lists them in Report.Rollback
// (FaultRollback); Service.Rollback lifts everything, for processes and
// tests that end. A run holds its service: a second run, or an Execute
// outside it, gets a *RunActiveError (ErrRunActive). AbortWhen stops a run
// when the system is unhealthy too long, a named check fails or the score
// drops (Report.Aborted); a run does not start injecting into an unhealthy
// system. WithMaxFaultDuration bounds durations (default 1h).
//
// # Service
//
// Service.Execute validates, resolves, injects (a provider panic becomes a
// failed Result), and records: stats and a bounded history (Stats, History),
// Prometheus collectors on the Registerer passed with WithRegisterer, an
// event on the "arena" stream of the EventStore (appended with optimistic
// concurrency), evidence of failures (EvidenceStore), and the flight bridge
// (WithFlightRecorder: a timeline event per action, a Diagnostic per failure).
// The evolution bridge (WithEvolution) hears of faults the system did not heal
// well, once a run has observed their outcome: unrecovered, slower than the
// speed limit, or with a failed check. Priority ≥ 9 (leader or orchestrator
// loss) goes through ApplyEmergency under a timeout. A fault that failed to
// land is a harness problem: a diagnostic, never a patch proposal.
//
// # Observation and scoring
//
// A Run (Service.NewRun, or RunSchedule for a fixed list of Steps) samples the
// probe every ObserveOptions.ProbeInterval (100ms), follows each landed fault
// to its outcome (FaultOutcome documents how TTR is measured), runs the checks
// after each recovery and at the end, and scores with ComputeScore:
//
//	availability = 100 × healthy samples / samples
//	recovery     = 100 × mean over landed faults of (0.7 × recovered + 0.3 × speed)
//	consistency  = 100 × passed checks / checks
//
// The total is the weighted mean over measured dimensions only; with nothing
// measured there is no grade (GradeNone). Faults that failed to land are
// listed in Report.InjectionErrors and not scored. Events due at one instant
// run in a fixed order (EventKind): lifts, injections, samples, checks, phase
// edges.
//
// # Scenarios
//
// A Scenario is declarative chaos, usually a YAML file (the built-in library
// is package scenarios): steps that inject faults, a ScenarioConfig saying
// how to play them, and a Gate (`expect`) the run must meet. LoadScenario
// and LoadScenarioFile decode strictly and report every problem at once as
// ScenarioErrors, each with file:line:column and the field path;
// ValidateScenario applies the same rules to scenarios built in code.
// RunScenarioReport plays one as a Run: sequentially, each step Delay after
// the previous one completed, or with ParallelActions as a DAG of depends_on
// with at most MaxConcurrent injections in flight; stop_on_error, timeout,
// warmup, cooldown and cancellation are honoured throughout. The
// ScenarioReport covers that run only: each step with its result and
// expectation check, the run's Report, and the gate's verdict with reasons.
// It writes itself as text, JSON and JUnit XML.
//
// # Shrinking
//
// Shrink reduces a failing run to the smallest schedule that still fails
// the same way (SameFailure: the gate fails again, for the same reasons),
// and returns it as an ordinary scenario (ShrinkResult, WriteYAML). Each
// candidate runs on a fresh system from a SystemFactory; the search drops
// faults (delta debugging), moves them earlier, shortens durations,
// retargets faults at roles, simplifies metadata and resolves selectors.
// A candidate is judged by one run on a virtual clock and by Need of Runs
// runs otherwise; the result states its failure rate over replays ("fails
// 10/10"). A survival run becomes a scenario with ScenarioFromSurvival
// (CompleteSurvival lists every action of a virtual one).
//
// # Regression testing
//
// A RegressionTester answers "is the candidate strategy better than the
// baseline?" from many scored runs of each (NewRegressionTester, Run). Its
// Scorer gets a Trial per run; the i-th runs of both arms share a seed, so a
// scorer that draws everything from Trial.Seed (fakes.StrategyScorer builds
// a fresh seeded fake cluster per run) compares the strategies on the same
// cases. A tester given a service holds it while it runs, like a run: its
// trials run on Trial.Service under the context its ContextScorer is given,
// and nothing else lands there meanwhile. ModeFixed makes Runs runs per arm and applies Welch's t-test,
// one-sided by default; ModeSequential looks after every run with an
// anytime-valid sequential t-test — the likelihood ratio of the t
// statistic for an effect of ±MDE (95% of its prior) or ±6·MDE (5%)
// against none, claiming a direction when it reaches 1/Alpha — and stops
// as soon as the answer is significant, or at MaxRuns with VerdictInconclusive:
// peeking does not inflate its false alarms. The RegressionResult prints
// like benchstat:
//
//	better: p=0.012 n=18+18 Δ=+4.1 g=0.83 [0.21, 1.45]
//
// # Bounds
//
// Every numeric parameter has a range, checked when it is validated with
// an error that names the field and the range, so that what validates runs
// and no arithmetic on an accepted value overflows: a metadata key's is in
// its MetaKey (Min, Max, MaxLen, Range, RangeText; without them
// MaxMetaDuration, MaxMetaNumber, MaxMetaString), a scenario's and a
// survival run's in the Max… constants, the observation settings' in
// ObserveOptions.Settings. Output is bounded in bytes: a scenario's text
// with its aliases expanded is at most MaxScenarioExpanded, its problems at
// most MaxScenarioErrors and MaxScenarioErrorBytes, each quoting at most 64
// bytes of a value; reports escape the text from outside they print.
//
// # Index
//
//   - Actions: Action, ActionType, ActionTypes, Params, Result, ValidationError,
//     Duration, ParseDuration, LLMErrorType, LLMErrorTypes; metadata keys
//     MetaDuration, MetaDelay, MetaTimeout, MetaErrorType, MetaOffset,
//     MetaLatency, MetaJitter, MetaDirection, MetaPeer, MetaRate, MetaAfter;
//     their defaults DefaultSlowDelay, DefaultToolTimeout, DefaultLLMError,
//     DefaultClockOffset, DefaultLatency, DefaultRate; errors
//     ErrInvalidAction, ErrNoRuntime, ErrNoDAG, ErrNoTarget, ErrProviderPanic.
//   - Faults: FaultSpec, FaultSpecs, LookupFault, TargetRule, MetaKey,
//     MetaKind, WithFault, ErrBuiltinName, ErrUnsupported, ErrCannotLand,
//     ErrNoAgent.
//   - Systems: RuntimeProvider, AgentLister, AgentStopper, Pauser, Slower,
//     Partitioner, ToolTimeouter, MemoryCorrupter, MCPDisconnecter,
//     LLMFailer, LatencyInjector, Latency, Direction, BandwidthLimiter,
//     ConnectionResetter, ClockJumper, DAGProvider, Lift, Refuser, FaultLifter
//     (deprecated), HealReporter, AgentInfo, AgentStatus, TypeLeader,
//     TypeOrchestrator, TypeWorker, RoleResolver, WithRoles, Edge, Probe, Check;
//     change feeds for large systems (survival ticks in the time of the
//     changes): AgentFeed, AgentChange, DAGFeed, NodeChange, EdgeChange.
//   - Checks: ErrNotApplicable, ErrUndecided, UndecidedError, Violation,
//     ViolationOp, ReportDirEnv.
//   - Engine: Injector, NewInjector, NewInjectorFor, InjectorOption (WithDAG,
//     WithFault), Service, NewService, Option (WithClock, WithProbe,
//     WithChecks, WithRegisterer, WithFlightRecorder, WithEvolution,
//     WithHistoryCap, WithSeed, WithEmergencyTimeout, WithObserveOptions,
//     WithMaxFaultDuration, WithRollbackTimeout), DefaultHistoryCap,
//     DefaultEmergencyTimeout, Stats, FaultTypeStats, MetricsSnapshot, EventStore.
//   - Events: EventStream, EventActionExecuted, EventActionFailed (their
//     payload ActionEvent), EventFaultRecovered, EventFaultLost,
//     EventFaultUndecided, EventFaultLifted, EventHealthChanged,
//     EventRunCompleted, EventRegressionCompleted.
//   - Lifecycle: ActiveFault, FaultOrigin, FaultRollback (RollbackLifted,
//     RollbackFailed, RollbackLeftToHeal), ErrNoActiveFault, ErrRunActive,
//     RunActiveError, AbortWhen, DefaultMaxFaultDuration,
//     DefaultRollbackTimeout.
//   - Watching: Service.RunStatus, RunStatus, HealthEvent, MaxHealthReason,
//     Service.HistoryPage, Service.HistoryBefore.
//   - Runs: Run, RunOptions, RunSchedule, Step, DrawSeed, Clock, RealClock,
//     VirtualClock, NewVirtualClock, ClockKind, ClockVirtual, ClockSimulated,
//     ClockReal, InBubble, VirtualSystem, VirtualEpoch, ErrClockBusy,
//     EventKind (for Run.At), ObserveOptions, ObserveSetting,
//     DefaultProbeInterval, MinProbeInterval, DefaultProbeTimeout,
//     DefaultStableSamples, DefaultRecoveryDeadline, DefaultSettleTime,
//     DefaultTimelineCap, DefaultListCap.
//   - Scores: Report, FaultOutcome, CheckResult, Transition, Score, Dimension,
//     Grade, GradeFor, ParseGrade, ComputeScore, Inputs, ScoreOptions,
//     Weights, DefaultWeights.
//   - Bridges: FlightRecorder, FlightReader, FlightEvent, Diagnostic (its
//     categories CategoryInvalidAction, CategoryConfiguration,
//     CategoryTargeting, CategoryProviderPanic, CategoryCancelled,
//     CategoryRuntime, CategoryDAG), EvolutionCoordinator, PatchProposal,
//     EmergencyPriority, EvidenceStore, Evidence (EvidenceInjectionFailure,
//     EvidenceUnrecovered, EvidenceViolation).
//   - Scenarios: Scenario, ScenarioConfig, ScenarioObserve, ScenarioStep,
//     Gate, LoadScenario, LoadScenarioFile, ValidateScenario,
//     Service.ValidateScenario, ScenarioError, ScenarioErrors,
//     ErrInvalidScenario, RunScenarioReport, ScenarioReport, StepReport,
//     StepStatus, StepExpect, RunOutcome, GateResult, GateCheck, GateVerdict,
//     DefaultMaxConcurrent, DefaultScenarioSlack.
//   - Survival: SurvivalConfig, ParseMix, SurvivalReport, FaultTypeOutcome,
//     SurvivalEnding, SurvivalStatus, SurvivalEvent, TargetFilter,
//     ErrSurvivalRunning, ErrNoSurvival, DefaultSurvivalDuration,
//     DefaultSurvivalInterval, DefaultMaxActiveFaults, DefaultMinLifetime,
//     DefaultMaxLifetime, DefaultSurvivalTimelineCap.
//   - Shrinking: Shrink, ShrinkConfig, SystemFactory, ShrinkResult,
//     ShrinkSize, ShrinkPass, ShrinkStop, ShrinkProgress, FailRate, Failure,
//     SameFailure, ErrNoFailure, ScenarioFromSurvival, CompleteSurvival,
//     ErrIncompleteSurvival, Scenario.WriteYAML, DefaultShrinkRuns,
//     DefaultShrinkNeed, DefaultShrinkReplays, DefaultShrinkBudget,
//     DefaultShrinkMaxRuns, MaxShrinkRuns.
//   - Bounds: MaxMetaDuration, MaxMetaNumber, MaxMetaString, MaxFaultDelay,
//     MaxRate, MaxWeight, MaxNameLength, MaxScenarioSize,
//     MaxScenarioExpanded, MaxScenarioSteps, MaxScenarioLength,
//     MaxScenarioTimeout, MaxScenarioErrors, MaxScenarioErrorBytes,
//     MaxSurvivalDuration, MaxSurvivalTicks, MaxSurvivalActiveFaults,
//     MinSurvivalInterval, MaxProbeInterval, MaxStableSamples,
//     MaxObserveWindow, MaxListCap, IdentifierProblem.
//   - Regression: RegressionTester, NewRegressionTester, RegressionConfig,
//     RegressionMode, RegressionResult, RegressionVerdict (VerdictBetter, VerdictWorse,
//     VerdictNoDifference, VerdictInconclusive), ArmSummary, EffectSize, RegressionError,
//     ErrTooFewRuns, ErrZeroVariance, CompareScores, SampleSize,
//     OneSidedSampleSize, Scorer, ContextScorer, ScorerFunc,
//     ContextScorerFunc, EnsembleScorer, NewEnsembleScorer, Trial, Arm,
//     DefaultRegressionAlpha, DefaultRegressionMDE, DefaultRegressionPower,
//     DefaultMaxRunsFactor.
package arena
