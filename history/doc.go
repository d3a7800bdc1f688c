// Package history records what a workload's clients saw of a system under
// chaos, and checks it: linearizability against a model (porcupine), no
// acknowledged write lost, no duplicates and no gaps in queues and streams.
// Each check is a fault.Check, so it runs wherever arena runs checks —
// scenarios, survival, arenatest, every runtime — after each recovery on
// the history so far, and once at the end on the whole.
//
// It is named for what it holds: the histories (a Recorder and its
// History snapshots) and the checks that read them. The models are part of
// the checks; porcupine (github.com/anishathalye/porcupine) is the checker.
//
// # Recording
//
// A client calls Invoke before each operation and records its outcome on
// the returned Call:
//
//	rec := history.NewRecorder[history.KV](svc.Clock())
//	c := rec.Invoke(client, history.Put("k7", 3))
//	err := store.Put(ctx, "k7", 3)
//	c.Done(history.Put("k7", 3), err) // nil: OK; an error: Unknown
//
// OK: it took effect, with its output (KV.Read, KV.Swap, LogOp.Acked).
// Failed (Call.Fail): the system refused it; it did not happen. Unknown
// (Call.Unknown, Call.Done with an error, a timeout passed to Fail): it may
// or may not have happened, now or later; the checks treat it as Jepsen
// does. The recorder reads the run's clock (virtual, simulated or real),
// stamps every event strictly after the previous one, is safe from many
// goroutines, and is bounded (DefaultCap, WithCap; what happens past the
// cap is on Recorder).
//
// # Checks
//
//   - Linearizable(name, rec, model, opts...): KVModel (a map, checked key
//     by key), Register (one register), LogModel (append-only logs), or a
//     Model of your own. Hard budgets of time (WithBudget, DefaultBudget:
//     10s) and memory (WithMemoryBudget, DefaultMemoryBudget: 256 MiB):
//     past either the check is undecided (fault.ErrUndecided), never
//     passed nor failed, and says which budget and how far it got. A model
//     whose code panics fails the check with the panic, naming the
//     function; it does not end the process. A violation is a *fault.Violation: the
//     longest linearizable prefix, the smallest failing window with each
//     operation's time (the report adds the faults active then), and
//     porcupine's visualization written to the report directory
//     (WithReportDir, $ARENA_REPORT_DIR). WithUnknownHorizon bounds when
//     an operation given up on took effect (by the horizon, or never):
//     an assumption about the system that keeps long histories with many
//     such operations checkable.
//   - NoLostWrites, NoDuplicates, NoGaps(name, rec, reader): for queues and
//     streams recorded as LogOp appends (publishes) and reads (deliveries),
//     with a Reader of what the log holds at check time.
//
// # Figures
//
// BenchmarkRecorder: operations recorded per second from 8 goroutines and
// bytes retained per operation. BenchmarkJepsen: the key-value check on
// porcupine's Jepsen etcd histories beside porcupine called directly.
// BenchmarkKV10k: a 10,000-operation, 100-key history, by a new check
// (first: the whole history) and by one check run again (again: it reads
// only what is new).
// BenchmarkCheckAfterRecovery: a 20,000-operation history checked after
// every 200 events, incrementally and from the start each time. BenchmarkBudget: how
// close to its budget a check that cannot decide stops.
// BenchmarkMemoryBudget: the time, peak heap and resident set of checks of
// one register with 100,000 operations, sequential (replayed: 10 MiB) and
// overlapping (searched: stopped at the memory budget), which porcupine
// alone took 1.4 to 1.9 GiB for.
package history
