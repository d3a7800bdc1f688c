package fakes_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fakes"
)

// A leader killed at 1s: the probe fails until failover elects worker-1 one
// election timeout later; the old leader comes back as a worker at 3s.
func ExampleNewCluster() {
	ctx := context.Background()
	clk := clock.NewVirtual(time.Time{})
	c := fakes.NewCluster(fakes.WithClock(clk), fakes.WithFailover(time.Second, 0))

	clk.Advance(time.Second)
	if err := c.StopAgent(ctx, c.Leader()); err != nil {
		panic(err)
	}
	for range 4 {
		fmt.Printf("probe: %v\n", c.Probe(ctx))
		clk.Advance(500 * time.Millisecond)
	}
	a, _ := c.Agent("leader-0")
	fmt.Println("leader:", c.Leader())
	fmt.Println("leader-0:", a.Type, a.Status, "restarts", a.Restarts)
	for _, check := range c.Checks() {
		fmt.Printf("check %s: %v\n", check.Name, check.Run(ctx))
	}
	// Output:
	// probe: leader unavailable: leader-0 stopped
	// probe: leader unavailable: leader-0 stopped
	// probe: <nil>
	// probe: <nil>
	// leader: worker-1
	// leader-0: worker running restarts 1
	// check tasks: <nil>
	// check memory: <nil>
	// check dag: <nil>
}
