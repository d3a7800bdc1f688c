package arena

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ares-arena/arena/engine"
)

// The names of package engine as they were in package arena.

// AbortWhen is engine.AbortWhen.
//
// Deprecated: use engine.AbortWhen.
type AbortWhen = engine.AbortWhen

// ActionEvent is engine.ActionEvent.
//
// Deprecated: use engine.ActionEvent.
type ActionEvent = engine.ActionEvent

// ActiveFault is engine.ActiveFault.
//
// Deprecated: use engine.ActiveFault.
type ActiveFault = engine.ActiveFault

// CheckResult is engine.CheckResult.
//
// Deprecated: use engine.CheckResult.
type CheckResult = engine.CheckResult

// ComputeScore is engine.ComputeScore.
//
// Deprecated: use engine.ComputeScore.
func ComputeScore(in Inputs, opts ScoreOptions) Score { return engine.ComputeScore(in, opts) }

// DefaultEmergencyTimeout is engine.DefaultEmergencyTimeout.
//
// Deprecated: use engine.DefaultEmergencyTimeout.
const DefaultEmergencyTimeout = engine.DefaultEmergencyTimeout

// DefaultHistoryCap is engine.DefaultHistoryCap.
//
// Deprecated: use engine.DefaultHistoryCap.
const DefaultHistoryCap = engine.DefaultHistoryCap

// DefaultListCap is engine.DefaultListCap.
//
// Deprecated: use engine.DefaultListCap.
const DefaultListCap = engine.DefaultListCap

// DefaultMaxActiveFaults is engine.DefaultMaxActiveFaults.
//
// Deprecated: use engine.DefaultMaxActiveFaults.
const DefaultMaxActiveFaults = engine.DefaultMaxActiveFaults

// DefaultMaxFaultDuration is engine.DefaultMaxFaultDuration.
//
// Deprecated: use engine.DefaultMaxFaultDuration.
const DefaultMaxFaultDuration = engine.DefaultMaxFaultDuration

// DefaultMaxLifetime is engine.DefaultMaxLifetime.
//
// Deprecated: use engine.DefaultMaxLifetime.
const DefaultMaxLifetime = engine.DefaultMaxLifetime

// DefaultMinLifetime is engine.DefaultMinLifetime.
//
// Deprecated: use engine.DefaultMinLifetime.
const DefaultMinLifetime = engine.DefaultMinLifetime

// DefaultProbeInterval is engine.DefaultProbeInterval.
//
// Deprecated: use engine.DefaultProbeInterval.
const DefaultProbeInterval = engine.DefaultProbeInterval

// DefaultProbeTimeout is engine.DefaultProbeTimeout.
//
// Deprecated: use engine.DefaultProbeTimeout.
const DefaultProbeTimeout = engine.DefaultProbeTimeout

// DefaultRecoveryDeadline is engine.DefaultRecoveryDeadline.
//
// Deprecated: use engine.DefaultRecoveryDeadline.
const DefaultRecoveryDeadline = engine.DefaultRecoveryDeadline

// DefaultRollbackTimeout is engine.DefaultRollbackTimeout.
//
// Deprecated: use engine.DefaultRollbackTimeout.
const DefaultRollbackTimeout = engine.DefaultRollbackTimeout

// DefaultSettleTime is engine.DefaultSettleTime.
//
// Deprecated: use engine.DefaultSettleTime.
const DefaultSettleTime = engine.DefaultSettleTime

// DefaultStableSamples is engine.DefaultStableSamples.
//
// Deprecated: use engine.DefaultStableSamples.
const DefaultStableSamples = engine.DefaultStableSamples

// DefaultSurvivalDuration is engine.DefaultSurvivalDuration.
//
// Deprecated: use engine.DefaultSurvivalDuration.
const DefaultSurvivalDuration = engine.DefaultSurvivalDuration

// DefaultSurvivalInterval is engine.DefaultSurvivalInterval.
//
// Deprecated: use engine.DefaultSurvivalInterval.
const DefaultSurvivalInterval = engine.DefaultSurvivalInterval

// DefaultSurvivalTimelineCap is engine.DefaultSurvivalTimelineCap.
//
// Deprecated: use engine.DefaultSurvivalTimelineCap.
const DefaultSurvivalTimelineCap = engine.DefaultSurvivalTimelineCap

// DefaultTimelineCap is engine.DefaultTimelineCap.
//
// Deprecated: use engine.DefaultTimelineCap.
const DefaultTimelineCap = engine.DefaultTimelineCap

