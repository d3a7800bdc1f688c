package kube_test

import (
	"testing"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/kube"
)

// TestConformance runs arenatest's conformance suite for runtimes against
// the kube runtime: every subtest gets fresh reference StatefulSets (leader,
// orchestrator, two workers) in a namespace of its own, run as agentd
// processes by the plane: pause and the agent-level faults go through the
// pod proxy to them. Partitions are checked with
// EnforcementAssumed: on kwok no CNI enforces them, and by default they
// (rightly) fail as not landed; here the suite checks their policies'
// lifecycle through the API.
func TestConformance(t *testing.T) {
	arenatest.TestRuntime(t, func(t *testing.T) *kube.Runtime {
		return newRuntime(t, kube.WithReferenceAgents(2), kube.WithEnforcement(kube.EnforcementAssumed))
	})
}
