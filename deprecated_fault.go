package arena

import (
	"github.com/ares-arena/arena/fault"
)

// The names of package fault as they were in package arena.

// Action is fault.Action.
//
// Deprecated: use fault.Action.
type Action = fault.Action

// ActionClockJump is fault.ClockJump.
//
// Deprecated: use fault.ClockJump.
const ActionClockJump = fault.ClockJump

// ActionConnectionReset is fault.ConnectionReset.
//
// Deprecated: use fault.ConnectionReset.
const ActionConnectionReset = fault.ConnectionReset

// ActionKillAgent is fault.KillAgent.
//
// Deprecated: use fault.KillAgent.
const ActionKillAgent = fault.KillAgent

// ActionKillLeader is fault.KillLeader.
//
// Deprecated: use fault.KillLeader.
const ActionKillLeader = fault.KillLeader

// ActionKillOrchestrator is fault.KillOrchestrator.
//
// Deprecated: use fault.KillOrchestrator.
const ActionKillOrchestrator = fault.KillOrchestrator

// ActionLLMFailure is fault.LLMFailure.
//
// Deprecated: use fault.LLMFailure.
const ActionLLMFailure = fault.LLMFailure

// ActionMCPDisconnect is fault.MCPDisconnect.
//
// Deprecated: use fault.MCPDisconnect.
const ActionMCPDisconnect = fault.MCPDisconnect

// ActionMemoryCorrupt is fault.MemoryCorrupt.
//
// Deprecated: use fault.MemoryCorrupt.
const ActionMemoryCorrupt = fault.MemoryCorrupt

// ActionNetworkBandwidth is fault.NetworkBandwidth.
//
// Deprecated: use fault.NetworkBandwidth.
const ActionNetworkBandwidth = fault.NetworkBandwidth

// ActionNetworkLatency is fault.NetworkLatency.
//
// Deprecated: use fault.NetworkLatency.
const ActionNetworkLatency = fault.NetworkLatency

// ActionNetworkPartition is fault.NetworkPartition.
//
// Deprecated: use fault.NetworkPartition.
const ActionNetworkPartition = fault.NetworkPartition

// ActionPauseAgent is fault.PauseAgent.
//
// Deprecated: use fault.PauseAgent.
const ActionPauseAgent = fault.PauseAgent

// ActionRemoveEdge is fault.RemoveEdge.
//
// Deprecated: use fault.RemoveEdge.
const ActionRemoveEdge = fault.RemoveEdge

// ActionRemoveNode is fault.RemoveNode.
//
// Deprecated: use fault.RemoveNode.
const ActionRemoveNode = fault.RemoveNode

// ActionResumeAgent is fault.ResumeAgent.
//
// Deprecated: use fault.ResumeAgent.
const ActionResumeAgent = fault.ResumeAgent

// ActionSlowAgent is fault.SlowAgent.
//
// Deprecated: use fault.SlowAgent.
const ActionSlowAgent = fault.SlowAgent

// ActionToolTimeout is fault.ToolTimeout.
//
// Deprecated: use fault.ToolTimeout.
const ActionToolTimeout = fault.ToolTimeout

// ActionType is fault.Type.
//
// Deprecated: use fault.Type.
type ActionType = fault.Type

// ActionTypes is fault.Types.
//
// Deprecated: use fault.Types.
func ActionTypes() []ActionType { return fault.Types() }

// AgentChange is fault.AgentChange.
//
// Deprecated: use fault.AgentChange.
type AgentChange = fault.AgentChange

// AgentFeed is fault.AgentFeed.
//
// Deprecated: use fault.AgentFeed.
type AgentFeed = fault.AgentFeed

// AgentInfo is fault.AgentInfo.
//
// Deprecated: use fault.AgentInfo.
type AgentInfo = fault.AgentInfo

// AgentLister is fault.AgentLister.
//
// Deprecated: use fault.AgentLister.
type AgentLister = fault.AgentLister

// AgentStatus is fault.AgentStatus.
//
// Deprecated: use fault.AgentStatus.
type AgentStatus = fault.AgentStatus

// AgentStopper is fault.AgentStopper.
//
// Deprecated: use fault.AgentStopper.
type AgentStopper = fault.AgentStopper

// BandwidthLimiter is fault.BandwidthLimiter.
//
// Deprecated: use fault.BandwidthLimiter.
type BandwidthLimiter = fault.BandwidthLimiter

