package arena

import (
	"context"
	"fmt"
	"time"
)

// EvolutionCoordinator receives patch proposals for faults the system did not
// heal well, so that an evolving system can learn from them.
type EvolutionCoordinator interface {
	Submit(ctx context.Context, p PatchProposal) error
	// ApplyEmergency is for proposals of priority ≥ EmergencyPriority; the
	// service bounds it with a timeout.
	ApplyEmergency(ctx context.Context, p PatchProposal) error
}

// EmergencyPriority is the priority from which proposals go through
// ApplyEmergency: the loss of the leader or the orchestrator.
const EmergencyPriority = 9

// PatchProposal describes a fault the system did not heal: unrecovered,
// recovered slower than the score's speed limit, or leaving a consistency
// check failed.
type PatchProposal struct {
	ID           string     `json:"id"`
	FaultID      string     `json:"fault_id"`
	ActionType   ActionType `json:"action_type"`
	TargetID     string     `json:"target_id,omitempty"`
	Priority     int        `json:"priority"` // 1–10
	Reason       string     `json:"reason"`
	Recovered    bool       `json:"recovered"`
	TTR          Duration   `json:"ttr"`
	FailedChecks []string   `json:"failed_checks,omitempty"`
	Suggestion   string     `json:"suggestion"`
	CreatedAt    time.Time  `json:"created_at"`
}

// priorities rank how much an unhealed fault hurts; see EmergencyPriority.
var priorities = map[ActionType]int{
	ActionKillLeader: 9, ActionKillOrchestrator: 9,
	ActionNetworkPartition: 7, ActionKillAgent: 6, ActionMemoryCorrupt: 6,
	ActionRemoveNode: 5, ActionRemoveEdge: 5, ActionPauseAgent: 5,
	ActionLLMFailure: 4, ActionToolTimeout: 4, ActionMCPDisconnect: 4,
	ActionSlowAgent: 3, ActionResumeAgent: 2,
}

var suggestions = map[ActionType]string{
	ActionKillLeader:       "add or speed up leader election so a standby takes over",
	ActionKillOrchestrator: "add or speed up orchestrator failover so a standby takes over",
	ActionKillAgent:        "resurrect killed agents (supervisor or restart policy) and restore their state from a checkpoint",
	ActionPauseAgent:       "detect frozen agents with heartbeats and route work away from them",
	ActionResumeAgent:      "make sure resumed agents rejoin and catch up",
	ActionSlowAgent:        "time out slow calls and route work to other agents",
	ActionNetworkPartition: "reconnect after partitions and re-sync state; route around unreachable agents",
	ActionToolTimeout:      "retry tool calls with backoff and reroute tasks after repeated timeouts",
	ActionMemoryCorrupt:    "checksum memory and restore it from the last good checkpoint",
	ActionMCPDisconnect:    "reconnect MCP sessions automatically with backoff",
	ActionLLMFailure:       "retry LLM calls with backoff and fall back to another model or worker",
	ActionRemoveNode:       "repair the DAG from its canonical definition",
	ActionRemoveEdge:       "repair the DAG from its canonical definition",
}

// proposal returns the patch proposal for an outcome, or false if the fault
// was healed well (recovered within the speed limit, every check passed).
func proposal(f FaultOutcome, limit time.Duration, now time.Time) (PatchProposal, bool) {
	var failed []string
	for _, c := range f.Checks {
		if !c.Passed {
			failed = append(failed, c.Name)
		}
	}
	var reason string
	switch {
	case !f.Recovered:
		reason = "unrecovered"
	case f.TTR.D() > limit:
		reason = fmt.Sprintf("recovered in %s, slower than %s", f.TTR, limit)
	case len(failed) > 0:
		reason = fmt.Sprintf("consistency violated: %v", failed)
	default:
		return PatchProposal{}, false
	}
	a := f.Action
	return PatchProposal{
		ID: "patch-" + a.ID, FaultID: a.ID, ActionType: a.Type, TargetID: a.TargetID,
		Priority: priorities[a.Type], Reason: fmt.Sprintf("%s on %s: %s", a.Type, a.TargetID, reason),
		Recovered: f.Recovered, TTR: f.TTR, FailedChecks: failed,
		Suggestion: suggestions[a.Type], CreatedAt: now,
	}, true
}
