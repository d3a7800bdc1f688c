// Package arena is a resilience (chaos) test harness for systems of agents.
//
// arena injects faults into a running system — kills, pauses, slowdowns,
// network partitions, tool timeouts, memory corruption, MCP disconnects, LLM
// failures, DAG surgery — watches the system heal, and scores the healing:
// availability 40%, recovery 30%, consistency 30%, graded A+ to F.
//
// # Layers
//
// The module is split by concept; each layer imports only those below it
// (TestLayers holds it):
//
//	clock       time: the run's clock, clock kinds, the wall clock, Duration
//	fault       what a fault is: actions, types, specs, capabilities, the injector
//	engine      the service, runs, observation, scores, survival
//	scenario    YAML scenarios: load, validate, run, report
//	shrink      a failing run reduced to its smallest failing schedule
//	regression  A/B tests of two strategies, with sound statistics
//
// lowest first: shrink and regression stand side by side, and under them
// all internal/bound keeps the bounds on what every layer prints. Around them: arenatest (go test and Ginkgo helpers), matchers (Gomega),
// fakes (an in-memory cluster), sim and netfault (in-process systems in
// simulated or real time), containers and kube (Docker and Kubernetes
// runtimes), history (checks of what clients saw), arenahttp (the HTTP API
// and live page), and cmd/arena (the CLI).
//
// # This package
//
// Everything this package declares is a deprecated alias of its new home,
// kept for one release so that code written against the single package
// compiles unchanged: arena.Action is fault.Action, arena.NewService is
// engine.NewService, arena.RunScenarioReport is scenario.Run. The names
// that moved are listed, old beside new, in docs/migration/layers.md. Two
// things could not stay: the method Service.ValidateScenario is
// scenario.ValidateFor(svc, sc), and the A/B harness of package fakes
// moved to package regression (its old names stay in fakes as aliases).
package arena
