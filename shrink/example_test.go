package shrink_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/planted"
	"github.com/ares-arena/arena/scenario"
	"github.com/ares-arena/arena/shrink"
)

// An hour of chaos against a fake cluster with a bug planted in it fails
// its gate; shrink.Run finds the two faults, in order, that break it, and
// writes them as a scenario file. Everything runs on virtual clocks: the
// hour and the hundred runs of the search take about a second.
func ExampleRun() {
	ctx := context.Background()
	// A fresh system for every run: a fake cluster (seeded with the run's
	// seed, on its own virtual clock) whose leader hand-over loses a task
	// when another agent is cut off by a partition. Its partitions do not
	// heal by themselves: they last until arena lifts them.
	system := func(_ context.Context, seed uint64) (*engine.Service, error) {
		clk := clock.NewVirtual(time.Time{})
		c := planted.New(fakes.WithClock(clk), fakes.WithSeed(seed), fakes.WithoutPartitionHealing())
		return engine.NewService(fault.NewInjector(c, c), events.NewMemoryStore(), nil,
			engine.WithClock(clk), engine.WithProbe(c.Probe), engine.WithChecks(c.Checks()...)), nil
	}

	// An hour of seeded chaos, a fault every 10s, gated on consistency.
	svc, _ := system(ctx, 17)
	rep, _ := svc.RunSurvival(ctx, engine.SurvivalConfig{Duration: time.Hour, Seed: 17, MaxLifetime: 30 * time.Second,
		Mix: map[fault.Type]float64{
			fault.KillAgent: 1, fault.SlowAgent: 1, fault.LLMFailure: 1, fault.ToolTimeout: 1,
			fault.MCPDisconnect: 1, fault.RemoveEdge: 1, fault.NetworkPartition: 0.2, fault.KillLeader: 0.2,
		}})
	gate := scenario.Gate{Consistent: true}
	fmt.Printf("survival: %d faults landed; %s\n", rep.Landed, gate.Check(rep.Report)[0].Reason)

	// The survival run as a scenario, shrunk.
	sc, _ := shrink.FromSurvival(rep, gate)
	res, _ := shrink.Run(ctx, shrink.Config{Scenario: sc, System: system})
	fmt.Printf("shrunk to %d faults in %d runs: %s replays\n\n", res.Shrunk.Faults, res.Runs, res.Rate)
	_ = res.WriteYAML(os.Stdout)
	// Output:
	// survival: 359 faults landed; 136 of 1080 checks failed, first tasks at 37m40s: 1 task lost in the leader's hand-over
	// shrunk to 2 faults in 92 runs: fails 10/10 replays
	//
	// # Shrunk by arena from survival-seed-17 (359 faults, 1h) to 2 faults (40s):
	// # fails 10/10 replays on a virtual clock.
	// # Its gate fails: consistent, consistent:tasks.
	// name: survival-seed-17-shrunk
	// description: The smallest schedule arena shrink found that still fails as survival-seed-17 did.
	// config:
	//   warmup: 10s
	//   cooldown: 30s
	//   seed: 17
	// actions:
	//   - action:
	//       type: network_partition
	//       target_id: worker-3
	//       metadata:
	//         duration: 1ms
	//   - action:
	//       type: kill_agent
	//       target_id: type:leader
	// expect:
	//   consistent: true
}
