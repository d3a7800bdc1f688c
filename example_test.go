package arena_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
)

// A minute of chaos against the fake cluster, in virtual time: the leader is
// killed at 10s and a standby takes over after the election timeout.
func ExampleRunSchedule() {
	clock := arena.NewVirtualClock(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clock), fakes.WithSeed(7), fakes.WithFailover(time.Second, 0))
	svc := arena.NewService(arena.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
		arena.WithClock(clock), arena.WithProbe(cluster.Probe), arena.WithChecks(cluster.Checks()...))

	rep, err := arena.RunSchedule(context.Background(), svc, arena.RunOptions{Seed: 7, Duration: time.Minute},
		arena.Step{At: 10 * time.Second, Action: arena.Action{Type: arena.ActionKillLeader}})
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

// Validation names the field at fault.
func ExampleAction_Validate() {
	a := arena.Action{Type: arena.ActionSlowAgent, TargetID: "worker-1", Metadata: map[string]any{"dealy": "2s"}}
	fmt.Println(a.Validate())
	a = arena.Action{Type: arena.ActionLLMFailure, TargetID: "worker-1", Metadata: map[string]any{"error_type": "teapot"}}
	fmt.Println(a.Validate())
	// Output:
	// metadata.dealy: unknown key for slow_agent (want delay, duration)
	// metadata.error_type: unknown error type "teapot" (want one of rate_limit, overloaded, timeout, server_error, invalid_response)
}

// The score is a weighted mean over the measured dimensions only.
func ExampleComputeScore() {
	s := arena.ComputeScore(arena.Inputs{
		Samples: 100, HealthySamples: 90, // availability 90
		TTRs: []time.Duration{4 * time.Second}, Recovered: []bool{true}, // recovery 0.7 + 0.3·6/9 = 90
	}, arena.ScoreOptions{})
	fmt.Printf("%.1f %s (consistency measured: %v)\n", s.Total, s.Grade, s.Consistency.Measured)
	// Output:
	// 90.0 A (consistency measured: false)
}

// Failure messages (arenatest, the Gomega matchers, a scenario's gate) list
// faults by their Describe text.
func ExampleFaultOutcome_Describe() {
	faults := []arena.FaultOutcome{
		{Action: arena.Action{Type: arena.ActionKillLeader, TargetID: "leader-0"}, At: arena.Duration(15 * time.Second),
			Recovered: true, TTR: arena.Duration(1234567 * time.Microsecond)},
		{Action: arena.Action{Type: arena.ActionRemoveEdge, SourceID: "plan", TargetID: "build"}, At: arena.Duration(20 * time.Second),
			Checks: []arena.CheckResult{{Name: "tasks", Passed: true}, {Name: "leader", Passed: false}}},
	}
	for _, f := range faults {
		fmt.Println(f.Describe())
	}
	// Output:
	// kill_leader on leader-0 at 15s: recovered in 1.235s
	// remove_edge on plan->build at 20s: unrecovered, check leader failed
}
