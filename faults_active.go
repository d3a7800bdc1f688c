package arena

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
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
	Type     ActionType  `json:"type"`
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
	Type     ActionType `json:"type"`
	TargetID string     `json:"target_id,omitempty"`
	SourceID string     `json:"source_id,omitempty"`
	Outcome  string     `json:"outcome"` // lifted, lift_failed, left_to_system
	Detail   string     `json:"detail"`  // "lifted at end", "lift failed: …", "left to the system's healing"
}

// DefaultRollbackTimeout bounds the lifts of one rollback (WithRollbackTimeout).
const DefaultRollbackTimeout = 30 * time.Second

// DefaultMaxFaultDuration bounds a fault's `duration` (WithMaxFaultDuration).
const DefaultMaxFaultDuration = time.Hour

// activeFaults is the service's registry of liftable landed faults.
type activeFaults struct {
	mu sync.Mutex
	m  map[string]*activeFault
	// outside indexes the faults of m from outside a run by type (its
	// faultKind.idx), then target: there is at most one of each (see
	// supersede). A slot, so that replacing a fault writes no map; a slot
	// stays when its fault leaves, for the next fault on that target, until
	// empty slots are as many as the faults (sweepOutside).
	outside []map[string]*outsideSlot
	empty   int // slots of outside with no fault
	// lifting holds the faults whose lifts are under way: out of m, not yet
	// done. A rollback waits for those of its faults (activeFault.done), so
	// that a timer firing as a run or the process ends cannot leave a lift
	// running after Rollback returned.
	lifting map[string]*activeFault
}

type outsideSlot struct{ f *activeFault }

type activeFault struct {
	ActiveFault
	lift Lift        // what its landing handed back
	run  *Run        // nil: OriginExecute
	stop func() bool // cancels the timer of an OriginExecute fault with a duration
	// done is closed when its lift, under way, is done: made by the
	// rollback that waits for it (most lifts have none waiting, and a
	// channel each was a third of a lift's garbage). Behind faults.mu.
	done chan struct{}
}

// liftEvent is the payload of arena.fault.lifted.
type liftEvent struct {
	ActionID string     `json:"action_id"`
	Type     ActionType `json:"type"`
	TargetID string     `json:"target_id"`
	Why      string     `json:"why"` // "duration", "request", "rollback"
	Error    string     `json:"error,omitempty"`
}

