package arena

import (
	"context"
	"time"
)

// EvidenceStore keeps evidence of failed actions for later inspection.
type EvidenceStore interface {
	StoreEvidence(ctx context.Context, e Evidence) error
}

// Evidence is the record of one failed action.
type Evidence struct {
	ID       string    `json:"id"`
	ActionID string    `json:"action_id"`
	Kind     string    `json:"kind"` // "injection_failure"
	Time     time.Time `json:"time"`
	Result   Result    `json:"result"`
}
