// Package raftsim runs third-party Go code under arena in simulated time:
// hashicorp/raft v1.7.2, unmodified, on package sim's in-memory network,
// inside testing/synctest bubbles opened by arenatest.Simulate.
//
// The system (cluster.go, fsm.go): 3 or 5 raft nodes, each with raft's
// NetworkTransport over a StreamLayer of its sim node, in-memory log,
// stable and snapshot stores that survive a kill as a disk would, and a
// key-value state machine of append-only lists that does not (a restarted
// node rebuilds it from its snapshot and log). Killed nodes are restarted
// by the world's supervisor after 2s. The cluster's role resolver makes
// kill_leader and type:leader follow raft's own elections.
//
// The workload (workload.go, checks.go): three clients append to and read
// eight keys through the leader, 12 operations per simulated second, each
// an entry of raft's log, with a 1s timeout; every operation is recorded
// (outcome OK, failed or unknown, on the run's clock). Its probe is the
// clients' view (an operation failed since the last sample); its checks:
// no acknowledged write lost or applied twice, no stale read, each
// incremental, so they can run after every fault of a simulated day; and
// package history's checks of the recorded history (linearizable lists,
// no lost or duplicated appends) for the scenarios.
//
// The tests: TestScenarios plays the built-in scenarios in raft's shape
// (testdata: leader-failover, network-split, rolling-kills, slow-network,
// flaky-network) on 3 and 5 nodes, each with its gate, and prints arena's
// time to recover beside the workload's own outage per fault. TestSurvival
// runs a simulated day of seeded chaos (an hour under the race detector).
// TestSweep sweeps seeds (arenatest.Sweep). TestReproducibility measures
// what one seed fixes; TestAgreement (opt-in: ten real minutes) compares
// one schedule's scores in simulated and real time. TestGRPC carries
// gRPC's server and client unchanged. TestPartitionOverTCP (real time)
// runs raft on real loopback TCP instead, its dials through a
// netfault.Network, and partitions the leader through it. Package quotes is a second system,
// an HTTP service and a client with retries and a circuit breaker.
//
// # Figures
//
// On this 2-core machine (shared), without the race detector:
//
//   - A simulated day of survival on 3 nodes (1,439 faults, 1,033,172
//     client operations, 12.0 a simulated second, arena's 100ms probe):
//     123–135 s of wall time (640–700× real time; the machine's load
//     average 3–5), 121–128 s of CPU: raft 59.5%, the key-value state
//     machine 6%, the workload 3.7%, arena 13.5–14.3% (sim's network
//     11.3–11.9%, the engine 2.2–2.4%), the Go runtime (GC, scheduler,
//     timers) 17%. Measured with
//     go test -c -o raftsim.test && ./raftsim.test -test.run '^TestSurvival$' -test.cpuprofile day.prof
//     and the samples of go tool pprof -traces attributed to the innermost
//     frame of each package.
//   - netfault's network_partition of the leader for 4s, raft on real
//     TCP, real time (TestPartitionOverTCP, 3 runs under -race): arena's
//     time to recover 1.00–1.10 s, the writer's own outage 0.98–1.03 s.
//   - One 10-minute schedule of 10 faults: real time (3 runs) scored
//     97.2–99.0, simulated time (10 runs) 98.7–99.1 (TestAgreement).
//   - One seed, 10 runs of each scenario: 1 of 10 reports byte-identical
//     with unseeded clients and raft; 2–4 of 10 seeded; 2–10 of 10 seeded
//     with GOMAXPROCS=1 (TestReproducibility). The schedule is the same in
//     every run.
package raftsim