// CategoryCancelled is fault.CategoryCancelled.
//
// Deprecated: use fault.CategoryCancelled.
const CategoryCancelled = fault.CategoryCancelled

// CategoryConfiguration is fault.CategoryConfiguration.
//
// Deprecated: use fault.CategoryConfiguration.
const CategoryConfiguration = fault.CategoryConfiguration

// CategoryDAG is fault.CategoryDAG.
//
// Deprecated: use fault.CategoryDAG.
const CategoryDAG = fault.CategoryDAG

// CategoryInvalidAction is fault.CategoryInvalidAction.
//
// Deprecated: use fault.CategoryInvalidAction.
const CategoryInvalidAction = fault.CategoryInvalidAction

// CategoryProviderPanic is fault.CategoryProviderPanic.
//
// Deprecated: use fault.CategoryProviderPanic.
const CategoryProviderPanic = fault.CategoryProviderPanic

// CategoryRuntime is fault.CategoryRuntime.
//
// Deprecated: use fault.CategoryRuntime.
const CategoryRuntime = fault.CategoryRuntime

// CategoryTargeting is fault.CategoryTargeting.
//
// Deprecated: use fault.CategoryTargeting.
const CategoryTargeting = fault.CategoryTargeting

// Check is fault.Check.
//
// Deprecated: use fault.Check.
type Check = fault.Check

// ClockJumper is fault.ClockJumper.
//
// Deprecated: use fault.ClockJumper.
type ClockJumper = fault.ClockJumper

// ConnectionResetter is fault.ConnectionResetter.
//
// Deprecated: use fault.ConnectionResetter.
type ConnectionResetter = fault.ConnectionResetter

// DAGFeed is fault.DAGFeed.
//
// Deprecated: use fault.DAGFeed.
type DAGFeed = fault.DAGFeed

// DAGProvider is fault.DAGProvider.
//
// Deprecated: use fault.DAGProvider.
type DAGProvider = fault.DAGProvider

// DefaultClockOffset is fault.DefaultClockOffset.
//
// Deprecated: use fault.DefaultClockOffset.
const DefaultClockOffset = fault.DefaultClockOffset

// DefaultLLMError is fault.DefaultLLMError.
//
// Deprecated: use fault.DefaultLLMError.
const DefaultLLMError = fault.DefaultLLMError

// DefaultLatency is fault.DefaultLatency.
//
// Deprecated: use fault.DefaultLatency.
const DefaultLatency = fault.DefaultLatency

// DefaultRate is fault.DefaultRate.
//
// Deprecated: use fault.DefaultRate.
const DefaultRate = fault.DefaultRate

// DefaultSlowDelay is fault.DefaultSlowDelay.
//
// Deprecated: use fault.DefaultSlowDelay.
const DefaultSlowDelay = fault.DefaultSlowDelay

// DefaultToolTimeout is fault.DefaultToolTimeout.
//
// Deprecated: use fault.DefaultToolTimeout.
const DefaultToolTimeout = fault.DefaultToolTimeout

// Direction is fault.Direction.
//
// Deprecated: use fault.Direction.
type Direction = fault.Direction

// DirectionBoth is fault.DirectionBoth.
//
// Deprecated: use fault.DirectionBoth.
const DirectionBoth = fault.DirectionBoth

// DirectionInbound is fault.DirectionInbound.
//
// Deprecated: use fault.DirectionInbound.
const DirectionInbound = fault.DirectionInbound

// DirectionOutbound is fault.DirectionOutbound.
//
// Deprecated: use fault.DirectionOutbound.
const DirectionOutbound = fault.DirectionOutbound

// Edge is fault.Edge.
//
// Deprecated: use fault.Edge.
type Edge = fault.Edge

// EdgeChange is fault.EdgeChange.
//
// Deprecated: use fault.EdgeChange.
type EdgeChange = fault.EdgeChange

// ErrBuiltinName is fault.ErrBuiltinName.
//
// Deprecated: use fault.ErrBuiltinName.
var ErrBuiltinName = fault.ErrBuiltinName

// ErrCannotLand is fault.ErrCannotLand.
//
// Deprecated: use fault.ErrCannotLand.
var ErrCannotLand = fault.ErrCannotLand

