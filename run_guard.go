package arena

import (
	"errors"
	"fmt"
	"time"
)

// ErrRunActive: a run (scenario, survival or code-defined) holds the
// service. One run at a time per service: two runs on one system would
// score each other's faults. Errors that wrap it are *RunActiveError,
// which names the run.
var ErrRunActive = errors.New("a run is active on this service")

// RunActiveError says which run holds the service.
type RunActiveError struct {
	Origin FaultOrigin // scenario, survival or run
	Name   string      // the scenario's name; empty for the others
	RunID  string
}

func (e *RunActiveError) Error() string {
	what := "run " + e.RunID
	switch e.Origin {
	case OriginScenario:
		what = fmt.Sprintf("scenario %q (%s)", e.Name, e.RunID)
	case OriginSurvival:
		what = "a survival run (" + e.RunID + ")"
	}
	return "a run is active on this service: " + what + " is running"
}

// Is makes errors.Is(err, ErrRunActive) true, and errors.Is(err,
// ErrSurvivalRunning) when the run is a survival run.
func (e *RunActiveError) Is(target error) bool {
	return target == ErrRunActive || (target == ErrSurvivalRunning && e.Origin == OriginSurvival)
}

// hold makes r the service's one run, or says which run already is.
func (s *Service) hold(r *Run) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.holder; h != nil && h != r {
		return &RunActiveError{Origin: h.origin, Name: h.name, RunID: h.id}
	}
	s.holder = r
	return nil
}

func (s *Service) release(r *Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holder == r {
		s.holder = nil
	}
}

// Admit reports whether Execute would refuse a before trying to land it:
// a `duration` over the service's maximum (a *ValidationError naming
// metadata.duration), an ID that an active fault has (a *ValidationError
// naming id), or a run holding the service (a *RunActiveError).
//
// An action executed outside a run while one holds the service is
// refused, not mixed into that run's score: it is recorded as a failed
// action (history, stats, events) and the HTTP action routes answer 409.
func (s *Service) Admit(a Action) error {
	return s.admit(a, nil)
}

func (s *Service) admit(a Action, run *Run) error {
	if err := s.checkDuration(a); err != nil {
		return err
	}
	if s.faultActive(a.ID) { // the registry is keyed by ID: a second fault would hide the first from every lift
		return invalid("id", "%q is the ID of an active fault (lift it, or give this action another ID)", a.ID)
	}
	if run != nil {
		return nil
	}
	return s.RunActive()
}

// checkDuration refuses a `duration` over the service's maximum.
func (s *Service) checkDuration(a Action) error {
	if p, err := a.Params(); err == nil && p.Duration > s.opts.maxFaultDuration {
		return invalid("metadata."+MetaDuration, "%s is over the maximum fault duration %s", p.Duration, s.opts.maxFaultDuration)
	}
	return nil
}

// MaxFaultDuration returns the longest `duration` the service accepts.
func (s *Service) MaxFaultDuration() time.Duration { return s.opts.maxFaultDuration }

// RunActive returns a *RunActiveError naming the run that holds the
// service, or nil when none does.
func (s *Service) RunActive() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.holder; h != nil {
		return &RunActiveError{Origin: h.origin, Name: h.name, RunID: h.id}
	}
	return nil
}
