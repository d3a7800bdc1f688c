package engine

import (
	"context"
	"slices"
	"time"

	"github.com/ares-arena/arena/clock"
)

// What the external tests (package engine_test) that play the engine
// under a scenario borrow from the internal ones: the stub runtime and
// the evidence recorder.

type (
	StubRuntime = stubRuntime
	EvidenceRec = evidenceRec
)

func NewStub(c clock.Clock, outage time.Duration) *StubRuntime { return newStub(c, outage) }

func (s *stubRuntime) Probe(ctx context.Context) error { return s.probe(ctx) }

func (s *evidenceRec) Items() []Evidence {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.items)
}