// ErrInvalidAction is fault.ErrInvalidAction.
//
// Deprecated: use fault.ErrInvalidAction.
var ErrInvalidAction = fault.ErrInvalidAction

// ErrNoAgent is fault.ErrNoAgent.
//
// Deprecated: use fault.ErrNoAgent.
var ErrNoAgent = fault.ErrNoAgent

// ErrNoDAG is fault.ErrNoDAG.
//
// Deprecated: use fault.ErrNoDAG.
var ErrNoDAG = fault.ErrNoDAG

// ErrNoRuntime is fault.ErrNoRuntime.
//
// Deprecated: use fault.ErrNoRuntime.
var ErrNoRuntime = fault.ErrNoRuntime

// ErrNoTarget is fault.ErrNoTarget.
//
// Deprecated: use fault.ErrNoTarget.
var ErrNoTarget = fault.ErrNoTarget

// ErrNotApplicable is fault.ErrNotApplicable.
//
// Deprecated: use fault.ErrNotApplicable.
var ErrNotApplicable = fault.ErrNotApplicable

// ErrProviderPanic is fault.ErrProviderPanic.
//
// Deprecated: use fault.ErrProviderPanic.
var ErrProviderPanic = fault.ErrProviderPanic

// ErrUndecided is fault.ErrUndecided.
//
// Deprecated: use fault.ErrUndecided.
var ErrUndecided = fault.ErrUndecided

// ErrUnsupported is fault.ErrUnsupported.
//
// Deprecated: use fault.ErrUnsupported.
var ErrUnsupported = fault.ErrUnsupported

// FaultLifter is fault.Lifter.
//
// Deprecated: use fault.Lifter.
type FaultLifter = fault.Lifter

// FaultSpec is fault.Spec.
//
// Deprecated: use fault.Spec.
type FaultSpec = fault.Spec

// FaultSpecs is fault.Specs.
//
// Deprecated: use fault.Specs.
func FaultSpecs() []FaultSpec { return fault.Specs() }

// HealReporter is fault.HealReporter.
//
// Deprecated: use fault.HealReporter.
type HealReporter = fault.HealReporter

// IdentifierProblem is fault.IdentifierProblem.
//
// Deprecated: use fault.IdentifierProblem.
func IdentifierProblem(id string) string { return fault.IdentifierProblem(id) }

// Injector is fault.Injector.
//
// Deprecated: use fault.Injector.
type Injector = fault.Injector

// InjectorOption is fault.InjectorOption.
//
// Deprecated: use fault.InjectorOption.
type InjectorOption = fault.InjectorOption

// LLMErrorType is fault.LLMErrorType.
//
// Deprecated: use fault.LLMErrorType.
type LLMErrorType = fault.LLMErrorType

// LLMErrorTypes is fault.LLMErrorTypes.
//
// Deprecated: use fault.LLMErrorTypes.
func LLMErrorTypes() []LLMErrorType { return fault.LLMErrorTypes() }

// LLMFailer is fault.LLMFailer.
//
// Deprecated: use fault.LLMFailer.
type LLMFailer = fault.LLMFailer

// LLMInvalidResponse is fault.LLMInvalidResponse.
//
// Deprecated: use fault.LLMInvalidResponse.
const LLMInvalidResponse = fault.LLMInvalidResponse

// LLMOverloaded is fault.LLMOverloaded.
//
// Deprecated: use fault.LLMOverloaded.
const LLMOverloaded = fault.LLMOverloaded

// LLMRateLimit is fault.LLMRateLimit.
//
// Deprecated: use fault.LLMRateLimit.
const LLMRateLimit = fault.LLMRateLimit

// LLMServerError is fault.LLMServerError.
//
// Deprecated: use fault.LLMServerError.
const LLMServerError = fault.LLMServerError

// LLMTimeout is fault.LLMTimeout.
//
// Deprecated: use fault.LLMTimeout.
const LLMTimeout = fault.LLMTimeout

// Latency is fault.Latency.
//
// Deprecated: use fault.Latency.
type Latency = fault.Latency

// LatencyInjector is fault.LatencyInjector.
//
// Deprecated: use fault.LatencyInjector.
type LatencyInjector = fault.LatencyInjector

// Lift is fault.Lift.
//
// Deprecated: use fault.Lift.
type Lift = fault.Lift