// DefaultWeights is engine.DefaultWeights().
//
// Deprecated: use engine.DefaultWeights() (a function now: changing this
// copy changes no score).
var DefaultWeights = engine.DefaultWeights()

// Diagnostic is engine.Diagnostic.
//
// Deprecated: use engine.Diagnostic.
type Diagnostic = engine.Diagnostic

// Dimension is engine.Dimension.
//
// Deprecated: use engine.Dimension.
type Dimension = engine.Dimension

// DrawSeed is engine.DrawSeed.
//
// Deprecated: use engine.DrawSeed.
func DrawSeed() uint64 { return engine.DrawSeed() }

// EmergencyPriority is engine.EmergencyPriority.
//
// Deprecated: use engine.EmergencyPriority.
const EmergencyPriority = engine.EmergencyPriority

// ErrClockBusy is engine.ErrClockBusy.
//
// Deprecated: use engine.ErrClockBusy.
var ErrClockBusy = engine.ErrClockBusy

// ErrNoActiveFault is engine.ErrNoActiveFault.
//
// Deprecated: use engine.ErrNoActiveFault.
var ErrNoActiveFault = engine.ErrNoActiveFault

// ErrNoSurvival is engine.ErrNoSurvival.
//
// Deprecated: use engine.ErrNoSurvival.
var ErrNoSurvival = engine.ErrNoSurvival

// ErrRunActive is engine.ErrRunActive.
//
// Deprecated: use engine.ErrRunActive.
var ErrRunActive = engine.ErrRunActive

// ErrSurvivalRunning is engine.ErrSurvivalRunning.
//
// Deprecated: use engine.ErrSurvivalRunning.
var ErrSurvivalRunning = engine.ErrSurvivalRunning

// EventActionExecuted is engine.EventActionExecuted.
//
// Deprecated: use engine.EventActionExecuted.
const EventActionExecuted = engine.EventActionExecuted

// EventActionFailed is engine.EventActionFailed.
//
// Deprecated: use engine.EventActionFailed.
const EventActionFailed = engine.EventActionFailed

// EventFaultLifted is engine.EventFaultLifted.
//
// Deprecated: use engine.EventFaultLifted.
const EventFaultLifted = engine.EventFaultLifted

// EventFaultLost is engine.EventFaultLost.
//
// Deprecated: use engine.EventFaultLost.
const EventFaultLost = engine.EventFaultLost

// EventFaultRecovered is engine.EventFaultRecovered.
//
// Deprecated: use engine.EventFaultRecovered.
const EventFaultRecovered = engine.EventFaultRecovered

// EventFaultUndecided is engine.EventFaultUndecided.
//
// Deprecated: use engine.EventFaultUndecided.
const EventFaultUndecided = engine.EventFaultUndecided

// EventHealthChanged is engine.EventHealthChanged.
//
// Deprecated: use engine.EventHealthChanged.
const EventHealthChanged = engine.EventHealthChanged

// EventKind is engine.EventKind.
//
// Deprecated: use engine.EventKind.
type EventKind = engine.EventKind

// EventRunCompleted is engine.EventRunCompleted.
//
// Deprecated: use engine.EventRunCompleted.
const EventRunCompleted = engine.EventRunCompleted

// EventStore is engine.EventStore.
//
// Deprecated: use engine.EventStore.
type EventStore = engine.EventStore

// EventStream is engine.EventStream.
//
// Deprecated: use engine.EventStream.
const EventStream = engine.EventStream

// Evidence is engine.Evidence.
//
// Deprecated: use engine.Evidence.
type Evidence = engine.Evidence

// EvidenceInjectionFailure is engine.EvidenceInjectionFailure.
//
// Deprecated: use engine.EvidenceInjectionFailure.
const EvidenceInjectionFailure = engine.EvidenceInjectionFailure

// EvidenceStore is engine.EvidenceStore.
//
// Deprecated: use engine.EvidenceStore.
type EvidenceStore = engine.EvidenceStore

// EvidenceUnrecovered is engine.EvidenceUnrecovered.
//
// Deprecated: use engine.EvidenceUnrecovered.
const EvidenceUnrecovered = engine.EvidenceUnrecovered

// EvidenceViolation is engine.EvidenceViolation.
//
// Deprecated: use engine.EvidenceViolation.
const EvidenceViolation = engine.EvidenceViolation

// EvolutionCoordinator is engine.EvolutionCoordinator.
//
// Deprecated: use engine.EvolutionCoordinator.
type EvolutionCoordinator = engine.EvolutionCoordinator

// FaultOrigin is engine.FaultOrigin.
//
// Deprecated: use engine.FaultOrigin.
type FaultOrigin = engine.FaultOrigin

