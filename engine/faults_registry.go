package engine

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ares-arena/arena/fault"
)

// activeFaults is the service's registry of liftable landed faults. It
// holds them by value: a fault is a map entry, not an allocation (one per
// Execute was a sixth of its time, in the collector's work and in cold
// memory), and whoever needs one after the lock is released holds a copy.
// seq tells apart two faults given the same ID.
type activeFaults struct {
	mu  sync.Mutex
	m   map[string]activeFault // by ID
	seq uint64                 // the last fault's activeFault.seq
	// outside indexes the faults of m from outside a run by type (its
	// Binding.Index()), then target: there is at most one of each (see
	// supersede). A slot, so that replacing a fault writes no map; a slot
	// stays when its fault leaves, for the next fault on that target, until
	// empty slots are as many as the faults (sweepOutside).
	outside []map[string]*outsideSlot
	empty   int // slots of outside with no fault
	// lifting holds the faults whose lifts are under way, by seq: out of m,
	// not yet done. A rollback waits for those of its faults (liftingFault.done),
	// so that a timer firing as a run or the process ends cannot leave a
	// lift running after Rollback returned.
	lifting map[uint64]liftingFault
}

// outsideSlot holds the fault (ID and seq) of a type and target from
// outside a run; an empty ID: none.
type outsideSlot struct {
	id  string
	seq uint64
}

// activeFault is a fault in the registry: 112 bytes, so that the map keeps
// it in its own table (it keeps values over 128 bytes behind a pointer, an
// allocation each).
type activeFault struct {
	id       string
	typ      fault.Type
	target   string
	start    time.Time     // when it landed, on the service's clock
	duration time.Duration // 0: until lifted or rolled back
	lift     fault.Lift    // what its landing handed back
	run      *Run          // nil: OriginExecute
	stop     func() bool   // cancels the timer of an OriginExecute fault with a duration
	seq      uint64        // its number among the faults ever registered, from 1
}

// liftingFault is a fault whose lift is under way.
type liftingFault struct {
	run *Run
	// done is closed when the lift is done: made by the rollback that
	// waits for it (most lifts have none waiting, and a channel each was a
	// third of a lift's garbage).
	done chan struct{}
}

// public is f as ActiveFaults shows it.
func (f *activeFault) public() ActiveFault {
	out := ActiveFault{ID: f.id, Type: f.typ, TargetID: f.target, Start: f.start, Origin: OriginExecute}
	if f.run != nil {
		out.Origin, out.RunID = f.run.origin, f.run.id
	}
	if f.duration > 0 {
		at := f.start.Add(f.duration)
		out.LiftAt = &at
	}
	return out
}

// track registers a landed fault that arena can lift, with the lift its
// landing handed back. A fault executed outside a run with a `duration`
// gets a timer on the service's clock; a run schedules its own lift
// (Run.Inject). A landed resume_agent ends the pause it resumes. kind is
// what the injector knows of res's type; given says that the caller gave
// the action's ID (the service's own IDs are never in the registry yet).
func (s *Service) track(res *fault.Result, given bool, p fault.Params, kind fault.Binding, run *Run, lift fault.Lift) {
	a := &res.Action
	if a.Type == fault.ResumeAgent {
		s.faults.mu.Lock()
		for _, f := range s.faults.m {
			if f.typ == fault.PauseAgent && f.target == a.TargetID {
				s.forget(&f)
			}
		}
		s.faults.mu.Unlock()
		return
	}
	if !kind.CanLift() || lift == nil {
		return
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if s.faults.m == nil {
		s.faults.m = map[string]activeFault{}
		s.faults.outside = make([]map[string]*outsideSlot, s.injector.Registry().Len())
	}
	if given {
		if old, ok := s.faults.m[a.ID]; ok {
			s.forget(&old) // the same ID twice, past admit's check by a race: the later one owns it
		}
	}
	s.faults.seq++
	f := activeFault{id: a.ID, typ: a.Type, target: a.TargetID, start: res.StartedAt, duration: p.Duration,
		lift: lift, run: run, seq: s.faults.seq}
	if run == nil {
		s.supersede(&f, kind.Index())
		if p.Duration > 0 {
			// The duration counts from the start of landing, as in a run and
			// as LiftAt says: a landing that took a while is not added to it.
			// The timer cannot fire before f is in m: lifting takes the lock.
			id, seq := f.id, f.seq
			f.stop = s.afterFunc(f.start.Add(p.Duration).Sub(s.opts.clock.Now()), func() {
				ctx, cancel := context.WithTimeout(context.Background(), s.opts.rollbackTimeout) // a hung runtime must not hold the timer's goroutine
				defer cancel()
				_, _ = s.lift(ctx, id, seq, "duration") // a failed lift is in its event
			})
		}
	}
	s.faults.m[a.ID] = f
}

// supersede forgets the fault from outside a run of f's type (idx, its
// Binding.Index()) on f's target (there is at most one, found through the
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
	slot := byTarget[f.target]
	switch {
	case slot == nil:
		slot = &outsideSlot{}
		byTarget[f.target] = slot
	case slot.id != "":
		if old, ok := s.faults.m[slot.id]; ok && old.seq == slot.seq { // it is: forget empties the slot of a fault it removes
			s.drop(&old)
		}
	default:
		s.faults.empty--
	}
	slot.id, slot.seq = f.id, f.seq
}

