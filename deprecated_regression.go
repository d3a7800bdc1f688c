package arena

import (
	"github.com/ares-arena/arena/regression"
)

// The names of package regression as they were in package arena.

// Arm is regression.Arm.
//
// Deprecated: use regression.Arm.
type Arm = regression.Arm

// ArmBaseline is regression.ArmBaseline.
//
// Deprecated: use regression.ArmBaseline.
const ArmBaseline = regression.ArmBaseline

// ArmCandidate is regression.ArmCandidate.
//
// Deprecated: use regression.ArmCandidate.
const ArmCandidate = regression.ArmCandidate

// ArmSummary is regression.ArmSummary.
//
// Deprecated: use regression.ArmSummary.
type ArmSummary = regression.ArmSummary

// CompareScores is regression.CompareScores.
//
// Deprecated: use regression.CompareScores.
func CompareScores(cfg RegressionConfig, baseline []float64, candidate []float64) (*RegressionResult, error) {
	return regression.CompareScores(cfg, baseline, candidate)
}

// ContextScorer is regression.ContextScorer.
//
// Deprecated: use regression.ContextScorer.
type ContextScorer = regression.ContextScorer

// ContextScorerFunc is regression.ContextScorerFunc.
//
// Deprecated: use regression.ContextScorerFunc.
type ContextScorerFunc = regression.ContextScorerFunc

// DefaultMaxRunsFactor is regression.DefaultMaxRunsFactor.
//
// Deprecated: use regression.DefaultMaxRunsFactor.
const DefaultMaxRunsFactor = regression.DefaultMaxRunsFactor

// DefaultRegressionAlpha is regression.DefaultAlpha.
//
// Deprecated: use regression.DefaultAlpha.
const DefaultRegressionAlpha = regression.DefaultAlpha

// DefaultRegressionMDE is regression.DefaultMDE.
//
// Deprecated: use regression.DefaultMDE.
const DefaultRegressionMDE = regression.DefaultMDE

// DefaultRegressionPower is regression.DefaultPower.
//
// Deprecated: use regression.DefaultPower.
const DefaultRegressionPower = regression.DefaultPower

// EffectSize is regression.EffectSize.
//
// Deprecated: use regression.EffectSize.
type EffectSize = regression.EffectSize

// EnsembleScorer is regression.EnsembleScorer.
//
// Deprecated: use regression.EnsembleScorer.
type EnsembleScorer = regression.EnsembleScorer

// ErrTooFewRuns is regression.ErrTooFewRuns.
//
// Deprecated: use regression.ErrTooFewRuns.
var ErrTooFewRuns = regression.ErrTooFewRuns

// ErrZeroVariance is regression.ErrZeroVariance.
//
// Deprecated: use regression.ErrZeroVariance.
var ErrZeroVariance = regression.ErrZeroVariance

// EventRegressionCompleted is regression.EventCompleted.
//
// Deprecated: use regression.EventCompleted.
const EventRegressionCompleted = regression.EventCompleted

// ModeFixed is regression.ModeFixed.
//
// Deprecated: use regression.ModeFixed.
const ModeFixed = regression.ModeFixed

// ModeSequential is regression.ModeSequential.
//
// Deprecated: use regression.ModeSequential.
const ModeSequential = regression.ModeSequential

// NewEnsembleScorer is regression.NewEnsembleScorer.
//
// Deprecated: use regression.NewEnsembleScorer.
func NewEnsembleScorer(scorers []Scorer, weights []float64) (*EnsembleScorer, error) {
	return regression.NewEnsembleScorer(scorers, weights)
}

// NewRegressionTester is regression.NewTester.
//
// Deprecated: use regression.NewTester.
func NewRegressionTester(svc *Service, scorer Scorer) *RegressionTester {
	return regression.NewTester(svc, scorer)
}

// OneSidedSampleSize is regression.OneSidedSampleSize.
//
// Deprecated: use regression.OneSidedSampleSize.
func OneSidedSampleSize(d float64, alpha float64, power float64) (int, error) {
	return regression.OneSidedSampleSize(d, alpha, power)
}

// RegressionConfig is regression.Config.
//
// Deprecated: use regression.Config.
type RegressionConfig = regression.Config

// RegressionError is regression.Error.
//
// Deprecated: use regression.Error.
type RegressionError = regression.Error

// RegressionMode is regression.Mode.
//
// Deprecated: use regression.Mode.
type RegressionMode = regression.Mode

// RegressionResult is regression.Result.
//
// Deprecated: use regression.Result.
type RegressionResult = regression.Result

// RegressionTester is regression.Tester.
//
// Deprecated: use regression.Tester.
type RegressionTester = regression.Tester

// RegressionVerdict is regression.Verdict.
//
// Deprecated: use regression.Verdict.
type RegressionVerdict = regression.Verdict

// SampleSize is regression.SampleSize.
//
// Deprecated: use regression.SampleSize.
func SampleSize(d float64, alpha float64, power float64) (int, error) {
	return regression.SampleSize(d, alpha, power)
}

// Scorer is regression.Scorer.
//
// Deprecated: use regression.Scorer.
type Scorer = regression.Scorer

// ScorerFunc is regression.ScorerFunc.
//
// Deprecated: use regression.ScorerFunc.
type ScorerFunc = regression.ScorerFunc

// Trial is regression.Trial.
//
// Deprecated: use regression.Trial.
type Trial = regression.Trial

// VerdictBetter is regression.VerdictBetter.
//
// Deprecated: use regression.VerdictBetter.
const VerdictBetter = regression.VerdictBetter

// VerdictInconclusive is regression.VerdictInconclusive.
//
// Deprecated: use regression.VerdictInconclusive.
const VerdictInconclusive = regression.VerdictInconclusive

// VerdictNoDifference is regression.VerdictNoDifference.
//
// Deprecated: use regression.VerdictNoDifference.
const VerdictNoDifference = regression.VerdictNoDifference

// VerdictWorse is regression.VerdictWorse.
//
// Deprecated: use regression.VerdictWorse.
const VerdictWorse = regression.VerdictWorse
