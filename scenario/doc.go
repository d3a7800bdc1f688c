// Package scenario is declarative chaos: a Scenario, usually a YAML file
// (the built-in library is package scenarios), is steps that inject
// faults, a Config saying how to play them, and a Gate (`expect`) the run
// must meet.
//
// Load and LoadFile decode strictly and report every problem at once as
// Errors, each with file:line:column and the field path; Validate applies
// the same rules to scenarios built in code, and ValidateFor also checks
// them against a service (its own fault types, what its runtime can land,
// its bounds and checks). Run plays one as an engine run: sequentially,
// each step Delay after the previous one completed, or with
// ParallelActions as a DAG of depends_on with at most MaxConcurrent
// injections in flight; stop_on_error, timeout, warmup, cooldown and
// cancellation are honoured throughout. The Report covers that run only:
// each step with its result and expectation check, the run's
// engine.Report, and the gate's verdict with reasons. It writes itself as
// text, JSON and JUnit XML; a Scenario writes itself as YAML.
//
// # Index
//
//   - Scenarios: Scenario, Config, Observe, Step, Gate, Load, LoadFile,
//     Validate, ValidateFor, Error, Errors, ErrInvalid,
//     DefaultMaxConcurrent, DefaultSlack.
//   - Runs: Run, Report, StepReport, StepStatus, StepExpect, Outcome,
//     GateResult, GateCheck, GateVerdict.
//   - Bounds: MaxNameLength, MaxSize, MaxExpanded, MaxSteps, MaxLength,
//     MaxTimeout, MaxErrors, MaxErrorBytes.
package scenario
