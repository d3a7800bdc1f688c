package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
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
	ID           string         `json:"id"`
	FaultID      string         `json:"fault_id"`
	ActionType   fault.Type     `json:"action_type"`
	TargetID     string         `json:"target_id,omitempty"`
	Priority     int            `json:"priority"` // 1–10
	Reason       string         `json:"reason"`
	Recovered    bool           `json:"recovered"`
	TTR          clock.Duration `json:"ttr"`
	FailedChecks []string       `json:"failed_checks,omitempty"`
	Suggestion   string         `json:"suggestion"`
	CreatedAt    time.Time      `json:"created_at"`
}

// proposal returns the patch proposal for an outcome, or false if the fault
// was healed well (recovered within the speed limit, every check passed).
// Priority and suggestion are the type's spec's.
func proposal(f FaultOutcome, limit time.Duration, now time.Time, spec fault.Spec) (PatchProposal, bool) {
	var failed []string
	for _, c := range f.Checks {
		if c.Failed() {
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
		Priority: spec.Priority, Reason: fmt.Sprintf("%s on %s: %s", a.Type, a.TargetID, reason),
		Recovered: f.Recovered, TTR: f.TTR, FailedChecks: failed,
		Suggestion: spec.Suggestion, CreatedAt: now,
	}, true
}
