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

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
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
var schedule = []engine.Step{
	{At: 10 * time.Second, Action: fault.Action{Type: fault.KillLeader}},
	{At: 30 * time.Second, Action: fault.Action{Type: fault.KillAgent, TargetID: "type:worker"}},
	{At: 50 * time.Second, Action: fault.Action{Type: fault.LLMFailure, TargetID: "worker-2",
		Metadata: map[string]any{"error_type": "overloaded", "duration": "5s"}}},
	{At: 80 * time.Second, Action: fault.Action{Type: fault.NetworkPartition, TargetID: "orchestrator-0",
		Metadata: map[string]any{"duration": "4s"}}},
}

func run(ctx context.Context, w io.Writer, seed uint64) error {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(seed), fakes.WithWorkers(3))
	svc := engine.NewService(fault.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(cluster.Probe), engine.WithChecks(cluster.Checks()...))
	rep, err := engine.RunSchedule(ctx, svc, engine.RunOptions{Seed: seed, Duration: 2 * time.Minute}, schedule...)
	if err != nil {
		return err
	}
	return rep.WriteText(w)
}
