package engine

import (
	"github.com/ares-arena/arena/clock"
)

// RunStatus is a live view of whatever run holds the service: a scenario,
// a survival run, a code-defined run, or an A/B test (which holds the
// service between its trials; its fields beyond Origin and RunID are
// zero). Survival runs have more in SurvivalStatus.
type RunStatus struct {
	Running bool        `json:"running"`
	RunID   string      `json:"run_id,omitempty"`
	Origin  FaultOrigin `json:"origin,omitempty"` // scenario, survival, run, regression
	Name    string      `json:"name,omitempty"`   // the scenario's name
	Seed    uint64      `json:"seed,omitempty"`
	Virtual bool        `json:"virtual"`
	// Progress is Elapsed / Duration on the run's clock, 0–1.
	Progress float64        `json:"progress"`
	Elapsed  clock.Duration `json:"elapsed"`
	// Duration is as planned: a survival run's duration, a scenario's
	// planned length (its steps may take longer: the run is allowed twice
	// that, and Progress stays at 1 meanwhile).
	Duration clock.Duration `json:"duration"`
	Active   int            `json:"active"` // faults awaiting a verdict
	Score    Score          `json:"score"`  // so far
	// Healthy is the probe's verdict at the last sample; absent before the
	// first one, or without a probe. (A watcher that came late learns the
	// system's state here; the stream has only its changes.)
	Healthy *bool `json:"healthy,omitempty"`
}

// RunStatus returns the status of the run holding the service, or one with
// Running false when none does.
func (s *Service) RunStatus() RunStatus {
	s.mu.Lock()
	r, leased := s.holder, s.leased
	s.mu.Unlock()
	switch {
	case r == nil && leased != nil:
		return RunStatus{Running: true, RunID: leased.id, Origin: OriginRegression}
	case r == nil:
		return RunStatus{}
	}
	length := r.end.Sub(r.start)
	if r.planned > 0 {
		length = r.planned
	}
	elapsed := max(r.ex.Now().Sub(r.start), 0)
	st := RunStatus{
		Running: true, RunID: r.id, Origin: r.origin, Name: r.name, Seed: r.seed, Virtual: r.ex.Virtual(),
		Elapsed: clock.Duration(elapsed), Duration: clock.Duration(length),
		Active: r.obs.Open(), Score: r.obs.Score(), Healthy: r.obs.verdict(),
	}
	if length > 0 {
		st.Progress = min(float64(elapsed)/float64(length), 1)
	}
	return st
}

// verdict is the probe's verdict at the last sample: nil before the first,
// or without a probe.
func (o *observer) verdict() *bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lastHealthy < 0 {
		return nil
	}
	h := o.lastHealthy == 1
	return &h
}
