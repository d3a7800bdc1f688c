// Package regression answers "is the candidate strategy better than the
// baseline?" from many scored runs of each: an A/B test with sound
// statistics, over the engine.
//
// A Tester (NewTester, Run) scores runs of both arms with a Scorer, which
// gets a Trial per run; the i-th runs of both arms share a seed, so a
// scorer that draws everything from Trial.Seed compares the strategies on
// the same cases. A tester given a service holds it while it runs
// (engine.Service.Lease), like a run: its trials run on Trial.Service
// under the context its ContextScorer is given, and nothing else lands
// there meanwhile.
//
// ModeFixed makes Runs runs per arm and applies Welch's t-test, one-sided
// by default; ModeSequential looks after every run with an anytime-valid
// sequential t-test (the likelihood ratio of the t statistic for an effect
// of ±MDE (95% of its prior) or ±6·MDE (5%) against none, claiming a
// direction when it reaches 1/Alpha) and stops as soon as the answer is
// significant, or at MaxRuns with VerdictInconclusive: peeking does not
// inflate its false alarms. The Result prints like benchstat:
//
//	better: p=0.012 n=18+18 Δ=+4.1 g=0.83 [0.21, 1.45]
//
// # Experiments
//
// An ExperimentScorer scores strategies by experiment: each trial builds a
// fresh system from its strategy (a System, such as fakes.Strategy) seeded
// with the trial's seed, plays an Experiment on it (a schedule, a scenario
// or a survival run: ScheduleExperiment, ScenarioExperiment,
// SurvivalExperiment) and scores the report.
//
// # Index
//
//   - Tests: Tester, NewTester, Config, Mode, Result, Verdict, ArmSummary,
//     EffectSize, Error, ErrTooFewRuns, ErrZeroVariance, EventCompleted,
//     DefaultAlpha, DefaultMDE, DefaultPower, DefaultMaxRunsFactor.
//   - Statistics: CompareScores, SampleSize, OneSidedSampleSize.
//   - Scorers: Scorer, ContextScorer, ScorerFunc, ContextScorerFunc,
//     EnsembleScorer, NewEnsembleScorer, Trial, Arm.
//   - Experiments: System, AsSystem, Experiment, ScheduleExperiment,
//     ScenarioExperiment, SurvivalExperiment, ExperimentScorer,
//     NewExperimentScorer, ErrNotMeasured.
package regression
