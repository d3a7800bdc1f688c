package engine_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// A minute of chaos against the fake cluster, in virtual time: the leader is
// killed at 10s and a standby takes over after the election timeout.
func ExampleRunSchedule() {
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(7), fakes.WithFailover(time.Second, 0))
	svc := engine.NewService(fault.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(cluster.Probe), engine.WithChecks(cluster.Checks()...))

	rep, err := engine.RunSchedule(context.Background(), svc, engine.RunOptions{Seed: 7, Duration: time.Minute},
		engine.Step{At: 10 * time.Second, Action: fault.Action{Type: fault.KillLeader}})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := rep.Faults[0]
	fmt.Printf("%s on %s: recovered %v in %s\n", f.Action.Type, f.Action.TargetID, f.Recovered, f.TTR)
	fmt.Printf("grade %s, new leader %s\n", rep.Score.Grade, cluster.Leader())
	// Output:
	// kill_leader on leader-0: recovered true in 1s
	// grade A+, new leader worker-1
}

// The score is a weighted mean over the measured dimensions only.
func ExampleComputeScore() {
	s := engine.ComputeScore(engine.Inputs{
		Samples: 100, HealthySamples: 90, // availability 90
		TTRs: []time.Duration{4 * time.Second}, Recovered: []bool{true}, // recovery 0.7 + 0.3·6/9 = 90
	}, engine.ScoreOptions{})
	fmt.Printf("%.1f %s (consistency measured: %v)\n", s.Total, s.Grade, s.Consistency.Measured)
	// Output:
	// 90.0 A (consistency measured: false)
}

// Failure messages (arenatest, the Gomega matchers, a scenario's gate) list
// faults by their Describe text.
func ExampleFaultOutcome_Describe() {
	faults := []engine.FaultOutcome{
		{Action: fault.Action{Type: fault.KillLeader, TargetID: "leader-0"}, At: clock.Duration(15 * time.Second),
			Recovered: true, TTR: clock.Duration(1234567 * time.Microsecond)},
		{Action: fault.Action{Type: fault.RemoveEdge, SourceID: "plan", TargetID: "build"}, At: clock.Duration(20 * time.Second),
			Checks: []engine.CheckResult{{Name: "tasks", Passed: true}, {Name: "leader", Passed: false}}},
	}
	for _, f := range faults {
		fmt.Println(f.Describe())
	}
	// Output:
	// kill_leader on leader-0 at 15s: recovered in 1.235s
	// remove_edge on plan->build at 20s: unrecovered, check leader failed
}
