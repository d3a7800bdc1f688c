package planted

import (
	"context"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// tasksCheck runs the cluster's "tasks" check.
func tasksCheck(t *testing.T, c *Cluster) error {
	t.Helper()
	for _, ch := range c.Checks() {
		if ch.Name == "tasks" {
			return ch.Run(context.Background())
		}
	}
	t.Fatal("no tasks check")
	return nil
}

// TestBugNeedsBothFaultsInOrder: only a partition followed by a kill of the
// leader, while the partition holds, loses a task.
func TestBugNeedsBothFaultsInOrder(t *testing.T) {
	ctx := context.Background()
	var lift fault.Lift // the partition's
	partition := func(c *Cluster) (err error) {
		lift, err = c.PartitionNetwork(ctx, "worker-2")
		return err
	}
	killLeader := func(c *Cluster) error { return c.StopAgent(ctx, c.Leader()) }
	killWorker := func(c *Cluster) error { return c.StopAgent(ctx, "worker-1") }
	heal := func(*Cluster) error { return lift(ctx) }
	cases := []struct {
		name  string
		steps []func(*Cluster) error
		lost  int
	}{
		{"partition then kill leader", []func(*Cluster) error{partition, killLeader}, 1},
		{"kill leader then partition", []func(*Cluster) error{killLeader, partition}, 0},
		{"partition alone", []func(*Cluster) error{partition}, 0},
		{"kill leader alone", []func(*Cluster) error{killLeader}, 0},
		{"partition then kill a worker", []func(*Cluster) error{partition, killWorker}, 0},
		{"partition healed, then kill leader", []func(*Cluster) error{partition, heal, killLeader}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := New(fakes.WithClock(clock.NewVirtual(time.Time{})))
			for i, step := range tc.steps {
				if err := step(c); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			if got := c.Lost(); got != tc.lost {
				t.Errorf("Lost() = %d, want %d", got, tc.lost)
			}
			if err := tasksCheck(t, c); (err != nil) != (tc.lost > 0) {
				t.Errorf("tasks check = %v, want a failure: %t", err, tc.lost > 0)
			}
		})
	}
}

func TestFlakyCoin(t *testing.T) {
	ctx := context.Background()
	for _, heads := range []bool{true, false} {
		c := NewFlaky(func() bool { return heads }, fakes.WithClock(clock.NewVirtual(time.Time{})))
		if err := c.StopAgent(ctx, c.Leader()); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 1, false: 0}[heads]; c.Lost() != want {
			t.Errorf("coin %t: Lost() = %d, want %d", heads, c.Lost(), want)
		}
	}
	coin := Coin(0.1, 7)
	n := 0
	for range 10_000 {
		if coin() {
			n++
		}
	}
	if n < 900 || n > 1100 {
		t.Errorf("Coin(0.1) came up %d times in 10,000", n)
	}
}
