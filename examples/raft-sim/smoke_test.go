package raftsim

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/sim"
)

func TestSmoke(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := sim.New(sim.WithSeed(1))
		c, err := NewCluster(w, Config{})
		if err != nil {
			t.Fatal(err)
		}
		wl, err := StartWorkload(c, WorkloadConfig{})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Minute)
		l := c.Leader()
		t.Logf("leader %s", l)
		w.Node(l).Kill(context.Background())
		time.Sleep(time.Minute)
		t.Logf("leader %s", c.Leader())
		wl.Stop()
		ops := wl.Ops()
		fails := 0
		for _, o := range ops {
			if o.Outcome != OK {
				fails++
			}
		}
		t.Logf("%d ops, %d failed", len(ops), fails)
		w.Close(context.Background())
	})
}
