package scenario

import (
	"context"
	"sync"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
)

// stepPhase is where a step is during a run.
type stepPhase int

const (
	phaseWaiting stepPhase = iota // dependencies not completed, or its delay not over
	phaseQueued                   // due, waiting for a free slot (max_concurrent)
	phaseRunning                  // injection in flight
	phaseDone                     // completed: landed or not
	phaseSkipped                  // never started
)

type stepRun struct {
	phase   stepPhase
	blocked int // dependencies not yet completed
	ready   time.Time
	result  fault.Result
	met     bool   // the result met the step's expectation
	reason  string // why it failed or was skipped
}

// scheduler plays a scenario's steps on a Run.
//
// Both modes are one mechanism: sequential mode is the chain in which each
// step depends on the one before it, with one injection in flight; parallel
// mode is the depends_on DAG with at most max_concurrent in flight. A step
// becomes ready when all of its dependencies have completed (landed or
// not), is due Delay later, and starts when a slot is free; due steps take
// slots in the order they fell due. When every step has completed or been
// skipped, the run ends after the cooldown.
//
// In virtual time an injection takes no time (executor.Go runs it inline),
// so steps due at one instant start at that instant, one after the other.
// In real time injections run on goroutines and overlap, up to the bound.
type scheduler struct {
	ctx      context.Context
	r        *engine.Run
	sc       *Scenario
	children [][]int // steps that wait for each step
	slots    int

	mu       sync.Mutex
	steps    []stepRun
	queue    []int // due steps waiting for a slot, in the order they fell due
	inflight int
	peak     int
	open     int  // steps neither completed nor skipped
	stopped  int  // index of the step that stopped the run (stop_on_error), or -1
	ending   bool // every step is done; the cooldown is running
	ended    bool // the cooldown is over and the run stopped
	lastDone time.Time
}

func newScheduler(ctx context.Context, r *engine.Run, sc *Scenario) *scheduler {
	n := len(sc.Actions)
	s := &scheduler{
		ctx: ctx, r: r, sc: sc, slots: sc.Config.maxConcurrent(),
		children: make([][]int, n), steps: make([]stepRun, n), open: n, stopped: -1,
	}
	r.PlanFaults(sc.plannedFaults()) // none of them landed: no grade (engine.Score.NoneLanded)
	labels := sc.labelIndex()
	for i, st := range sc.Actions {
		if !sc.Config.ParallelActions {
			if i > 0 {
				s.children[i-1] = append(s.children[i-1], i)
				s.steps[i].blocked = 1
			}
			continue // earlier depends_on are implied by the chain
		}
		for _, dep := range st.DependsOn {
			j := labels[dep]
			s.children[j] = append(s.children[j], i)
			s.steps[i].blocked++
		}
	}
	return s
}

// start makes the steps without dependencies ready at the end of the warmup.
func (s *scheduler) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.r.Start().Add(s.sc.Config.Warmup.D())
	for i := range s.steps {
		if s.steps[i].blocked == 0 {
			s.readyAt(i, at)
		}
	}
}

// readyAt marks step i ready at t and schedules it due after its delay.
// Called with s.mu held.
func (s *scheduler) readyAt(i int, t time.Time) {
	s.steps[i].ready = t
	s.r.At(t.Add(s.sc.Actions[i].Delay.D()).Sub(s.r.Start()), engine.KindInject, func(context.Context) { s.due(i) })
}

func (s *scheduler) due(i int) {
	s.mu.Lock()
	if s.steps[i].phase != phaseWaiting {
		s.mu.Unlock()
		return // skipped meanwhile (stop_on_error)
	}
	s.steps[i].phase = phaseQueued
	s.queue = append(s.queue, i)
	starts := s.take()
	s.mu.Unlock()
	s.launch(starts)
}

// take claims slots for queued steps. Nothing new starts once the run is
// cancelled or past its end. Called with s.mu held.
func (s *scheduler) take() []int {
	now := s.r.Now()
	if s.ctx.Err() != nil || now.After(s.r.End()) {
		return nil
	}
	var starts []int
	for len(s.queue) > 0 && s.inflight < s.slots {
		i := s.queue[0]
		s.queue = s.queue[1:]
		s.inflight++
		s.peak = max(s.peak, s.inflight)
		s.steps[i].phase = phaseRunning
		starts = append(starts, i)
	}
	return starts
}

func (s *scheduler) launch(starts []int) {
	for _, i := range starts {
		s.r.Go(func(ctx context.Context) {
			s.complete(i, s.r.Inject(ctx, s.sc.Actions[i].Action))
		})
	}
}

// complete records step i's result, releases its slot and its dependents,
// and ends the run after the cooldown once nothing is left to do.
func (s *scheduler) complete(i int, res fault.Result) {
	s.mu.Lock()
	now := s.r.Now()
	st := &s.steps[i]
	st.phase, st.result = phaseDone, res
	st.met, st.reason = expectationMet(s.sc.Actions[i], res)
	s.inflight--
	s.open--
	if !st.met && s.sc.Config.StopOnError && s.stopped < 0 {
		s.stopped = i
		s.skipRemaining("stop_on_error: " + stepName(s.sc, i) + " failed")
	}
	if s.stopped < 0 {
		for _, c := range s.children[i] {
			if s.steps[c].blocked--; s.steps[c].blocked == 0 {
				s.readyAt(c, now)
			}
		}
	}
	starts := s.take()
	if s.open == 0 && s.inflight == 0 && !s.ending {
		s.ending, s.lastDone = true, now
		s.r.At(now.Add(s.sc.Config.Cooldown.D()).Sub(s.r.Start()), engine.KindPhase, func(context.Context) { s.end() })
	}
	s.mu.Unlock()
	s.launch(starts)
}

// skipRemaining skips every step that has not started. Called with s.mu held.
func (s *scheduler) skipRemaining(reason string) {
	s.queue = nil
	for i := range s.steps {
		if st := &s.steps[i]; st.phase == phaseWaiting || st.phase == phaseQueued {
			st.phase, st.reason = phaseSkipped, reason
			s.open--
		}
	}
}

func (s *scheduler) end() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	s.r.Complete()
}

// outcome says how the schedule ended, once the run is over.
func (s *scheduler) outcome() Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !s.ended:
		return OutcomeTimedOut
	case s.stopped >= 0:
		return OutcomeStopped
	}
	return OutcomeCompleted
}

// finish skips, with reason, the steps that never started because the run
// ended early (timeout or cancellation).
func (s *scheduler) finish(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skipRemaining(reason)
}

// expectationMet checks a step's result against its expectation: failure
// when expect_failure is set, success otherwise.
func expectationMet(st Step, res fault.Result) (bool, string) {
	switch {
	case st.ExpectFailure && res.Success:
		return false, "expected the fault to be refused, it landed on " + res.Action.TargetText()
	case !st.ExpectFailure && !res.Success:
		return false, "expected the fault to land: " + res.Error
	}
	return true, ""
}

// stepName names a step in messages: actions[2] (label).
func stepName(sc *Scenario, i int) string {
	name := pathIndex("actions", i)
	if l := sc.Actions[i].Label; l != "" {
		name += " (" + l + ")"
	}
	return name
}
