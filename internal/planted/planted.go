// Package planted holds a fake cluster with a bug planted in it, for the
// shrinker's tests and examples (shrink.Run): a bug that needs two faults,
// in a particular order, to show.
//
// [Cluster] is a [fakes.Cluster] whose leader hand-over forgets the task it
// was routing to an agent that is cut off: when the leader is killed while
// another agent is partitioned, one task is lost and the "tasks" check fails.
// A partition alone, a kill alone, or the kill before the partition, lose
// nothing. Nothing else of the fake cluster changes, so a schedule without
// that pair runs exactly as on a plain fakes.Cluster.
//
// [NewFlaky] adds a second, nondeterministic way to lose a task: a kill of
// the leader with nobody cut off loses one when a coin says so, as a flaky
// system would ([Coin] makes a seeded one).
package planted

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/ares-arena/arena/fakes"
	"github.com/ares-arena/arena/fault"
)

// Cluster is a fake cluster with the planted bug. It runs on the options'
// clock (fakes.WithClock), like the cluster it wraps.
type Cluster struct {
	*fakes.Cluster

	mu   sync.Mutex
	lost int         // tasks the planted bug lost
	coin func() bool // NewFlaky: the coin of a kill with nobody cut off
}

var _ fault.RuntimeProvider = (*Cluster)(nil)

// New returns a fake cluster made with opts, with the planted bug.
func New(opts ...fakes.Option) *Cluster {
	return &Cluster{Cluster: fakes.NewCluster(opts...)}
}

// NewFlaky is New, and a kill of the leader while nobody is cut off loses
// a task when coin returns true.
func NewFlaky(coin func() bool, opts ...fakes.Option) *Cluster {
	c := New(opts...)
	c.coin = coin
	return c
}

// Coin returns a coin that comes up true with probability p, drawn from a
// generator seeded with seed.
func Coin(p float64, seed uint64) func() bool {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	return func() bool { return rng.Float64() < p }
}

// StopAgent kills the agent; killing the leader while another agent is
// partitioned loses a task (the planted bug).
func (c *Cluster) StopAgent(ctx context.Context, agentID string) error {
	leader := c.Leader()
	if err := c.Cluster.StopAgent(ctx, agentID); err != nil {
		return err
	}
	if agentID != leader {
		return nil
	}
	cut, err := c.cutOff(ctx, leader)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cut != "" || (c.coin != nil && c.coin()) {
		c.lost++
	}
	return nil
}

// cutOff returns an agent other than except that is partitioned, or "".
func (c *Cluster) cutOff(ctx context.Context, except string) (string, error) {
	agents, err := c.ListAgents(ctx)
	if err != nil {
		return "", err
	}
	for _, a := range agents {
		if st, _ := c.Agent(a.ID); a.ID != except && st.Partitioned {
			return a.ID, nil
		}
	}
	return "", nil
}

// Lost returns how many tasks the planted bug has lost.
func (c *Cluster) Lost() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

// Checks returns the fake cluster's checks, whose "tasks" check also counts
// the tasks the planted bug lost.
func (c *Cluster) Checks() []fault.Check {
	checks := c.Cluster.Checks()
	for i, ch := range checks {
		if ch.Name != "tasks" {
			continue
		}
		inner := ch.Run
		checks[i].Run = func(ctx context.Context) error {
			err := inner(ctx)
			switch n := c.Lost(); n {
			case 0:
			case 1:
				return errors.Join(err, errors.New("1 task lost in the leader's hand-over"))
			default:
				return errors.Join(err, fmt.Errorf("%d tasks lost in the leader's hand-over", n))
			}
			return err
		}
	}
	return checks
}
