// Package arenatest runs arena from tests: a scenario, a survival run or an
// A/B test of two strategies becomes a test result in go test, Ginkgo and
// CI, with a failure message that says what to fix and how to replay it.
//
//	func TestLeaderFailover(t *testing.T) {
//		rep := arenatest.Run(t, "leader-failover") // built-in scenario, fresh fake cluster
//		require.True(t, rep.Score.Grade.AtLeast(engine.GradeB))
//	}
//
// The helpers call arena's layers (scenario.Run, engine.Service.RunSurvival,
// regression.Tester) and only report: each returns its result, and fails t
// with t.Errorf, from the test's goroutine, when the run misses what it had
// to meet. When there is nothing to return (a scenario that does not load,
// an option that does not apply), they report the error and stop the test
// with t.FailNow.
//
// # The system under test
//
// By default each call gets a fresh fake cluster (fakes.NewCluster) seeded
// with the run's seed, on a virtual clock: a minute of chaos takes
// milliseconds, a day about a second, and the same seed gives the same
// report. WithCluster tunes it (workers, healing knobs); RealTime runs it on
// the wall clock. It holds no goroutines, files or sockets, so nothing
// outlives the call; the run's context ends with the test (t.Context, or a
// context cancelled by t.Cleanup).
//
// WithRuntime runs against your own system instead: its faults land through
// your runtime (a fault.RuntimeProvider, or only the capabilities it has:
// fault.AgentLister plus, say, fault.AgentStopper), with WithDAG, WithProbe
// and WithChecks (or the runtime's own ListNodes…, Probe and Checks methods),
// and WithFaults adds fault types of your own (fault.Spec). Such a run is in real
// time, unless the runtime follows a *clock.Virtual; asking Virtual()
// of a real-time runtime is an error, not a silent switch.
//
// Faults do not outlive the test: a run lifts the faults it still has in
// place when it ends, and Run and Survive lift whatever is left at the
// test's cleanup, also when it ends by t.Fatal in the middle of a run.
// WithAbortWhen stops a run that goes wrong (the system unhealthy too
// long, a check failed, the score too low), which fails the test with the
// reason; a run does not start injecting into an unhealthy system unless
// AllowUnhealthyStart is given.
//
// # Failures and seeds
//
// A failing run reports the score and grade, the gate's reasons, the worst
// faults with their time to recover, the seed, and the commands that replay
// it:
//
//	arena: scenario leader-failover failed its gate: score 42.0, grade F
//	  - actions[1] (kill-successor): expected the fault to land: no eligible target: no running leader
//	  - grade F (42.0) is below the minimum A
//	  - 1 of 1 faults unrecovered: kill_leader on leader-0 at 15s
//	faults: 1 landed, 0 recovered, 1 unrecovered; 1 did not land
//	worst faults:
//	  - kill_leader on leader-0 at 15s: unrecovered
//	seed: 7
//	rerun: go test -run '^TestLeaderFailover$' -arena.seed=7
//	   or: ARENA_SEED=7 go test -run '^TestLeaderFailover$'
//
// A run's seed is, in this order: the -arena.seed flag, the ARENA_SEED
// environment variable, WithSeed, the seed in the scenario or config, or
// else drawn at random. The flag and the variable override the seeds written
// in code, for every run of the test binary: that is how a failure is
// replayed, and how other cases are tried. The flag is registered when this
// package is initialised (SeedFlag). Under Ginkgo the commands focus the
// spec (-ginkgo.focus); for a benchmark they select it with -bench.
//
// # Shrinking a failure
//
// WithShrinkOnFailure shrinks a run that fails its gate to the smallest
// schedule that still fails the same way (shrink.Run), within a budget,
// writes it to testdata/arena-shrunk/<test name>.yaml (ShrunkDir) and adds
// it to the failure message with the command that replays it:
//
//	shrunk survival-seed-17 from 359 faults (1h) to 2 (40s): fails 10/10 replays, virtual clock
//	  failure: consistent, consistent:tasks
//	  search: done, 92 runs (81 candidates, each judged by 1 run) in 412ms
//	  at 10s  network_partition  worker-3  duration=1ms
//	  at 10s  kill_agent         type:leader
//	  written to testdata/arena-shrunk/TestDay.yaml
//	replay: go test -run '^TestDay$' -arena.replay=testdata/arena-shrunk/TestDay.yaml
//
// Every schedule tried runs on a fresh system: the default fake cluster,
// the runtime WithFreshRuntime makes for each run, or, in simulated time,
// a fresh world that a System builds (see below). Under -arena.replay (or
// ARENA_REPLAY) Run and Survive play that scenario file instead of their
// own, on the system their options build, with the file's seed.
//
// # Reports
//
// Each result is published where the test runner shows it (Entries lists
// the figures: arena.score, arena.grade, arena.seed, …):
//
//   - go test: t.Attr, which go test -json reports as "attr" events.
//   - Ginkgo: report entries (GinkgoT()'s AddReportEntry…), which Ginkgo
//     writes to its --json-report and --junit-report files. This package does
//     not import Ginkgo; package arenaginkgo adds entries for results made
//     elsewhere and reads them back from a suite's report.
//   - Benchmarks: b.ReportMetric(score, "score"), for benchstat.
//
// With WithReportDir, or else the ARENA_REPORT_DIR environment variable,
// each call also writes <dir>/<test name>.json (the result's stable JSON:
// scenario.Report, engine.SurvivalReport or regression.Result),
// .xml (JUnit) and .txt (the human summary); a second call in the same test
// writes <test name>-2.*. A relative directory is relative to the package's
// directory, where go test runs its tests: CI should pass an absolute one.
//
// # Conformance
//
// TestRuntime checks that a runtime keeps the engine's contract; the fakes,
// containers, kube and netfault runtimes pass it, and so should yours:
//
//	func TestMyRuntime(t *testing.T) {
//		arenatest.TestRuntime(t, func(t *testing.T) *myruntime.Runtime { return myruntime.New(t) },
//			arenatest.Observe(fault.SlowAgent, func(ctx context.Context, rt *myruntime.Runtime, a fault.Action) (bool, error) {
//				return rt.Slowed(a.TargetID), nil
//			}))
//	}
//
// It lands every built-in type the runtime lands, through arena's
// injector, and checks the fault's effect (through arena's interfaces, or
// the Observe given for its type), its lift and a second lift; it fails a
// runtime that neither lands nor refuses some built-in type, by type
// (fault.Refuser) or by scope (fault.ScopeRefuser), so a type added to
// arena asks each runtime that reaches its scope to decide. A runtime with
// only some capabilities (a fault.AgentLister that is, say, a
// fault.AgentStopper and a fault.Pauser) refuses the rest, and their
// checks are skipped with its reason. TestDeclared is that one check
// alone, on the runtime's methods: it needs no daemon or cluster.
//
// # Simulated time
//
// Simulate runs your own Go system (its goroutines, timers, net/http,
// gRPC, raft) in a testing/synctest bubble on package sim's in-memory
// network: Run and Survive inside it play against the world in simulated
// time, where a day takes minutes. It closes the world at the end, names
// the goroutines left running, and its watchdog ends a test whose bubble
// is stuck on a real socket. The world's seed seeds crypto/rand too
// (testing/cryptotest), not the global math/rand functions, map order or
// the Go scheduler's interleavings. Only a virtual run is a function of its seed:
// a failure in simulated or real time offers to replay the same schedule
// ("replay the same schedule: go test …"), and says the outcome may
// differ. A runtime whose Clock is a *clock.Virtual is run in virtual time
// only if it is a clock.VirtualSystem (arena drives every goroutine and
// timer of its system, as for the fakes); any other is refused with that
// advice.
//
// # Shrinking in simulated time
//
// A failure in simulated time is shrunk on fresh worlds: write the
// system's setup once, as a System, which builds it on a world and returns
// the options by which arena observes it, and play it with SimulateRun
// (or SimulateSurvive):
//
//	func raft(t *testing.T, w *sim.World) []arenatest.Option {
//		c, wl := start(t, w) // nodes on w, a workload; t.Cleanup(wl.Stop)
//		return []arenatest.Option{arenatest.WithRoles(c.Roles), arenatest.WithProbe(wl.Probe), arenatest.WithChecks(wl.Checks()...)}
//	}
//
//	func TestFailover(t *testing.T) {
//		arenatest.SimulateRun(t, raft, "testdata/leader-failover.yaml", arenatest.WithShrinkOnFailure(2*time.Minute))
//	}
//
// SimulateRun runs the scenario in a bubble on a fresh world, as Simulate
// does; when it fails its gate, the shrinker, outside the bubble, runs
// each schedule it tries in a bubble of its own on a fresh world that the
// System builds, seeded with the schedule's seed, and judges it by 4 of 5
// runs. The budget is wall time. The summary and the file's header name
// the simulated clock, the wall time and the simulated time the search
// took:
//
//	shrunk fast-failover from 6 faults (55s) to 1 (35s): fails 10/10 replays, simulated clock (synctest)
//	  search: done, 42 runs (8 candidates, each judged by 4 of 5 runs) in 3.533s of wall time, 29m simulated
//
// WithShrinkOnFailure inside Simulate is refused with this advice: there
// every schedule would replay on the one world the test built. The same
// System serves a Sweep (SimulateRun returns a failed run's report).
//
// # Seed sweeps
//
// Sweep runs a test function once per seed, in subtests named "seed=N":
// -arena.seeds=1000 (ARENA_SEEDS) sets how many, -arena.shard=3/8
// (ARENA_SHARD) which share of them this machine runs; each failure prints
// its seed and replay command, and a summary ends the sweep (seeds run,
// failed, the worst grade of all; then each failed seed with its grade and
// replay command). A failed Simulate stops its seed's subtest, but the
// reports made inside it still count.
//
// # Deterministic mode
//
// The same tests, built for GOOS=wasip1 GOARCH=wasm and run by
// cmd/arena-wasm (arena-wasm test ./...), run each simulation on the
// deterministic clock: the host gives the program every random bit and
// clock reading from the seed, on one thread, so the seed fixes the whole
// execution, goroutine order included, for one build. Then:
//
//   - a simulation's seed is its instance's: an instance that runs under
//     none yet runs again from the start with it as its host's seed (the
//     seeds in the code stay the runs'), so that the failure's command,
//     which runs the instance again (arena-wasm test -run '^TestA$' . -args
//     -arena.wasmseed=N -arena.build=ID), replays the very execution;
//   - a Sweep runs each seed in a child instance, as many at once as the
//     host has cores, each what its replay command runs;
//   - the shrinker judges a candidate by one run, and its file's replay
//     command is arena-wasm's;
//   - Replays runs a test function once per seed in instances of its own,
//     to compare the runs of one seed or count the outcomes of many;
//   - reports name the clock "deterministic (wasip1)" and record the
//     build (engine.Report.Build); Deterministic says whether the binary
//     runs so.
//
// # Index
//
//   - Helpers: Run, Survive, Compare, Simulate, SimulateRun, SimulateSurvive, System, Sweep, Replays, Deterministic, TestRuntime (Effect, Observe),
//     TestDeclared, TestRuntimeDoc, RuntimeFactory, TB.
//   - Options: Option, WithRuntime, WithFreshRuntime, WithDAG, WithFaults, WithCluster,
//     Virtual, RealTime, WithSeed, WithWatchdog, WithReportDir, WithProbe, WithChecks, WithGate,
//     WithAbortWhen, AllowUnhealthyStart, WithShrinkOnFailure, WithScorer,
//     WithExperiment, WantVerdicts, NoRegression.
//   - Seeds, sweeps, replays and reports: SeedFlag, SeedEnv, SeedOverride, SeedsFlag,
//     SeedsEnv, ShardFlag, ShardEnv, ReplayFlag, ReplayEnv, ShrunkDir, ReportDirEnv, Entry, Entries.
//   - A/B tests: DefaultExperiment, DefaultScenario.
//
// Matchers for Gomega are in package matchers.
package arenatest
