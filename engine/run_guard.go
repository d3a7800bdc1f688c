package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ares-arena/arena/fault"
)

// ErrRunActive: a run (scenario, survival or code-defined) or an A/B test
// (regression.Tester.Run) holds the service. One run at a time per service: two runs on one system would
// score each other's faults. Errors that wrap it are *RunActiveError,
// which names the run.
var ErrRunActive = errors.New("a run is active on this service")

// RunActiveError says which run holds the service.
type RunActiveError struct {
	Origin FaultOrigin // scenario, survival, run or regression
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
	case OriginRegression:
		what = "an A/B test (" + e.RunID + ")"
	}
	return "a run is active on this service: " + what + " is running"
}

// Is makes errors.Is(err, ErrRunActive) true, and errors.Is(err,
// ErrSurvivalRunning) when the run is a survival run.
func (e *RunActiveError) Is(target error) bool {
	return target == ErrRunActive || (target == ErrSurvivalRunning && e.Origin == OriginSurvival)
}

// Lease is an A/B test's hold on the service (regression.Tester.Run). The
// test's own trial runs are admitted under it: those started with the
// context Context returns, which the tester hands its scorer. Any other
// run, and any action outside a run, is refused until Release, so nothing
// lands between two trials and leaks into the next one's score.
//
// It travels in a context because the scorer (user code) stands between
// the tester and the runs it starts, and the context is the one thing
// that reaches from the one to the other: scenario runs, RunSchedule,
// RunSurvival and Execute all take it.
type Lease struct {
	svc *Service
	id  string
}

type leaseKey struct{}

// Context returns ctx carrying the lease: runs started with it are
// admitted while the lease holds the service.
func (l *Lease) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, leaseKey{}, l)
}

func leaseOf(ctx context.Context) *Lease {
	l, _ := ctx.Value(leaseKey{}).(*Lease)
	return l
}

// Lease holds the service for an A/B test until Release, or says which run
// already holds it (a *RunActiveError).
func (s *Service) Lease() (*Lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.activeLocked(nil); err != nil {
		return nil, err
	}
	s.leased = &Lease{svc: s, id: fmt.Sprintf("run-%d", s.runIDs.Add(1))}
	s.markHeld()
	return s.leased, nil
}

// Record appends an event of the test that holds the lease (its result)
// to the service's stream, stamped with the service's clock.
func (l *Lease) Record(ctx context.Context, typ string, payload any) {
	l.svc.appendEvent(ctx, typ, l.svc.Clock().Now(), payload)
}

// Release lets the service go; releasing twice does nothing.
func (l *Lease) Release() {
	s := l.svc
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leased == l {
		s.leased = nil
		s.markHeld()
	}
}

// markHeld mirrors whether a run or a lease holds the service in s.held,
// which Execute reads without the lock. Called with s.mu held.
func (s *Service) markHeld() { s.held.Store(s.holder != nil || s.leased != nil) }

// activeLocked names what holds the service against a caller under lease
// l (nil: none): the run holding it, or an A/B test's lease other than l.
// Called with s.mu held.
func (s *Service) activeLocked(l *Lease) error {
	if h := s.holder; h != nil {
		return &RunActiveError{Origin: h.origin, Name: h.name, RunID: h.id}
	}
	if s.leased != nil && s.leased != l {
		return &RunActiveError{Origin: OriginRegression, RunID: s.leased.id}
	}
	return nil
}

// hold makes r the service's one run, or says which run already is. A run
// started under an A/B test's lease (ctx carries it) is admitted while the
// test holds the service.
func (s *Service) hold(ctx context.Context, r *Run) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holder == r {
		return nil
	}
	if err := s.activeLocked(leaseOf(ctx)); err != nil {
		return err
	}
	s.holder = r
	s.markHeld()
	return nil
}

func (s *Service) release(r *Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holder == r {
		s.holder = nil
		s.markHeld()
	}
}

// Admit reports whether Execute would refuse a before trying to land it:
// a `duration` over the service's maximum (a *ValidationError naming
// metadata.duration), an ID that an active fault has or that the caller may
// not give (checkGivenID; a *ValidationError naming id), or a run holding
// the service (a *RunActiveError).
//
// An action executed outside a run while one holds the service is
// refused, not mixed into that run's score: it is recorded as a failed
// action (history, stats, events) and the HTTP action routes answer 409.
func (s *Service) Admit(a fault.Action) error {
	given := a.ID != ""
	if given {
		if err := checkGivenID(a.ID); err != nil {
			return err
		}
	}
	p, _ := s.injector.Registry().Params(a) // an invalid action is Execute's to report
	return s.admit(context.Background(), a, given, p, nil)
}

// admit is Admit for an action of run (nil: outside any run) whose
// metadata decoded to p, executed with ctx (which may carry an A/B test's
// lease). given says that the caller gave a's ID: only such an ID may be
// an active fault's (the service's own are never reused).
func (s *Service) admit(ctx context.Context, a fault.Action, given bool, p fault.Params, run *Run) error {
	if err := s.CheckDuration(p); err != nil {
		return err
	}
	if given && s.faultActive(a.ID) { // the registry is keyed by ID: a second fault would hide the first from every lift
		return fault.Invalid("id", "%q is the ID of an active fault (lift it, or give this action another ID)", a.ID)
	}
	if run != nil || !s.held.Load() { // nothing holds the service: no lock, no lease to look up
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.activeLocked(leaseOf(ctx))
}

// CheckDuration refuses a `duration` over the service's maximum
// (WithMaxFaultDuration) with a *fault.ValidationError naming
// metadata.duration, as Execute and Admit do.
func (s *Service) CheckDuration(p fault.Params) error {
	if p.Duration > s.opts.maxFaultDuration {
		return fault.Invalid("metadata."+fault.MetaDuration, "%s is over the maximum fault duration %s", p.Duration, s.opts.maxFaultDuration)
	}
	return nil
}

// MaxFaultDuration returns the longest `duration` the service accepts.
func (s *Service) MaxFaultDuration() time.Duration { return s.opts.maxFaultDuration }

// RunActive returns a *RunActiveError naming the run or A/B test that
// holds the service, or nil when none does.
func (s *Service) RunActive() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.activeLocked(nil)
}
