// Package engine injects faults into a running system, watches how the
// system heals, and scores the healing: availability 40%, recovery 30%,
// consistency 30%, graded A+ to F. It is arena's engine; scenarios,
// shrinking and A/B tests are layers over it (packages scenario, shrink,
// regression), and the fault vocabulary is below it (package fault).
//
// # Quick start
//
// A system is a runtime (fault.RuntimeProvider, or only the capabilities
// it has) and optionally a fault.DAGProvider, plus a health probe and
// consistency checks. The fakes package has one in memory:
//
//	clk := clock.NewVirtual(time.Time{})
//	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(7))
//	svc := engine.NewService(fault.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
//		engine.WithClock(clk), engine.WithProbe(cluster.Probe), engine.WithChecks(cluster.Checks()...))
//	rep, err := engine.RunSchedule(ctx, svc, engine.RunOptions{Seed: 7, Duration: time.Minute},
//		engine.Step{At: 10 * time.Second, Action: fault.Action{Type: fault.KillLeader}})
//	fmt.Print(rep) // score, grade, dimensions, each fault with its TTR
//
// A *clock.Virtual makes the run virtual: the run jumps the clock from
// event to event, so an hour of chaos takes milliseconds and the same seed
// always gives the same report.
//
// # Service
//
// Service.Execute validates, resolves, injects (a provider panic becomes a
// failed fault.Result), and records: stats and a bounded history (Stats,
// History), Prometheus collectors on the Registerer passed with
// WithRegisterer, an event on the "arena" stream of the EventStore
// (appended with optimistic concurrency), evidence of failures
// (EvidenceStore), and the flight bridge (WithFlightRecorder: a timeline
// event per action, a Diagnostic per failure). The evolution bridge
// (WithEvolution) hears of faults the system did not heal well, once a run
// has observed their outcome: unrecovered, slower than the speed limit, or
// with a failed check. Priority ≥ 9 (leader or orchestrator loss) goes
// through ApplyEmergency under a timeout. A fault that failed to land is a
// harness problem: a diagnostic, never a patch proposal.
//
// # Fault lifecycle
//
// Every landed fault arena can lift is in the service's active-fault
// registry (ActiveFaults, LiftFault, ActiveFault with its FaultOrigin)
// until it is lifted: at its duration on the service's clock, whether it
// came from Execute (a timer; on a clock.Virtual, when the clock passes
// it) or from a run (a KindLift event); on request; or by a rollback. A
// run rolls back its faults however it ends and lists them in
// Report.Rollback (FaultRollback); Service.Rollback lifts everything, for
// processes and tests that end. A run holds its service: a second run, or
// an Execute outside it, gets a *RunActiveError (ErrRunActive); an A/B
// test holds it with a Lease. AbortWhen stops a run when the system is
// unhealthy too long, a named check fails or the score drops
// (Report.Aborted); a run does not start injecting into an unhealthy
// system. WithMaxFaultDuration bounds durations (default 1h).
//
// # Observation and scoring
//
// A Run (Service.NewRun, or RunSchedule for a fixed list of Steps) samples
// the probe every ObserveOptions.ProbeInterval (100ms), follows each
// landed fault to its outcome (FaultOutcome documents how TTR is
// measured), runs the checks after each recovery and at the end, and
// scores with ComputeScore:
//
//	availability = 100 × healthy samples / samples
//	recovery     = 100 × mean over landed faults of (0.7 × recovered + 0.3 × speed)
//	consistency  = 100 × passed checks / checks
//
// The total is the weighted mean over measured dimensions only; with
// nothing measured there is no grade (GradeNone). Faults that failed to
// land are listed in Report.InjectionErrors and not scored; a run that
// meant to land faults (Run.PlanFaults, else the faults it tried) and
// landed none has no grade either (Score.NoneLanded), and Score.Ungraded
// says why in one line. Events due at
// one instant run in a fixed order (EventKind): lifts, injections,
// samples, checks, phase edges.
//
// # Survival
//
// Service.RunSurvival injects a seeded random mix of faults for a long
// time (SurvivalConfig), choosing targets from the system's state, with at
// most MaxActiveFaults in place at once; SurvivalStatus and StopSurvival
// watch and end it.
//
// # Index
//
//   - Service: Service, NewService, Option (WithClock, WithProbe,
//     WithChecks, WithRegisterer, WithFlightRecorder, WithEvolution,
//     WithHistoryCap, WithSeed, WithEmergencyTimeout, WithObserveOptions,
//     WithMaxFaultDuration, WithRollbackTimeout), DefaultHistoryCap,
//     DefaultEmergencyTimeout, Stats, FaultTypeStats, MetricsSnapshot,
//     EventStore, Lease.
//   - Events: EventStream, EventActionExecuted, EventActionFailed (their
//     payload ActionEvent), EventFaultRecovered, EventFaultLost,
//     EventFaultUndecided, EventFaultLifted, EventHealthChanged,
//     EventRunCompleted.
//   - Lifecycle: ActiveFault, FaultOrigin, FaultRollback (RollbackLifted,
//     RollbackFailed, RollbackLeftToHeal), ErrNoActiveFault, ErrRunActive,
//     RunActiveError, AbortWhen, AbortedByCheck, DefaultMaxFaultDuration,
//     DefaultRollbackTimeout.
//   - Watching: Service.RunStatus, RunStatus, HealthEvent, MaxHealthReason,
//     Service.HistoryPage, Service.HistoryBefore.
//   - Runs: Run, RunOptions, RunSchedule, Step, DrawSeed, ErrClockBusy,
//     EventKind (for Run.At), ObserveOptions, ObserveSetting, CheckObserve,
//     DefaultProbeInterval, MinProbeInterval, DefaultProbeTimeout,
//     DefaultStableSamples, DefaultRecoveryDeadline, DefaultSettleTime,
//     DefaultTimelineCap, DefaultListCap.
//   - Scores: Report, FaultOutcome, CheckResult, Transition, Score,
//     Dimension, Grade, GradeFor, ParseGrade, ComputeScore, Inputs,
//     ScoreOptions, Weights, DefaultWeights, Run.PlanFaults,
//     UnlandedReason.
//   - Bridges: FlightRecorder, FlightReader, FlightEvent, Diagnostic,
//     EvolutionCoordinator, PatchProposal, EmergencyPriority,
//     EvidenceStore, Evidence (EvidenceInjectionFailure,
//     EvidenceUnrecovered, EvidenceViolation).
//   - Survival: SurvivalConfig, ParseMix, SurvivalReport, FaultTypeOutcome,
//     SurvivalEnding, SurvivalStatus, SurvivalEvent, TargetFilter,
//     ErrSurvivalRunning, ErrNoSurvival, DefaultSurvivalDuration,
//     DefaultSurvivalInterval, DefaultMaxActiveFaults, DefaultMinLifetime,
//     DefaultMaxLifetime, DefaultSurvivalTimelineCap.
//   - Bounds: MaxSurvivalDuration, MaxSurvivalTicks, MaxSurvivalActiveFaults,
//     MinSurvivalInterval, MaxProbeInterval, MaxStableSamples,
//     MaxObserveWindow, MaxListCap, MaxWeight.
package engine
