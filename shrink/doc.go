// Package shrink reduces a failing run to the smallest schedule that still
// fails the same way, and returns it as an ordinary scenario file.
//
// Run searches from a failing scenario (Config.Scenario, a file or a
// survival run turned into one with FromSurvival; ReadSurvival streams a
// survival report's JSON, and CompleteSurvival replays a virtual one to
// list every action, within the search's budget when Config.Started says
// when it began). Each candidate runs on a fresh system
// from a SystemFactory, or a SystemHost for a system that must be built
// where it runs (a synctest bubble per run: arenatest.SimulateRun); the
// budget is wall time, inside a bubble too; the search drops faults (delta debugging), moves
// them earlier, shortens durations, retargets faults at roles, simplifies
// metadata and resolves selectors. A candidate fails when it fails the
// same way (SameFailure: the gate fails again, for the same reasons, or a
// predicate of yours). It is judged by one run on a virtual clock and by
// Need of Runs runs otherwise; the Result states its failure rate over
// replays ("fails 10/10", FailRate) and the passes that shrank it.
//
// # Index
//
//   - Shrinking: Run, Config, SystemFactory, SystemHost, Play, Result, Size, Pass, Stop,
//     Progress, FailRate, Failure, SameFailure, ErrNoFailure, ErrOutOfTime,
//     ErrOutOfRuns, DefaultRuns, DefaultNeed, DefaultReplays, DefaultBudget,
//     DefaultMaxRuns, MaxRepeats.
//   - Survival: ReadSurvival, FromSurvival, CompleteSurvival,
//     ErrIncompleteSurvival.
package shrink
