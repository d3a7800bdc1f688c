// Command quickstart runs a small chaos schedule against the in-memory fake
// cluster in virtual time and prints the report: two minutes of chaos in a
// few milliseconds. `make demo` runs a built-in scenario through the CLI
// instead; this example writes its chaos as a code-defined schedule.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
)

func main() {
	seed := flag.Uint64("seed", 7, "seed of the fake workload and the target selectors")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// schedule is the demo's chaos: the leader, then a worker chosen by the
// seed, then a 5s LLM brownout and a 4s partition.
var schedule = []arena.Step{
	{At: 10 * time.Second, Action: arena.Action{Type: arena.ActionKillLeader}},
	{At: 30 * time.Second, Action: arena.Action{Type: arena.ActionKillAgent, TargetID: "type:worker"}},
	{At: 50 * time.Second, Action: arena.Action{Type: arena.ActionLLMFailure, TargetID: "worker-2",
		Metadata: map[string]any{"error_type": "overloaded", "duration": "5s"}}},
	{At: 80 * time.Second, Action: arena.Action{Type: arena.ActionNetworkPartition, TargetID: "orchestrator-0",
		Metadata: map[string]any{"duration": "4s"}}},
}

func run(ctx context.Context, w io.Writer, seed uint64) error {
	clock := arena.NewVirtualClock(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clock), fakes.WithSeed(seed), fakes.WithWorkers(3))
	svc := arena.NewService(arena.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
		arena.WithClock(clock), arena.WithProbe(cluster.Probe), arena.WithChecks(cluster.Checks()...))
	rep, err := arena.RunSchedule(ctx, svc, arena.RunOptions{Seed: seed, Duration: 2 * time.Minute}, schedule...)
	if err != nil {
		return err
	}
	return rep.WriteText(w)
}
