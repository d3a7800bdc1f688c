package netfault

import (
	"context"
	"testing"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/netrules"
)

// TestConformance: the network passes arenatest's conformance suite: it
// lands the network faults (partition too), each seen in the plan of a call to the agent
// from another one (and gone once lifted), and refuses the rest with its
// reasons.
func TestConformance(t *testing.T) {
	other := func(id string) string {
		if id == "client" {
			return "api"
		}
		return "client"
	}
	plan := func(n *Network, a fault.Action) netrules.Plan {
		p, _ := n.links.Plan(other(a.TargetID), a.TargetID)
		return p
	}
	arenatest.TestRuntime(t, func(t *testing.T) *Network {
		n := New(nil, WithAgent("client", "client"), WithAgent("api", "service"), WithAgent("db", "db"))
		t.Cleanup(n.Close)
		return n
	},
		arenatest.Observe(fault.NetworkLatency, func(_ context.Context, n *Network, a fault.Action) (bool, error) {
			p := plan(n, a)
			return p.Out+p.Back > 0, nil
		}),
		arenatest.Observe(fault.NetworkBandwidth, func(_ context.Context, n *Network, a fault.Action) (bool, error) {
			return plan(n, a).Rate > 0, nil
		}),
		arenatest.Observe(fault.ConnectionReset, func(_ context.Context, n *Network, a fault.Action) (bool, error) {
			return plan(n, a).ResetAt != netrules.Never, nil
		}),
		arenatest.Observe(fault.NetworkPartition, func(_ context.Context, n *Network, a fault.Action) (bool, error) {
			return plan(n, a).Cut, nil
		}),
	)
}
