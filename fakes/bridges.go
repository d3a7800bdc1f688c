package fakes

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/ares-arena/arena/engine"
)

// DefaultFlightCapacity is how many timeline events, and how many
// diagnostics, a FlightRecorder keeps by default.
const DefaultFlightCapacity = 10_000

// FlightRecorder records the timeline events and diagnostics it receives,
// the last WithFlightCapacity of each in a ring (a long-running server's
// memory stays bounded). Set Err to make every call fail (to test the
// service's bridge error path).
type FlightRecorder struct {
	mu          sync.Mutex
	events      boundedRing[engine.FlightEvent]
	diagnostics boundedRing[engine.Diagnostic]
	Err         error
}

var (
	_ engine.FlightRecorder = (*FlightRecorder)(nil)
	_ engine.FlightReader   = (*FlightRecorder)(nil)
)

// FlightOption configures a FlightRecorder.
type FlightOption interface{ applyFlight(*FlightRecorder) }

type flightCapacityOption int

func (o flightCapacityOption) applyFlight(f *FlightRecorder) {
	f.events.cap, f.diagnostics.cap = int(o), int(o)
}

// WithFlightCapacity keeps the last n events and the last n diagnostics
// (default DefaultFlightCapacity); older ones are dropped.
func WithFlightCapacity(n int) FlightOption {
	if n <= 0 {
		panic("arena: fakes.WithFlightCapacity: capacity must be positive")
	}
	return flightCapacityOption(n)
}

// NewFlightRecorder returns an empty recorder.
func NewFlightRecorder(opts ...FlightOption) *FlightRecorder {
	f := &FlightRecorder{}
	WithFlightCapacity(DefaultFlightCapacity).applyFlight(f)
	for _, o := range opts {
		o.applyFlight(f)
	}
	return f
}

// RecordEvent records e.
func (f *FlightRecorder) RecordEvent(_ context.Context, e engine.FlightEvent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events.add(e)
	return f.Err
}

// RecordDiagnostic records d.
func (f *FlightRecorder) RecordDiagnostic(_ context.Context, d engine.Diagnostic) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.diagnostics.add(d)
	return f.Err
}

// Timeline returns the retained events in order.
func (f *FlightRecorder) Timeline(context.Context) ([]engine.FlightEvent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	items, _ := f.events.last(0)
	return items, nil
}

// Diagnostics returns the retained diagnostics in order.
func (f *FlightRecorder) Diagnostics(context.Context) ([]engine.Diagnostic, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	items, _ := f.diagnostics.last(0)
	return items, nil
}

// TimelinePage returns at most limit events, copying only those: with after
// > 0 the ones numbered after it (each event is numbered by its position
// among all ever recorded, from 1), oldest first; with after == 0 the
// newest limit. first is the number of the first event returned, dropped
// how many fell out of the ring. limit <= 0 means no limit.
func (f *FlightRecorder) TimelinePage(_ context.Context, after uint64, limit int) (items []engine.FlightEvent, first, dropped uint64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	items, first = pageOf(&f.events, after, limit)
	return items, first, f.events.dropped(), nil
}

// DiagnosticsPage is TimelinePage for the diagnostics.
func (f *FlightRecorder) DiagnosticsPage(_ context.Context, after uint64, limit int) (items []engine.Diagnostic, first, dropped uint64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	items, first = pageOf(&f.diagnostics, after, limit)
	return items, first, f.diagnostics.dropped(), nil
}

func pageOf[T any](r *boundedRing[T], after uint64, limit int) ([]T, uint64) {
	if after == 0 {
		return r.last(limit)
	}
	return r.page(after, limit)
}

// EvolutionCoordinator records the proposals it receives. EmergencyDelay
// makes ApplyEmergency block (until ctx ends) to test the service's timeout.
type EvolutionCoordinator struct {
	mu             sync.Mutex
	submitted      []engine.PatchProposal
	emergencies    []engine.PatchProposal
	EmergencyDelay time.Duration
	Err            error
}

var _ engine.EvolutionCoordinator = (*EvolutionCoordinator)(nil)

// NewEvolutionCoordinator returns an empty coordinator.
func NewEvolutionCoordinator() *EvolutionCoordinator { return &EvolutionCoordinator{} }

// Submit records p.
func (e *EvolutionCoordinator) Submit(_ context.Context, p engine.PatchProposal) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.submitted = append(e.submitted, p)
	return e.Err
}

// ApplyEmergency records p, after EmergencyDelay or when ctx ends.
func (e *EvolutionCoordinator) ApplyEmergency(ctx context.Context, p engine.PatchProposal) error {
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
func (e *EvolutionCoordinator) Submitted() []engine.PatchProposal {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.submitted)
}

// Emergencies returns the proposals applied through ApplyEmergency.
func (e *EvolutionCoordinator) Emergencies() []engine.PatchProposal {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.emergencies)
}

// EvidenceStore records the evidence it receives.
type EvidenceStore struct {
	mu    sync.Mutex
	items []engine.Evidence
	Err   error
}

var _ engine.EvidenceStore = (*EvidenceStore)(nil)

// NewEvidenceStore returns an empty store.
func NewEvidenceStore() *EvidenceStore { return &EvidenceStore{} }

// StoreEvidence records ev.
func (s *EvidenceStore) StoreEvidence(_ context.Context, ev engine.Evidence) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, ev)
	return s.Err
}

// Items returns the evidence received, in order.
func (s *EvidenceStore) Items() []engine.Evidence {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.items)
}
