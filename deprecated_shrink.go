package arena

import (
	"context"

	"github.com/ares-arena/arena/shrink"
)

// The names of package shrink as they were in package arena.

// CompleteSurvival is shrink.CompleteSurvival.
//
// Deprecated: use shrink.CompleteSurvival.
func CompleteSurvival(ctx context.Context, rep *SurvivalReport, system SystemFactory) (*SurvivalReport, error) {
	return shrink.CompleteSurvival(ctx, rep, system)
}

// DefaultShrinkBudget is shrink.DefaultBudget.
//
// Deprecated: use shrink.DefaultBudget.
const DefaultShrinkBudget = shrink.DefaultBudget

// DefaultShrinkMaxRuns is shrink.DefaultMaxRuns.
//
// Deprecated: use shrink.DefaultMaxRuns.
const DefaultShrinkMaxRuns = shrink.DefaultMaxRuns

// DefaultShrinkNeed is shrink.DefaultNeed.
//
// Deprecated: use shrink.DefaultNeed.
const DefaultShrinkNeed = shrink.DefaultNeed

// DefaultShrinkReplays is shrink.DefaultReplays.
//
// Deprecated: use shrink.DefaultReplays.
const DefaultShrinkReplays = shrink.DefaultReplays

// DefaultShrinkRuns is shrink.DefaultRuns.
//
// Deprecated: use shrink.DefaultRuns.
const DefaultShrinkRuns = shrink.DefaultRuns

// ErrIncompleteSurvival is shrink.ErrIncompleteSurvival.
//
// Deprecated: use shrink.ErrIncompleteSurvival.
var ErrIncompleteSurvival = shrink.ErrIncompleteSurvival

// ErrNoFailure is shrink.ErrNoFailure.
//
// Deprecated: use shrink.ErrNoFailure.
var ErrNoFailure = shrink.ErrNoFailure

// FailRate is shrink.FailRate.
//
// Deprecated: use shrink.FailRate.
type FailRate = shrink.FailRate

// Failure is shrink.Failure.
//
// Deprecated: use shrink.Failure.
func Failure(rep *ScenarioReport) []string { return shrink.Failure(rep) }

// MaxShrinkRuns is shrink.MaxRepeats.
//
// Deprecated: use shrink.MaxRepeats.
const MaxShrinkRuns = shrink.MaxRepeats

// SameFailure is shrink.SameFailure.
//
// Deprecated: use shrink.SameFailure.
func SameFailure(orig *ScenarioReport) func(*ScenarioReport) bool { return shrink.SameFailure(orig) }

// ScenarioFromSurvival is shrink.FromSurvival.
//
// Deprecated: use shrink.FromSurvival.
func ScenarioFromSurvival(rep *SurvivalReport, gate Gate) (*Scenario, error) {
	return shrink.FromSurvival(rep, gate)
}

// Shrink is shrink.Run.
//
// Deprecated: use shrink.Run.
func Shrink(ctx context.Context, cfg ShrinkConfig) (*ShrinkResult, error) {
	return shrink.Run(ctx, cfg)
}

// ShrinkCancelled is shrink.Cancelled.
//
// Deprecated: use shrink.Cancelled.
const ShrinkCancelled = shrink.Cancelled

// ShrinkConfig is shrink.Config.
//
// Deprecated: use shrink.Config.
type ShrinkConfig = shrink.Config

// ShrinkDone is shrink.Done.
//
// Deprecated: use shrink.Done.
const ShrinkDone = shrink.Done

// ShrinkPass is shrink.Pass.
//
// Deprecated: use shrink.Pass.
type ShrinkPass = shrink.Pass

// ShrinkProgress is shrink.Progress.
//
// Deprecated: use shrink.Progress.
type ShrinkProgress = shrink.Progress

// ShrinkResult is shrink.Result.
//
// Deprecated: use shrink.Result.
type ShrinkResult = shrink.Result

// ShrinkRuns is shrink.OutOfRuns.
//
// Deprecated: use shrink.OutOfRuns.
const ShrinkRuns = shrink.OutOfRuns

// ShrinkSize is shrink.Size.
//
// Deprecated: use shrink.Size.
type ShrinkSize = shrink.Size

// ShrinkStop is shrink.Stop.
//
// Deprecated: use shrink.Stop.
type ShrinkStop = shrink.Stop

// ShrinkTime is shrink.OutOfTime.
//
// Deprecated: use shrink.OutOfTime.
const ShrinkTime = shrink.OutOfTime

// SystemFactory is shrink.SystemFactory.
//
// Deprecated: use shrink.SystemFactory.
type SystemFactory = shrink.SystemFactory