// FaultOutcome is engine.FaultOutcome.
//
// Deprecated: use engine.FaultOutcome.
type FaultOutcome = engine.FaultOutcome

// FaultRollback is engine.FaultRollback.
//
// Deprecated: use engine.FaultRollback.
type FaultRollback = engine.FaultRollback

// FaultTypeOutcome is engine.FaultTypeOutcome.
//
// Deprecated: use engine.FaultTypeOutcome.
type FaultTypeOutcome = engine.FaultTypeOutcome

// FaultTypeStats is engine.FaultTypeStats.
//
// Deprecated: use engine.FaultTypeStats.
type FaultTypeStats = engine.FaultTypeStats

// FlightEvent is engine.FlightEvent.
//
// Deprecated: use engine.FlightEvent.
type FlightEvent = engine.FlightEvent

// FlightReader is engine.FlightReader.
//
// Deprecated: use engine.FlightReader.
type FlightReader = engine.FlightReader

// FlightRecorder is engine.FlightRecorder.
//
// Deprecated: use engine.FlightRecorder.
type FlightRecorder = engine.FlightRecorder

// Grade is engine.Grade.
//
// Deprecated: use engine.Grade.
type Grade = engine.Grade

// GradeA is engine.GradeA.
//
// Deprecated: use engine.GradeA.
const GradeA = engine.GradeA

// GradeAPlus is engine.GradeAPlus.
//
// Deprecated: use engine.GradeAPlus.
const GradeAPlus = engine.GradeAPlus

// GradeB is engine.GradeB.
//
// Deprecated: use engine.GradeB.
const GradeB = engine.GradeB

// GradeC is engine.GradeC.
//
// Deprecated: use engine.GradeC.
const GradeC = engine.GradeC

// GradeD is engine.GradeD.
//
// Deprecated: use engine.GradeD.
const GradeD = engine.GradeD

// GradeF is engine.GradeF.
//
// Deprecated: use engine.GradeF.
const GradeF = engine.GradeF

// GradeFor is engine.GradeFor.
//
// Deprecated: use engine.GradeFor.
func GradeFor(score float64) Grade { return engine.GradeFor(score) }

// GradeNone is engine.GradeNone.
//
// Deprecated: use engine.GradeNone.
const GradeNone = engine.GradeNone

// HealthEvent is engine.HealthEvent.
//
// Deprecated: use engine.HealthEvent.
type HealthEvent = engine.HealthEvent

// Inputs is engine.Inputs.
//
// Deprecated: use engine.Inputs.
type Inputs = engine.Inputs

// KindCheck is engine.KindCheck.
//
// Deprecated: use engine.KindCheck.
const KindCheck = engine.KindCheck

// KindInject is engine.KindInject.
//
// Deprecated: use engine.KindInject.
const KindInject = engine.KindInject

// KindLift is engine.KindLift.
//
// Deprecated: use engine.KindLift.
const KindLift = engine.KindLift

// KindPhase is engine.KindPhase.
//
// Deprecated: use engine.KindPhase.
const KindPhase = engine.KindPhase

// KindSample is engine.KindSample.
//
// Deprecated: use engine.KindSample.
const KindSample = engine.KindSample

// MaxHealthReason is engine.MaxHealthReason.
//
// Deprecated: use engine.MaxHealthReason.
const MaxHealthReason = engine.MaxHealthReason

// MaxListCap is engine.MaxListCap.
//
// Deprecated: use engine.MaxListCap.
const MaxListCap = engine.MaxListCap

// MaxObserveWindow is engine.MaxObserveWindow.
//
// Deprecated: use engine.MaxObserveWindow.
const MaxObserveWindow = engine.MaxObserveWindow

// MaxProbeInterval is engine.MaxProbeInterval.
//
// Deprecated: use engine.MaxProbeInterval.
const MaxProbeInterval = engine.MaxProbeInterval

// MaxStableSamples is engine.MaxStableSamples.
//
// Deprecated: use engine.MaxStableSamples.
const MaxStableSamples = engine.MaxStableSamples

// MaxSurvivalActiveFaults is engine.MaxSurvivalActiveFaults.
//
// Deprecated: use engine.MaxSurvivalActiveFaults.
const MaxSurvivalActiveFaults = engine.MaxSurvivalActiveFaults

// MaxSurvivalDuration is engine.MaxSurvivalDuration.
//
// Deprecated: use engine.MaxSurvivalDuration.
const MaxSurvivalDuration = engine.MaxSurvivalDuration