// LookupFault is fault.Lookup.
//
// Deprecated: use fault.Lookup.
func LookupFault(t ActionType) (FaultSpec, bool) { return fault.Lookup(t) }

// MCPDisconnecter is fault.MCPDisconnecter.
//
// Deprecated: use fault.MCPDisconnecter.
type MCPDisconnecter = fault.MCPDisconnecter

// MaxFaultDelay is fault.MaxDelay.
//
// Deprecated: use fault.MaxDelay.
const MaxFaultDelay = fault.MaxDelay

// MaxMetaDuration is fault.MaxMetaDuration.
//
// Deprecated: use fault.MaxMetaDuration.
const MaxMetaDuration = fault.MaxMetaDuration

// MaxMetaNumber is fault.MaxMetaNumber.
//
// Deprecated: use fault.MaxMetaNumber.
const MaxMetaNumber = fault.MaxMetaNumber

// MaxMetaString is fault.MaxMetaString.
//
// Deprecated: use fault.MaxMetaString.
const MaxMetaString = fault.MaxMetaString

// MaxRate is fault.MaxRate.
//
// Deprecated: use fault.MaxRate.
const MaxRate = fault.MaxRate

// MemoryCorrupter is fault.MemoryCorrupter.
//
// Deprecated: use fault.MemoryCorrupter.
type MemoryCorrupter = fault.MemoryCorrupter

// MetaAfter is fault.MetaAfter.
//
// Deprecated: use fault.MetaAfter.
const MetaAfter = fault.MetaAfter

// MetaDelay is fault.MetaDelay.
//
// Deprecated: use fault.MetaDelay.
const MetaDelay = fault.MetaDelay

// MetaDirection is fault.MetaDirection.
//
// Deprecated: use fault.MetaDirection.
const MetaDirection = fault.MetaDirection

// MetaDuration is fault.MetaDuration.
//
// Deprecated: use fault.MetaDuration.
const MetaDuration = fault.MetaDuration

// MetaErrorType is fault.MetaErrorType.
//
// Deprecated: use fault.MetaErrorType.
const MetaErrorType = fault.MetaErrorType

// MetaJitter is fault.MetaJitter.
//
// Deprecated: use fault.MetaJitter.
const MetaJitter = fault.MetaJitter

// MetaKey is fault.MetaKey.
//
// Deprecated: use fault.MetaKey.
type MetaKey = fault.MetaKey

// MetaKind is fault.MetaKind.
//
// Deprecated: use fault.MetaKind.
type MetaKind = fault.MetaKind

// MetaKindDuration is fault.MetaKindDuration.
//
// Deprecated: use fault.MetaKindDuration.
const MetaKindDuration = fault.MetaKindDuration

// MetaKindNumber is fault.MetaKindNumber.
//
// Deprecated: use fault.MetaKindNumber.
const MetaKindNumber = fault.MetaKindNumber

// MetaKindString is fault.MetaKindString.
//
// Deprecated: use fault.MetaKindString.
const MetaKindString = fault.MetaKindString

// MetaLatency is fault.MetaLatency.
//
// Deprecated: use fault.MetaLatency.
const MetaLatency = fault.MetaLatency

// MetaOffset is fault.MetaOffset.
//
// Deprecated: use fault.MetaOffset.
const MetaOffset = fault.MetaOffset

// MetaPeer is fault.MetaPeer.
//
// Deprecated: use fault.MetaPeer.
const MetaPeer = fault.MetaPeer

// MetaRate is fault.MetaRate.
//
// Deprecated: use fault.MetaRate.
const MetaRate = fault.MetaRate

// MetaTimeout is fault.MetaTimeout.
//
// Deprecated: use fault.MetaTimeout.
const MetaTimeout = fault.MetaTimeout

// NewInjector is fault.NewInjector.
//
// Deprecated: use fault.NewInjector.
func NewInjector(runtime RuntimeProvider, dag DAGProvider, opts ...InjectorOption) *Injector {
	return fault.NewInjector(runtime, dag, opts...)
}

// NewInjectorFor is fault.NewInjectorFor.
//
// Deprecated: use fault.NewInjectorFor.
func NewInjectorFor(rt AgentLister, opts ...InjectorOption) *Injector {
	return fault.NewInjectorFor(rt, opts...)
}

// NodeChange is fault.NodeChange.
//
// Deprecated: use fault.NodeChange.
type NodeChange = fault.NodeChange

