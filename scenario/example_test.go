package scenario_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/scenario"
)

// Every problem of a scenario file is reported at once, with its file, line,
// column and field path.
func ExampleLoad() {
	_, err := scenario.Load([]byte(`name: typos
config: {parallel_actions: true}
actions:
  - label: slow
    action:
      type: slow_agent
      target_id: worker-1
      metadata: {dealy: 2s}
  - label: kill
    depends_on: [slow, kil]
    action: {type: kill_agent}
`), "typos.yaml")
	fmt.Println(err)
	// Output:
	// typos.yaml:8:18: actions[0].action.metadata.dealy: unknown key for slow_agent (want delay, duration)
	// typos.yaml:10:24: actions[1].depends_on[1]: unknown label "kil"
	// typos.yaml:11:5: actions[1].action.target_id: missing
}

// A scenario run against the fake cluster in virtual time: the steps, the
// gate's verdict, and the run's score.
func ExampleRun() {
	sc, err := scenario.Load([]byte(`name: failover
config: {warmup: 5s, cooldown: 15s, seed: 7}
actions:
  - delay: 5s
    action: {type: kill_leader}
  - delay: 15s
    action: {type: kill_agent, target_id: "type:worker"}
expect: {min_grade: B, max_mttr: 2s, all_recovered: true}
`), "failover.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	clk := clock.NewVirtual(time.Time{})
	cluster := fakes.NewCluster(fakes.WithClock(clk), fakes.WithSeed(7))
	svc := engine.NewService(fault.NewInjector(cluster, cluster), events.NewMemoryStore(), nil,
		engine.WithClock(clk), engine.WithProbe(cluster.Probe), engine.WithChecks(cluster.Checks()...))

	rep, err := scenario.Run(context.Background(), svc, sc)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range rep.Steps {
		fmt.Printf("%s at %s on %s: %s\n", st.Type, st.Started, st.Result.Action.TargetID, st.Status)
	}
	fmt.Printf("gate %s, grade %s, MTTR %s\n", rep.Gate.Verdict, rep.Report.Score.Grade, rep.Report.MTTR)
	// Output:
	// kill_leader at 10s on leader-0: passed
	// kill_agent at 25s on worker-2: passed
	// gate passed, grade A+, MTTR 550ms
}