// MaxSurvivalTicks is engine.MaxSurvivalTicks.
//
// Deprecated: use engine.MaxSurvivalTicks.
const MaxSurvivalTicks = engine.MaxSurvivalTicks

// MaxWeight is engine.MaxWeight.
//
// Deprecated: use engine.MaxWeight.
const MaxWeight = engine.MaxWeight

// MetricsSnapshot is engine.MetricsSnapshot.
//
// Deprecated: use engine.MetricsSnapshot.
type MetricsSnapshot = engine.MetricsSnapshot

// MinProbeInterval is engine.MinProbeInterval.
//
// Deprecated: use engine.MinProbeInterval.
const MinProbeInterval = engine.MinProbeInterval

// MinSurvivalInterval is engine.MinSurvivalInterval.
//
// Deprecated: use engine.MinSurvivalInterval.
const MinSurvivalInterval = engine.MinSurvivalInterval

// NewService is engine.NewService.
//
// Deprecated: use engine.NewService.
func NewService(injector *Injector, store EventStore, evidence EvidenceStore, opts ...Option) *Service {
	return engine.NewService(injector, store, evidence, opts...)
}

// ObserveOptions is engine.ObserveOptions.
//
// Deprecated: use engine.ObserveOptions.
type ObserveOptions = engine.ObserveOptions

// ObserveSetting is engine.ObserveSetting.
//
// Deprecated: use engine.ObserveSetting.
type ObserveSetting = engine.ObserveSetting

// Option is engine.Option.
//
// Deprecated: use engine.Option.
type Option = engine.Option

// OriginExecute is engine.OriginExecute.
//
// Deprecated: use engine.OriginExecute.
const OriginExecute = engine.OriginExecute

// OriginRegression is engine.OriginRegression.
//
// Deprecated: use engine.OriginRegression.
const OriginRegression = engine.OriginRegression

// OriginRun is engine.OriginRun.
//
// Deprecated: use engine.OriginRun.
const OriginRun = engine.OriginRun

// OriginScenario is engine.OriginScenario.
//
// Deprecated: use engine.OriginScenario.
const OriginScenario = engine.OriginScenario

// OriginSurvival is engine.OriginSurvival.
//
// Deprecated: use engine.OriginSurvival.
const OriginSurvival = engine.OriginSurvival

// ParseGrade is engine.ParseGrade.
//
// Deprecated: use engine.ParseGrade.
func ParseGrade(s string) (Grade, error) { return engine.ParseGrade(s) }

// ParseMix is engine.ParseMix.
//
// Deprecated: use engine.ParseMix.
func ParseMix(s string) (map[ActionType]float64, error) { return engine.ParseMix(s) }

// PatchProposal is engine.PatchProposal.
//
// Deprecated: use engine.PatchProposal.
type PatchProposal = engine.PatchProposal

// Report is engine.Report.
//
// Deprecated: use engine.Report.
type Report = engine.Report

// RollbackFailed is engine.RollbackFailed.
//
// Deprecated: use engine.RollbackFailed.
const RollbackFailed = engine.RollbackFailed

// RollbackLeftToHeal is engine.RollbackLeftToHeal.
//
// Deprecated: use engine.RollbackLeftToHeal.
const RollbackLeftToHeal = engine.RollbackLeftToHeal

// RollbackLifted is engine.RollbackLifted.
//
// Deprecated: use engine.RollbackLifted.
const RollbackLifted = engine.RollbackLifted

// Run is engine.Run.
//
// Deprecated: use engine.Run.
type Run = engine.Run

// RunActiveError is engine.RunActiveError.
//
// Deprecated: use engine.RunActiveError.
type RunActiveError = engine.RunActiveError

// RunOptions is engine.RunOptions.
//
// Deprecated: use engine.RunOptions.
type RunOptions = engine.RunOptions

// RunSchedule is engine.RunSchedule.
//
// Deprecated: use engine.RunSchedule.
func RunSchedule(ctx context.Context, svc *Service, opts RunOptions, steps ...Step) (*Report, error) {
	return engine.RunSchedule(ctx, svc, opts, steps...)
}

// RunStatus is engine.RunStatus.
//
// Deprecated: use engine.RunStatus.
type RunStatus = engine.RunStatus

// Score is engine.Score.
//
// Deprecated: use engine.Score.
type Score = engine.Score

// ScoreOptions is engine.ScoreOptions.
//
// Deprecated: use engine.ScoreOptions.
type ScoreOptions = engine.ScoreOptions

// Service is engine.Service.
//
// Deprecated: use engine.Service.
type Service = engine.Service

