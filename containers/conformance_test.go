package containers_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/fault"
)

// TestConformance runs arenatest's conformance suite for runtimes against
// the container runtime: every subtest gets a fresh cluster of three
// containers (leader, orchestrator, one worker), removed when it ends. The
// effects arena's interfaces do not show are seen from outside: the CPU
// limits Docker holds, the runtime's partitions, the faults an agent
// reports in GET /state. The network types are refused (they are
// Proxied's).
func TestConformance(t *testing.T) {
	t.Parallel()
	containers.RequireDocker(t)
	reports := func(kind string) arenatest.Effect[*containers.Runtime] {
		return arenatest.Observe(fault.Type(kind), func(ctx context.Context, rt *containers.Runtime, a fault.Action) (bool, error) {
			st, err := rt.State(ctx, a.TargetID)
			return slices.ContainsFunc(st.Faults, func(f agentapi.ActiveFault) bool { return f.Kind == kind }), err
		})
	}
	arenatest.TestRuntime(t, func(t *testing.T) *containers.Runtime {
		return containers.ForTest(t, containers.WithProject(testProject), containers.WithReferenceAgents(1))
	},
		arenatest.Observe(fault.SlowAgent, func(ctx context.Context, rt *containers.Runtime, a fault.Action) (bool, error) {
			ag, _ := rt.Agent(a.TargetID)
			res, err := rt.Docker().ContainerInspect(ctx, ag.ContainerID(), client.ContainerInspectOptions{})
			if err != nil {
				return false, err
			}
			return res.Container.HostConfig.CPUQuota > 0, nil // the reference agents have no CPU limit of their own
		}),
		arenatest.Observe(fault.NetworkPartition, func(_ context.Context, rt *containers.Runtime, a fault.Action) (bool, error) {
			return rt.Partitioned(a.TargetID), nil
		}),
		reports(agentapi.KindToolTimeout),
		reports(agentapi.KindMCPDisconnect),
		reports(agentapi.KindLLMFailure),
		reports(agentapi.KindClockJump),
	)
}

// TestConformanceProxied runs the suite against a Proxied runtime, which
// lands the network faults too: each is seen as its toxics on the agent's
// proxies, gone once lifted.
func TestConformanceProxied(t *testing.T) {
	t.Parallel()
	containers.RequireDocker(t)
	toxics := func(typ fault.Type) arenatest.Effect[*containers.Proxied] {
		return arenatest.Observe(typ, func(_ context.Context, p *containers.Proxied, a fault.Action) (bool, error) {
			return slices.ContainsFunc(p.Toxics(a.TargetID), func(x string) bool { return strings.Contains(x, string(typ)) }), nil
		})
	}
	arenatest.TestRuntime(t, func(t *testing.T) *containers.Proxied {
		p, _ := proxied(t, 1)
		return p
	}, toxics(fault.NetworkLatency), toxics(fault.NetworkBandwidth), toxics(fault.ConnectionReset))
}
