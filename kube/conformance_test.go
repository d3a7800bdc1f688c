package kube_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/kube"
)

// TestConformance runs arenatest's conformance suite for runtimes against
// the kube runtime: every subtest gets fresh reference StatefulSets (leader,
// orchestrator, two workers) in a namespace of its own, run as agentd
// processes by the plane: pause and the agent-level faults go through the
// pod proxy to them. Partitions are checked with EnforcementAssumed: on
// kwok no CNI enforces them, and by default they (rightly) fail as not
// landed; here the suite checks their policies' lifecycle through the API.
// The effects arena's interfaces do not show are seen in what the runtime
// holds active (a partition's policy, a slowdown's resized limits) and in
// the faults an agent reports in GET /state. The network types are refused.
func TestConformance(t *testing.T) {
	active := func(typ fault.Type) arenatest.Effect[*kube.Runtime] {
		return arenatest.Observe(typ, func(_ context.Context, rt *kube.Runtime, a fault.Action) (bool, error) {
			return slices.Contains(rt.Active(), string(typ)+" "+a.TargetID), nil
		})
	}
	reports := func(kind string) arenatest.Effect[*kube.Runtime] {
		return arenatest.Observe(fault.Type(kind), func(ctx context.Context, rt *kube.Runtime, a fault.Action) (bool, error) {
			st, err := rt.State(ctx, a.TargetID)
			return slices.ContainsFunc(st.Faults, func(f agentapi.ActiveFault) bool { return f.Kind == kind }), err
		})
	}
	arenatest.TestRuntime(t, func(t *testing.T) *kube.Runtime {
		return newRuntime(t, kube.WithReferenceAgents(2), kube.WithEnforcement(kube.EnforcementAssumed))
	},
		active(fault.NetworkPartition),
		active(fault.SlowAgent),
		reports(agentapi.KindToolTimeout),
		reports(agentapi.KindMCPDisconnect),
		reports(agentapi.KindLLMFailure),
		reports(agentapi.KindClockJump),
	)
}
