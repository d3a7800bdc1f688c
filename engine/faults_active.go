package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/faulterr"
)

// EventFaultLifted is the event of a fault lifted by arena: at its
// duration, on request (LiftFault, DELETE /arena/faults/{id}), or rolled
// back when its run or process ended.
const EventFaultLifted = "arena.fault.lifted"

// ErrNoActiveFault: LiftFault was given an ID that is not in the registry
// (never landed, not liftable, or already lifted).
var ErrNoActiveFault = errors.New("no such active fault")

// FaultOrigin says which entry point landed an active fault.
type FaultOrigin string

// Fault origins.
const (
	OriginExecute  FaultOrigin = "execute"  // Service.Execute or an HTTP action route, outside any run
	OriginRun      FaultOrigin = "run"      // a code-defined run (RunSchedule, NewRun)
	OriginScenario FaultOrigin = "scenario" // a scenario run
	OriginSurvival FaultOrigin = "survival" // a survival run
	// OriginRegression is an A/B test holding the service (in a
	// RunActiveError); the faults of its trials are their runs'.
	OriginRegression FaultOrigin = "regression"
)

// ActiveFault is a landed fault that arena can still lift: its type is
// liftable and the runtime handed back its Lift when it landed. It stays in
// the service's registry until it is lifted (at its duration, on request,
// or by a rollback). Faults arena cannot lift (kills, memory corruption,
// DAG surgery) are never in it: healing them is the system's job.
type ActiveFault struct {
	ID       string      `json:"id"` // the action's ID
	Type     fault.Type  `json:"type"`
	TargetID string      `json:"target_id"`
	Start    time.Time   `json:"start"`             // when it landed, on the service's clock
	LiftAt   *time.Time  `json:"lift_at,omitempty"` // start + duration; none: until lifted or rolled back
	Origin   FaultOrigin `json:"origin"`
	RunID    string      `json:"run_id,omitempty"` // the run that owns it (not for OriginExecute)
}

// Rollback outcomes, in FaultRollback.Outcome.
const (
	RollbackLifted     = "lifted"      // arena lifted it when the run or process ended
	RollbackFailed     = "lift_failed" // the lift returned an error (Detail says which)
	RollbackLeftToHeal = "left_to_system"
)

// FaultRollback says what became of one fault when its run or process
// ended: lifted, a lift that failed, or (for faults arena cannot lift and
// the system had not healed) left to the system's healing.
type FaultRollback struct {
	ActionID string     `json:"action_id"`
	Type     fault.Type `json:"type"`
	TargetID string     `json:"target_id,omitempty"`
	SourceID string     `json:"source_id,omitempty"`
	Outcome  string     `json:"outcome"` // lifted, lift_failed, left_to_system
	Detail   string     `json:"detail"`  // "lifted at end", "lift failed: …", "left to the system's healing"
}

// DefaultRollbackTimeout bounds the lifts of one rollback (WithRollbackTimeout).
const DefaultRollbackTimeout = 30 * time.Second

// DefaultMaxFaultDuration bounds a fault's `duration` (WithMaxFaultDuration).
const DefaultMaxFaultDuration = time.Hour

// liftEvent is the payload of arena.fault.lifted.
type liftEvent struct {
	ActionID string     `json:"action_id"`
	Type     fault.Type `json:"type"`
	TargetID string     `json:"target_id"`
	Why      string     `json:"why"` // "duration", "request", "rollback"
	Error    string     `json:"error,omitempty"`
}

// afterFunc runs fn d from now on the service's clock: a virtual clock's
// timer fires when the clock passes it (a run or a test moving it), any
// other clock's after d of real time.
func (s *Service) afterFunc(d time.Duration, fn func()) (stop func() bool) {
	if vc, ok := s.opts.clock.(*clock.Virtual); ok {
		return vc.AfterFunc(d, fn)
	}
	return time.AfterFunc(d, fn).Stop
}

// lift takes fault id (seq, or any when seq is 0) out of the registry and
// lifts it; found is false when it was not there (already lifted, or never
// liftable).
func (s *Service) lift(ctx context.Context, id string, seq uint64, why string) (found bool, err error) {
	f, ok := s.take(id, seq)
	if !ok {
		return false, nil
	}
	defer s.lifted(f.seq)
	err = faulterr.Safely(func() error { return f.lift(ctx) })
	ev := liftEvent{ActionID: id, Type: f.typ, TargetID: f.target, Why: why}
	if err != nil {
		ev.Error = err.Error()
	}
	if s.store != nil {
		s.mu.Lock()
		payload := s.payloads.liftEvent(&ev)
		s.mu.Unlock()
		s.appendEncoded(ctx, EventFaultLifted, s.opts.clock.Now(), payload)
	}
	return true, err
}

// ActiveFaults lists the faults arena can still lift, oldest first.
func (s *Service) ActiveFaults() []ActiveFault {
	s.faults.mu.Lock()
	out := make([]ActiveFault, 0, len(s.faults.m))
	for _, f := range s.faults.m {
		out = append(out, f.public())
	}
	s.faults.mu.Unlock()
	slices.SortFunc(out, func(a, b ActiveFault) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// LiftFault lifts active fault id now (ErrNoActiveFault when there is none
// with that ID). The returned error is the runtime's, if the lift failed;
// the fault leaves the registry either way.
func (s *Service) LiftFault(ctx context.Context, id string) error {
	found, err := s.lift(ctx, id, 0, "request")
	if !found {
		return fmt.Errorf("%w: %q", ErrNoActiveFault, id)
	}
	return err
}

// Rollback lifts every active fault of the service, whoever landed it,
// within the service's rollback timeout (WithRollbackTimeout), and says
// what became of each. It also waits, within that timeout, for lifts
// already under way (a timer that fired, a LiftFault in flight). Processes and tests call it when they end (arena
// serve on SIGTERM, arenatest at cleanup); runs roll back their own faults
// when they end.
func (s *Service) Rollback(ctx context.Context) []FaultRollback {
	return s.rollback(ctx, nil)
}

// rollback lifts the active faults owned by run (every one when run is
// nil), oldest first, all within one rollback timeout.
func (s *Service) rollback(ctx context.Context, run *Run) []FaultRollback {
	faults := s.owned(run)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.rollbackTimeout)
	defer cancel()
	out := []FaultRollback{}
	for _, f := range faults {
		found, err := s.lift(ctx, f.id, f.seq, "rollback") // that fault, not a later one given its ID
		if !found {
			continue // lifted meanwhile
		}
		rb := FaultRollback{ActionID: f.id, Type: f.typ, TargetID: f.target, Outcome: RollbackLifted, Detail: "lifted at end"}
		if err != nil {
			rb.Outcome, rb.Detail = RollbackFailed, "lift failed: "+err.Error()
		}
		out = append(out, rb)
	}
	for _, done := range s.liftsUnderway(run) { // lifts begun elsewhere (a timer, LiftFault): done before we say we are
		select {
		case <-done:
		case <-ctx.Done():
			return out
		}
	}
	return out
}

// leftToHeal lists the faults of a finished run that arena cannot lift and
// the system had not healed by its end.
func (s *Service) leftToHeal(rep *Report) []FaultRollback {
	var out []FaultRollback
	for _, f := range rep.Faults {
		a := f.Action
		if f.Recovered || a.Type == fault.ResumeAgent || s.injector.CanLift(a.Type) {
			continue
		}
		out = append(out, FaultRollback{ActionID: a.ID, Type: a.Type, TargetID: a.TargetID, SourceID: a.SourceID,
			Outcome: RollbackLeftToHeal, Detail: "left to the system's healing"})
	}
	return out
}
