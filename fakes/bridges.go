package fakes

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/ares-arena/arena"
)

// FlightRecorder records the timeline events and diagnostics it receives.
// Set Err to make every call fail (to test the service's bridge error path).
type FlightRecorder struct {
	mu          sync.Mutex
	events      []arena.FlightEvent
	diagnostics []arena.Diagnostic
	Err         error
}

var (
	_ arena.FlightRecorder = (*FlightRecorder)(nil)
	_ arena.FlightReader   = (*FlightRecorder)(nil)
)

// NewFlightRecorder returns an empty recorder.
func NewFlightRecorder() *FlightRecorder { return &FlightRecorder{} }

// RecordEvent records e.
func (f *FlightRecorder) RecordEvent(_ context.Context, e arena.FlightEvent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, e)
	return f.Err
}

// RecordDiagnostic records d.
func (f *FlightRecorder) RecordDiagnostic(_ context.Context, d arena.Diagnostic) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.diagnostics = append(f.diagnostics, d)
	return f.Err
}

// Timeline returns the recorded events in order.
func (f *FlightRecorder) Timeline(context.Context) ([]arena.FlightEvent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.events), nil
}

// Diagnostics returns the recorded diagnostics in order.
func (f *FlightRecorder) Diagnostics(context.Context) ([]arena.Diagnostic, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.diagnostics), nil
}

// EvolutionCoordinator records the proposals it receives. EmergencyDelay
// makes ApplyEmergency block (until ctx ends) to test the service's timeout.
type EvolutionCoordinator struct {
	mu             sync.Mutex
	submitted      []arena.PatchProposal
	emergencies    []arena.PatchProposal
	EmergencyDelay time.Duration
	Err            error
}

var _ arena.EvolutionCoordinator = (*EvolutionCoordinator)(nil)

// NewEvolutionCoordinator returns an empty coordinator.
func NewEvolutionCoordinator() *EvolutionCoordinator { return &EvolutionCoordinator{} }

// Submit records p.
func (e *EvolutionCoordinator) Submit(_ context.Context, p arena.PatchProposal) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.submitted = append(e.submitted, p)
	return e.Err
}

// ApplyEmergency records p, after EmergencyDelay or when ctx ends.
func (e *EvolutionCoordinator) ApplyEmergency(ctx context.Context, p arena.PatchProposal) error {
	if e.EmergencyDelay > 0 {
		t := time.NewTimer(e.EmergencyDelay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.emergencies = append(e.emergencies, p)
	return e.Err
}

// Submitted returns the proposals received through Submit.
func (e *EvolutionCoordinator) Submitted() []arena.PatchProposal {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.submitted)
}

// Emergencies returns the proposals applied through ApplyEmergency.
func (e *EvolutionCoordinator) Emergencies() []arena.PatchProposal {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.emergencies)
}

// EvidenceStore records the evidence it receives.
type EvidenceStore struct {
	mu    sync.Mutex
	items []arena.Evidence
	Err   error
}

var _ arena.EvidenceStore = (*EvidenceStore)(nil)

// NewEvidenceStore returns an empty store.
func NewEvidenceStore() *EvidenceStore { return &EvidenceStore{} }

// StoreEvidence records ev.
func (s *EvidenceStore) StoreEvidence(_ context.Context, ev arena.Evidence) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, ev)
	return s.Err
}

// Items returns the evidence received, in order.
func (s *EvidenceStore) Items() []arena.Evidence {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.items)
}