// track registers a landed fault that arena can lift, with the lift its
// landing handed back. A fault executed outside a run with a `duration`
// gets a timer on the service's clock; a run schedules its own lift
// (Run.Inject). A landed resume_agent ends the pause it resumes. kind is
// what the injector knows of res's type; given says that the caller gave
// the action's ID (the service's own IDs are never in the registry yet).
func (s *Service) track(res *Result, given bool, p Params, kind faultKind, run *Run, lift Lift) {
	a := &res.Action
	if a.Type == ActionResumeAgent {
		s.faults.mu.Lock()
		for _, f := range s.faults.m {
			if f.Type == ActionPauseAgent && f.TargetID == a.TargetID {
				s.forget(f)
			}
		}
		s.faults.mu.Unlock()
		return
	}
	if !kind.canLift || lift == nil {
		return
	}
	f := &activeFault{
		ActiveFault: ActiveFault{ID: a.ID, Type: a.Type, TargetID: a.TargetID, Start: res.StartedAt, Origin: OriginExecute},
		lift:        lift, run: run,
	}
	if run != nil {
		f.Origin, f.RunID = run.origin, run.id
	}
	if p.Duration > 0 {
		at := res.StartedAt.Add(p.Duration)
		f.LiftAt = &at
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if s.faults.m == nil {
		s.faults.m = map[string]*activeFault{}
		s.faults.outside = make([]map[string]*outsideSlot, len(s.injector.kinds))
	}
	if given {
		if old := s.faults.m[a.ID]; old != nil {
			s.forget(old) // the same ID twice, past admit's check by a race: the later one owns it
		}
	}
	if run == nil {
		s.supersede(f, kind.idx)
	}
	s.faults.m[a.ID] = f
	if run == nil && p.Duration > 0 {
		// The duration counts from the start of landing, as in a run and as
		// LiftAt says: a landing that took a while is not added to it.
		f.stop = s.afterFunc(f.LiftAt.Sub(s.opts.clock.Now()), func() {
			ctx, cancel := context.WithTimeout(context.Background(), s.opts.rollbackTimeout) // a hung runtime must not hold the timer's goroutine
			defer cancel()
			_, _ = s.lift(ctx, f.ID, "duration") // a failed lift is in its event
		})
	}
}

// supersede forgets the fault from outside a run of f's type (idx, its
// faultKind.idx) on f's target (there is at most one, found through the
// outside index): a runtime's lift may end whatever fault of its type the
// agent has (the fakes', containers' and kube's lifts undo by type and
// agent), so f replaces it, and its own duration, not the other's, says
// when it ends. Without it, faults that the system healed by itself would
// pile up in the registry of a long-lived service, and an earlier fault's
// timer would lift f before its time. Called with s.faults.mu held.
func (s *Service) supersede(f *activeFault, idx int) {
	byTarget := s.faults.outside[idx]
	if byTarget == nil {
		byTarget = map[string]*outsideSlot{}
		s.faults.outside[idx] = byTarget
	}
	slot := byTarget[f.TargetID]
	switch {
	case slot == nil:
		slot = &outsideSlot{}
		byTarget[f.TargetID] = slot
	case slot.f != nil:
		s.drop(slot.f)
	default:
		s.faults.empty--
	}
	slot.f = f
}

// faultActive reports whether id is an active fault's ID.
func (s *Service) faultActive(id string) bool {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	_, ok := s.faults.m[id]
	return ok
}

// forget removes f from the registry. Called with s.faults.mu held.
func (s *Service) forget(f *activeFault) {
	if f.run == nil {
		byTarget := s.faults.outside[s.injector.kinds[f.Type].idx]
		if slot := byTarget[f.TargetID]; slot != nil && slot.f == f {
			slot.f = nil
			s.faults.empty++
			s.sweepOutside()
		}
	}
	s.drop(f)
}

// sweepOutside deletes the empty slots of the outside index once they
// outnumber the faults in the registry and 64: targets come and go (pods
// are renamed), and a long-lived service must not keep a slot for each
// one it ever hit. The sweep is paid for by the slots emptied since the
// last one. Called with s.faults.mu held.
func (s *Service) sweepOutside() {
	if s.faults.empty <= max(len(s.faults.m), 64) {
		return
	}
	for _, byTarget := range s.faults.outside {
		maps.DeleteFunc(byTarget, func(_ string, slot *outsideSlot) bool { return slot.f == nil })
	}
	s.faults.empty = 0
}

// drop removes f from m and stops its timer, leaving the outside index to
// the caller. Called with s.faults.mu held.
func (s *Service) drop(f *activeFault) {
	if s.faults.m[f.ID] == f {
		delete(s.faults.m, f.ID)
	}
	if f.stop != nil {
		f.stop()
	}
}

// afterFunc runs fn d from now on the service's clock: a virtual clock's
// timer fires when the clock passes it (a run or a test moving it), any
// other clock's after d of real time.
func (s *Service) afterFunc(d time.Duration, fn func()) (stop func() bool) {
	if vc, ok := s.opts.clock.(*VirtualClock); ok {
		return vc.afterFunc(d, fn)
	}
	return time.AfterFunc(d, fn).Stop
}

// lift takes fault id out of the registry and lifts it; found is false
// when it was not there (already lifted, or never liftable).
func (s *Service) lift(ctx context.Context, id, why string) (found bool, err error) {
	s.faults.mu.Lock()
	f, ok := s.faults.m[id]
	if ok {
		s.forget(f)
		if s.faults.lifting == nil {
			s.faults.lifting = map[string]*activeFault{}
		}
		s.faults.lifting[id] = f
		defer func() {
			s.faults.mu.Lock()
			if s.faults.lifting[id] == f { // a fault given the same ID may be lifting since
				delete(s.faults.lifting, id)
			}
			done := f.done
			s.faults.mu.Unlock()
			if done != nil {
				close(done)
			}
		}()
	}
	s.faults.mu.Unlock()
	if !ok {
		return false, nil
	}
	err = safely(func() error { return f.lift(ctx) })
	ev := liftEvent{ActionID: id, Type: f.Type, TargetID: f.TargetID, Why: why}
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
	defer s.faults.mu.Unlock()
	out := make([]ActiveFault, 0, len(s.faults.m))
	for _, f := range s.faults.m {
		out = append(out, f.ActiveFault)
	}
	slices.SortFunc(out, func(a, b ActiveFault) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// LiftFault lifts active fault id now (ErrNoActiveFault when there is none
// with that ID). The returned error is the runtime's, if the lift failed;
// the fault leaves the registry either way.
func (s *Service) LiftFault(ctx context.Context, id string) error {
	found, err := s.lift(ctx, id, "request")
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
	var ids []string
	for _, f := range s.ActiveFaults() {
		s.faults.mu.Lock()
		af, ok := s.faults.m[f.ID]
		s.faults.mu.Unlock()
		if ok && (run == nil || af.run == run) {
			ids = append(ids, f.ID)
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.rollbackTimeout)
	defer cancel()
	out := []FaultRollback{}
	for _, id := range ids {
		s.faults.mu.Lock()
		f, ok := s.faults.m[id]
		s.faults.mu.Unlock()
		if !ok {
			continue // lifted meanwhile
		}
		rb := FaultRollback{ActionID: id, Type: f.Type, TargetID: f.TargetID, Outcome: RollbackLifted, Detail: "lifted at end"}
		if _, err := s.lift(ctx, id, "rollback"); err != nil {
			rb.Outcome, rb.Detail = RollbackFailed, "lift failed: "+err.Error()
		}
		out = append(out, rb)
	}
	s.faults.mu.Lock()
	var pending []chan struct{}
	for _, f := range s.faults.lifting {
		if run == nil || f.run == run {
			if f.done == nil {
				f.done = make(chan struct{})
			}
			pending = append(pending, f.done)
		}
	}
	s.faults.mu.Unlock()
	for _, done := range pending { // lifts begun elsewhere (a timer, LiftFault): done before we say we are
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
		if f.Recovered || a.Type == ActionResumeAgent || s.injector.CanLift(a.Type) {
			continue
		}
		out = append(out, FaultRollback{ActionID: a.ID, Type: a.Type, TargetID: a.TargetID, SourceID: a.SourceID,
			Outcome: RollbackLeftToHeal, Detail: "left to the system's healing"})
	}
	return out
}