// seqOf returns the seq of active fault id, 0 when there is none.
func (s *Service) seqOf(id string) uint64 {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	return s.faults.m[id].seq
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
		byTarget := s.faults.outside[s.injector.Binding(f.typ).Index()]
		if slot := byTarget[f.target]; slot != nil && slot.seq == f.seq {
			*slot = outsideSlot{}
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
		maps.DeleteFunc(byTarget, func(_ string, slot *outsideSlot) bool { return slot.id == "" })
	}
	s.faults.empty = 0
}

// drop removes f from m, if it is still there (not a later fault with its
// ID), and stops its timer, leaving the outside index to the caller.
// Called with s.faults.mu held.
func (s *Service) drop(f *activeFault) {
	if cur, ok := s.faults.m[f.id]; ok && cur.seq == f.seq {
		delete(s.faults.m, f.id)
	}
	if f.stop != nil {
		f.stop()
	}
}

// take removes fault id (seq, or any when seq is 0) from the registry and
// marks its lift under way; ok is false when it was not there.
func (s *Service) take(id string, seq uint64) (f activeFault, ok bool) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	f, ok = s.faults.m[id]
	if !ok || (seq != 0 && f.seq != seq) {
		return activeFault{}, false
	}
	s.forget(&f)
	if s.faults.lifting == nil {
		s.faults.lifting = map[uint64]liftingFault{}
	}
	s.faults.lifting[f.seq] = liftingFault{run: f.run}
	return f, true
}

// lifted ends the lift of fault seq that take began, and tells a rollback
// waiting for it.
func (s *Service) lifted(seq uint64) {
	s.faults.mu.Lock()
	done := s.faults.lifting[seq].done
	delete(s.faults.lifting, seq)
	s.faults.mu.Unlock()
	if done != nil {
		close(done)
	}
}

// owned lists the active faults of run (every one when run is nil),
// oldest first.
func (s *Service) owned(run *Run) []activeFault {
	s.faults.mu.Lock()
	var fs []activeFault
	for _, f := range s.faults.m {
		if run == nil || f.run == run {
			fs = append(fs, f)
		}
	}
	s.faults.mu.Unlock()
	slices.SortFunc(fs, func(a, b activeFault) int {
		return cmp.Or(a.start.Compare(b.start), cmp.Compare(a.id, b.id))
	})
	return fs
}

// liftsUnderway returns the channels that close when the lifts under way of
// run's faults (every fault's when run is nil) are done.
func (s *Service) liftsUnderway(run *Run) []chan struct{} {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	var pending []chan struct{}
	for seq, l := range s.faults.lifting {
		if run == nil || l.run == run {
			if l.done == nil {
				l.done = make(chan struct{})
				s.faults.lifting[seq] = l
			}
			pending = append(pending, l.done)
		}
	}
	return pending
}
