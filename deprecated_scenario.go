package arena

import (
	"context"

	"github.com/ares-arena/arena/scenario"
)

// The names of package scenario as they were in package arena.

// DefaultMaxConcurrent is scenario.DefaultMaxConcurrent.
//
// Deprecated: use scenario.DefaultMaxConcurrent.
const DefaultMaxConcurrent = scenario.DefaultMaxConcurrent

// DefaultScenarioSlack is scenario.DefaultSlack.
//
// Deprecated: use scenario.DefaultSlack.
const DefaultScenarioSlack = scenario.DefaultSlack

// ErrInvalidScenario is scenario.ErrInvalid.
//
// Deprecated: use scenario.ErrInvalid.
var ErrInvalidScenario = scenario.ErrInvalid

// ExpectFailure is scenario.ExpectFailure.
//
// Deprecated: use scenario.ExpectFailure.
const ExpectFailure = scenario.ExpectFailure

// ExpectSuccess is scenario.ExpectSuccess.
//
// Deprecated: use scenario.ExpectSuccess.
const ExpectSuccess = scenario.ExpectSuccess

// Gate is scenario.Gate.
//
// Deprecated: use scenario.Gate.
type Gate = scenario.Gate

// GateCheck is scenario.GateCheck.
//
// Deprecated: use scenario.GateCheck.
type GateCheck = scenario.GateCheck

// GateFailed is scenario.GateFailed.
//
// Deprecated: use scenario.GateFailed.
const GateFailed = scenario.GateFailed

// GateInconclusive is scenario.GateInconclusive.
//
// Deprecated: use scenario.GateInconclusive.
const GateInconclusive = scenario.GateInconclusive

// GatePassed is scenario.GatePassed.
//
// Deprecated: use scenario.GatePassed.
const GatePassed = scenario.GatePassed

// GateResult is scenario.GateResult.
//
// Deprecated: use scenario.GateResult.
type GateResult = scenario.GateResult

// GateVerdict is scenario.GateVerdict.
//
// Deprecated: use scenario.GateVerdict.
type GateVerdict = scenario.GateVerdict

// LoadScenario is scenario.Load.
//
// Deprecated: use scenario.Load.
func LoadScenario(data []byte, name string, extra ...FaultSpec) (*Scenario, error) {
	return scenario.Load(data, name, extra...)
}

// LoadScenarioFile is scenario.LoadFile.
//
// Deprecated: use scenario.LoadFile.
func LoadScenarioFile(path string, extra ...FaultSpec) (*Scenario, error) {
	return scenario.LoadFile(path, extra...)
}

// MaxNameLength is scenario.MaxNameLength.
//
// Deprecated: use scenario.MaxNameLength.
const MaxNameLength = scenario.MaxNameLength

// MaxScenarioErrorBytes is scenario.MaxErrorBytes.
//
// Deprecated: use scenario.MaxErrorBytes.
const MaxScenarioErrorBytes = scenario.MaxErrorBytes

// MaxScenarioErrors is scenario.MaxErrors.
//
// Deprecated: use scenario.MaxErrors.
const MaxScenarioErrors = scenario.MaxErrors

// MaxScenarioExpanded is scenario.MaxExpanded.
//
// Deprecated: use scenario.MaxExpanded.
const MaxScenarioExpanded = scenario.MaxExpanded

// MaxScenarioLength is scenario.MaxLength.
//
// Deprecated: use scenario.MaxLength.
const MaxScenarioLength = scenario.MaxLength

// MaxScenarioSize is scenario.MaxSize.
//
// Deprecated: use scenario.MaxSize.
const MaxScenarioSize = scenario.MaxSize

// MaxScenarioSteps is scenario.MaxSteps.
//
// Deprecated: use scenario.MaxSteps.
const MaxScenarioSteps = scenario.MaxSteps

// MaxScenarioTimeout is scenario.MaxTimeout.
//
// Deprecated: use scenario.MaxTimeout.
const MaxScenarioTimeout = scenario.MaxTimeout

// OutcomeAborted is scenario.OutcomeAborted.
//
// Deprecated: use scenario.OutcomeAborted.
const OutcomeAborted = scenario.OutcomeAborted

// OutcomeCancelled is scenario.OutcomeCancelled.
//
// Deprecated: use scenario.OutcomeCancelled.
const OutcomeCancelled = scenario.OutcomeCancelled

// OutcomeCompleted is scenario.OutcomeCompleted.
//
// Deprecated: use scenario.OutcomeCompleted.
const OutcomeCompleted = scenario.OutcomeCompleted

// OutcomeStopped is scenario.OutcomeStopped.
//
// Deprecated: use scenario.OutcomeStopped.
const OutcomeStopped = scenario.OutcomeStopped

// OutcomeTimedOut is scenario.OutcomeTimedOut.
//
// Deprecated: use scenario.OutcomeTimedOut.
const OutcomeTimedOut = scenario.OutcomeTimedOut

// RunOutcome is scenario.Outcome.
//
// Deprecated: use scenario.Outcome.
type RunOutcome = scenario.Outcome

// RunScenarioReport is scenario.Run.
//
// Deprecated: use scenario.Run.
func RunScenarioReport(ctx context.Context, svc *Service, sc *Scenario) (*ScenarioReport, error) {
	return scenario.Run(ctx, svc, sc)
}

// Scenario is scenario.Scenario.
//
// Deprecated: use scenario.Scenario.
type Scenario = scenario.Scenario

// ScenarioConfig is scenario.Config.
//
// Deprecated: use scenario.Config.
type ScenarioConfig = scenario.Config

// ScenarioError is scenario.Error.
//
// Deprecated: use scenario.Error.
type ScenarioError = scenario.Error

// ScenarioErrors is scenario.Errors.
//
// Deprecated: use scenario.Errors.
type ScenarioErrors = scenario.Errors

// ScenarioObserve is scenario.Observe.
//
// Deprecated: use scenario.Observe.
type ScenarioObserve = scenario.Observe

// ScenarioReport is scenario.Report.
//
// Deprecated: use scenario.Report.
type ScenarioReport = scenario.Report

// ScenarioStep is scenario.Step.
//
// Deprecated: use scenario.Step.
type ScenarioStep = scenario.Step

// StepExpect is scenario.StepExpect.
//
// Deprecated: use scenario.StepExpect.
type StepExpect = scenario.StepExpect

// StepFailed is scenario.StepFailed.
//
// Deprecated: use scenario.StepFailed.
const StepFailed = scenario.StepFailed

// StepPassed is scenario.StepPassed.
//
// Deprecated: use scenario.StepPassed.
const StepPassed = scenario.StepPassed

// StepReport is scenario.StepReport.
//
// Deprecated: use scenario.StepReport.
type StepReport = scenario.StepReport

// StepSkipped is scenario.StepSkipped.
//
// Deprecated: use scenario.StepSkipped.
const StepSkipped = scenario.StepSkipped

// StepStatus is scenario.StepStatus.
//
// Deprecated: use scenario.StepStatus.
type StepStatus = scenario.StepStatus

// ValidateScenario is scenario.Validate.
//
// Deprecated: use scenario.Validate.
func ValidateScenario(sc *Scenario, extra ...FaultSpec) error { return scenario.Validate(sc, extra...) }
