package schemagen

// docs are the schema's descriptions, by Go type and "Type.Field" (the
// metadata keys' are their fault.MetaKey.Doc, and Action.Metadata's is
// derived from the specs: metadataDoc). They are what an editor
// shows on hover; a test checks that every property has one.
var docs = map[string]string{
	"Scenario":             "An arena chaos scenario: steps that inject faults, how to play them, and the scenario's own gate.",
	"Scenario.Name":        "The scenario's name (required).",
	"Scenario.Description": "What the scenario does and what a resilient system should do about it.",
	"Scenario.Tags":        "Free-form tags, for listing and filtering.",
	"Scenario.Config":      "How the steps are played and the run observed.",
	"Scenario.Actions":     "The steps, in order. Sequential by default; a DAG with config.parallel_actions.",
	"Scenario.Expect":      "The scenario's gate: the run passes when every step met its expectation and these criteria hold.",

	"ScenarioConfig":                  "How a scenario is played. Left-out fields take their defaults.",
	"ScenarioConfig.StopOnError":      "Once a step fails (misses its expectation), start nothing new; steps not started are reported as skipped.",
	"ScenarioConfig.ParallelActions":  "Play the steps as a DAG: a step is ready when all of its depends_on have completed and starts its delay after that. Without it steps run one at a time in list order.",
	"ScenarioConfig.MaxConcurrent":    "With parallel_actions: at most this many injections in flight at once (default 3). An error without parallel_actions.",
	"ScenarioConfig.Timeout":          "Bounds the whole run; steps not started by then are skipped and the gate fails. Default: twice the planned length plus a minute. Must not be shorter than the planned length.",
	"ScenarioConfig.Warmup":           "Observed before the first steps become ready.",
	"ScenarioConfig.Cooldown":         "Observed after the last step has completed. A fault still unhealthy when the run ends counts as unrecovered.",
	"ScenarioConfig.Seed":             "Seeds the target selectors (any, type:<t>, not:<t>) and, in the CLI and arenatest, the fake workload. 0 or left out: drawn and reported.",
	"ScenarioConfig.ProbeInterval":    "How often the health probe is sampled (default 100ms). Older spelling of observe.probe_interval.",
	"ScenarioConfig.RecoveryDeadline": "A fault not healthy again within this is unrecovered (default 30s). Older spelling of observe.recovery_deadline.",
	"ScenarioConfig.Observe":          "How the run is observed; left-out fields take the service's settings.",

	"ScenarioObserve":                    "How a scenario's run is observed: probe sampling and when a fault counts as recovered.",
	"ScenarioObserve.ProbeInterval":      "How often the health probe is sampled (default 100ms).",
	"ScenarioObserve.ProbeTimeout":       "A probe call taking longer is cut off and the sample is unhealthy (default 1s; a runtime may bound it tighter).",
	"ScenarioObserve.SettleTime":         "A fault is watched this long after it landed before it is called recovered; an unhealthy sample within it, even a lone one, is the fault's (default 10s).",
	"ScenarioObserve.StableSamples":      "Healthy samples in a row that make a recovery (default 3).",
	"ScenarioObserve.RecoveryDeadline":   "A fault not healthy again within this is unrecovered (default 30s).",
	"ScenarioConfig.AbortWhen":           "Stop conditions: when one is met (checked after every probe sample), no more faults are injected, the faults in place are lifted, and the run ends aborted with the reason; the gate fails.",
	"ScenarioConfig.AllowUnhealthyStart": "Inject even when the system is not healthy at the end of the warmup. By default the run is then aborted before its first fault.",

	"AbortWhen":              "Stop conditions of a run. A left-out field is no condition.",
	"AbortWhen.UnhealthyFor": "Abort when the health probe has been unhealthy without a break this long.",
	"AbortWhen.ChecksFailed": "Abort when any of these consistency checks (by name, e.g. tasks) has failed.",
	"AbortWhen.ScoreBelow":   "Abort when the run's live score, once measured, is below this (0-100).",

	"ScenarioStep":               "One step: a fault to inject, when, and what is expected of the injection.",
	"ScenarioStep.Label":         "Names the step for depends_on and reports; unique.",
	"ScenarioStep.Delay":         "Wait this long after the step is ready: after the previous step (sequential) or its last dependency (parallel) completed, or after the warmup.",
	"ScenarioStep.Action":        "The fault to inject.",
	"ScenarioStep.ExpectSuccess": "The fault must land (the default).",
	"ScenarioStep.ExpectFailure": "The fault must be refused (e.g. resuming an agent that is not paused). Not together with expect_success.",
	"ScenarioStep.DependsOn":     "Labels of steps that must complete first. Without parallel_actions only earlier steps.",

	"Action":          "A fault. Which of target_id and source_id a type needs, and which metadata it takes, is checked per type.",
	"Action.Type":     "The fault type.",
	"Action.TargetID": "The agent (or DAG node) to hit, or a selector that fits any system: any (random) for any agent or node, type:<agent type> (type:leader), not:<agent type> (not:leader: anyone but the leader). Resolved against the agents the runtime lists before the run starts. Not for kill_leader and kill_orchestrator.",
	"Action.SourceID": "The source of the DAG edge (remove_edge only), or any: with target_id any too, any edge.",

	"Gate":              "The scenario's gate. Left-out criteria are not checked.",
	"Gate.MinGrade":     "The run's grade is at least this (A+ ≥ 95, A ≥ 90, B ≥ 80, C ≥ 70, D ≥ 60). A run with nothing measured has no grade and fails.",
	"Gate.MinScore":     "The run's total score (0–100) is at least this.",
	"Gate.MaxMTTR":      "The mean time to recover of the recovered faults is at most this.",
	"Gate.AllRecovered": "Every fault that landed recovered.",
	"Gate.Consistent":   "Every consistency check passed, and at least one ran.",

	"Duration":   "A Go duration string such as \"1.5s\" or \"2m\", or a number of seconds.",
	"Grade":      "A letter grade.",
	"ActionType": "The fault type.",
}