// Stats is engine.Stats.
//
// Deprecated: use engine.Stats.
type Stats = engine.Stats

// Step is engine.Step.
//
// Deprecated: use engine.Step.
type Step = engine.Step

// SurvivalAborted is engine.SurvivalAborted.
//
// Deprecated: use engine.SurvivalAborted.
const SurvivalAborted = engine.SurvivalAborted

// SurvivalCompleted is engine.SurvivalCompleted.
//
// Deprecated: use engine.SurvivalCompleted.
const SurvivalCompleted = engine.SurvivalCompleted

// SurvivalConfig is engine.SurvivalConfig.
//
// Deprecated: use engine.SurvivalConfig.
type SurvivalConfig = engine.SurvivalConfig

// SurvivalEnding is engine.SurvivalEnding.
//
// Deprecated: use engine.SurvivalEnding.
type SurvivalEnding = engine.SurvivalEnding

// SurvivalEvent is engine.SurvivalEvent.
//
// Deprecated: use engine.SurvivalEvent.
type SurvivalEvent = engine.SurvivalEvent

// SurvivalInterrupted is engine.SurvivalInterrupted.
//
// Deprecated: use engine.SurvivalInterrupted.
const SurvivalInterrupted = engine.SurvivalInterrupted

// SurvivalReport is engine.SurvivalReport.
//
// Deprecated: use engine.SurvivalReport.
type SurvivalReport = engine.SurvivalReport

// SurvivalStatus is engine.SurvivalStatus.
//
// Deprecated: use engine.SurvivalStatus.
type SurvivalStatus = engine.SurvivalStatus

// SurvivalStopped is engine.SurvivalStopped.
//
// Deprecated: use engine.SurvivalStopped.
const SurvivalStopped = engine.SurvivalStopped

// TargetFilter is engine.TargetFilter.
//
// Deprecated: use engine.TargetFilter.
type TargetFilter = engine.TargetFilter

// Transition is engine.Transition.
//
// Deprecated: use engine.Transition.
type Transition = engine.Transition

// Weights is engine.Weights.
//
// Deprecated: use engine.Weights.
type Weights = engine.Weights

// WithChecks is engine.WithChecks.
//
// Deprecated: use engine.WithChecks.
func WithChecks(checks ...Check) Option { return engine.WithChecks(checks...) }

// WithClock is engine.WithClock.
//
// Deprecated: use engine.WithClock.
func WithClock(c Clock) Option { return engine.WithClock(c) }

// WithEmergencyTimeout is engine.WithEmergencyTimeout.
//
// Deprecated: use engine.WithEmergencyTimeout.
func WithEmergencyTimeout(d time.Duration) Option { return engine.WithEmergencyTimeout(d) }

// WithEvolution is engine.WithEvolution.
//
// Deprecated: use engine.WithEvolution.
func WithEvolution(ec EvolutionCoordinator) Option { return engine.WithEvolution(ec) }

// WithFlightRecorder is engine.WithFlightRecorder.
//
// Deprecated: use engine.WithFlightRecorder.
func WithFlightRecorder(fr FlightRecorder) Option { return engine.WithFlightRecorder(fr) }

// WithHistoryCap is engine.WithHistoryCap.
//
// Deprecated: use engine.WithHistoryCap.
func WithHistoryCap(n int) Option { return engine.WithHistoryCap(n) }

// WithMaxFaultDuration is engine.WithMaxFaultDuration.
//
// Deprecated: use engine.WithMaxFaultDuration.
func WithMaxFaultDuration(d time.Duration) Option { return engine.WithMaxFaultDuration(d) }

// WithObserveOptions is engine.WithObserveOptions.
//
// Deprecated: use engine.WithObserveOptions.
func WithObserveOptions(opts ObserveOptions) Option { return engine.WithObserveOptions(opts) }

// WithProbe is engine.WithProbe.
//
// Deprecated: use engine.WithProbe.
func WithProbe(p Probe) Option { return engine.WithProbe(p) }

// WithRegisterer is engine.WithRegisterer.
//
// Deprecated: use engine.WithRegisterer.
func WithRegisterer(reg prometheus.Registerer) Option { return engine.WithRegisterer(reg) }

// WithRollbackTimeout is engine.WithRollbackTimeout.
//
// Deprecated: use engine.WithRollbackTimeout.
func WithRollbackTimeout(d time.Duration) Option { return engine.WithRollbackTimeout(d) }

// WithSeed is engine.WithSeed.
//
// Deprecated: use engine.WithSeed.
func WithSeed(seed uint64) Option { return engine.WithSeed(seed) }