// Params is fault.Params.
//
// Deprecated: use fault.Params.
type Params = fault.Params

// Partitioner is fault.Partitioner.
//
// Deprecated: use fault.Partitioner.
type Partitioner = fault.Partitioner

// Pauser is fault.Pauser.
//
// Deprecated: use fault.Pauser.
type Pauser = fault.Pauser

// Probe is fault.Probe.
//
// Deprecated: use fault.Probe.
type Probe = fault.Probe

// Refuser is fault.Refuser.
//
// Deprecated: use fault.Refuser.
type Refuser = fault.Refuser

// ReportDirEnv is fault.ReportDirEnv.
//
// Deprecated: use fault.ReportDirEnv.
const ReportDirEnv = fault.ReportDirEnv

// Result is fault.Result.
//
// Deprecated: use fault.Result.
type Result = fault.Result

// RoleResolver is fault.RoleResolver.
//
// Deprecated: use fault.RoleResolver.
type RoleResolver = fault.RoleResolver

// RuntimeProvider is fault.RuntimeProvider.
//
// Deprecated: use fault.RuntimeProvider.
type RuntimeProvider = fault.RuntimeProvider

// Slower is fault.Slower.
//
// Deprecated: use fault.Slower.
type Slower = fault.Slower

// StatusPaused is fault.StatusPaused.
//
// Deprecated: use fault.StatusPaused.
const StatusPaused = fault.StatusPaused

// StatusRunning is fault.StatusRunning.
//
// Deprecated: use fault.StatusRunning.
const StatusRunning = fault.StatusRunning

// StatusStopped is fault.StatusStopped.
//
// Deprecated: use fault.StatusStopped.
const StatusStopped = fault.StatusStopped

// TargetAgent is fault.TargetAgent.
//
// Deprecated: use fault.TargetAgent.
const TargetAgent = fault.TargetAgent

// TargetEdge is fault.TargetEdge.
//
// Deprecated: use fault.TargetEdge.
const TargetEdge = fault.TargetEdge

// TargetNode is fault.TargetNode.
//
// Deprecated: use fault.TargetNode.
const TargetNode = fault.TargetNode

// TargetRole is fault.TargetRole.
//
// Deprecated: use fault.TargetRole.
const TargetRole = fault.TargetRole

// TargetRule is fault.TargetRule.
//
// Deprecated: use fault.TargetRule.
type TargetRule = fault.TargetRule

// TargetSystem is fault.TargetSystem.
//
// Deprecated: use fault.TargetSystem.
const TargetSystem = fault.TargetSystem

// ToolTimeouter is fault.ToolTimeouter.
//
// Deprecated: use fault.ToolTimeouter.
type ToolTimeouter = fault.ToolTimeouter

// TypeLeader is fault.TypeLeader.
//
// Deprecated: use fault.TypeLeader.
const TypeLeader = fault.TypeLeader

// TypeOrchestrator is fault.TypeOrchestrator.
//
// Deprecated: use fault.TypeOrchestrator.
const TypeOrchestrator = fault.TypeOrchestrator

// TypeWorker is fault.TypeWorker.
//
// Deprecated: use fault.TypeWorker.
const TypeWorker = fault.TypeWorker

// UndecidedError is fault.UndecidedError.
//
// Deprecated: use fault.UndecidedError.
type UndecidedError = fault.UndecidedError

// ValidationError is fault.ValidationError.
//
// Deprecated: use fault.ValidationError.
type ValidationError = fault.ValidationError

// Violation is fault.Violation.
//
// Deprecated: use fault.Violation.
type Violation = fault.Violation

// ViolationOp is fault.ViolationOp.
//
// Deprecated: use fault.ViolationOp.
type ViolationOp = fault.ViolationOp

// WithDAG is fault.WithDAG.
//
// Deprecated: use fault.WithDAG.
func WithDAG(dag DAGProvider) InjectorOption { return fault.WithDAG(dag) }

// WithFault is fault.WithFault.
//
// Deprecated: use fault.WithFault.
func WithFault(spec FaultSpec) InjectorOption { return fault.WithFault(spec) }

// WithRoles is fault.WithRoles.
//
// Deprecated: use fault.WithRoles.
func WithRoles(r RoleResolver) InjectorOption { return fault.WithRoles(r) }
