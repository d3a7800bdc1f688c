package engine

import (
	"context"
	"time"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/faulterr"
)

// EvidenceStore keeps evidence of what went wrong, for later inspection.
type EvidenceStore interface {
	StoreEvidence(ctx context.Context, e Evidence) error
}

// Evidence is the record of one thing that went wrong: a fault that did not
// land (its Result), a fault the system did not recover from (Fault), or a
// consistency check that found a violation (Check, with the Violation when
// the check gave one).
type Evidence struct {
	ID       string        `json:"id"`
	ActionID string        `json:"action_id,omitempty"` // the fault's action; empty for an end-of-run check
	Kind     string        `json:"kind"`                // EvidenceInjectionFailure, EvidenceUnrecovered or EvidenceViolation
	Time     time.Time     `json:"time"`
	Result   fault.Result  `json:"result,omitzero"` // the failed injection
	Fault    *FaultOutcome `json:"fault,omitempty"` // the unrecovered fault
	Check    *CheckResult  `json:"check,omitempty"` // the failed check
	RunID    string        `json:"run_id,omitempty"`
}

// Kinds of evidence.
const (
	EvidenceInjectionFailure = "injection_failure"
	EvidenceUnrecovered      = "unrecovered_fault"
	EvidenceViolation        = "consistency_violation"
)

// storeEvidence stores e, counting a store's error as a bridge error.
func (s *Service) storeEvidence(ctx context.Context, e Evidence) {
	if s.evidence != nil {
		s.bridgeErr(faulterr.Safely(func() error { return s.evidence.StoreEvidence(ctx, e) }))
	}
}
