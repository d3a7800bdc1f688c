package main

import (
	"cmp"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ares-arena/arena/agentapi"
)

// llmErrors are the accepted error types of llm_failure (fault.LLMErrorTypes).
var llmErrors = []string{"rate_limit", "overloaded", "timeout", "server_error", "invalid_response"}

// faultSet holds the agent's active faults, each with the instant it ends on
// its own (its lifetime, or the agent's healing: MCP reconnect, DAG repair).
// Expiry is evaluated lazily against the clock, so no timer outlives the
// agent.
type faultSet struct {
	active map[string]agentapi.ActiveFault // key: kind, or remove_edge:<target>
	// skew is the active clock_jump's offset, in nanoseconds (0: none),
	// read without the agent's lock by its clock (Agent.now).
	skew atomic.Int64
}

func faultKey(kind, target string) string {
	if kind == agentapi.KindRemoveEdge {
		return kind + ":" + target
	}
	return kind
}

// validate checks a posted fault and fills its defaults.
func validateFault(f *agentapi.Fault, routes []string) error {
	if f.Duration < 0 || f.Timeout < 0 || f.Offset < 0 {
		return fmt.Errorf("negative duration, timeout or offset")
	}
	switch f.Kind {
	case agentapi.KindToolTimeout:
		if f.Timeout == 0 {
			f.Timeout = agentapi.Duration(5 * time.Second)
		}
	case agentapi.KindLLMFailure:
		if f.ErrorType == "" {
			f.ErrorType = "rate_limit"
		}
		if !slices.Contains(llmErrors, f.ErrorType) {
			return fmt.Errorf("error_type %q: want one of %v", f.ErrorType, llmErrors)
		}
	case agentapi.KindRemoveEdge:
		if !slices.Contains(routes, f.Target) {
			return fmt.Errorf("target %q: no edge to it (routes %v)", f.Target, routes)
		}
	case agentapi.KindClockJump:
		if f.Offset == 0 {
			f.Offset = agentapi.Duration(time.Minute)
		}
	case agentapi.KindMCPDisconnect, agentapi.KindMemoryCorrupt, agentapi.KindRemoveNode, agentapi.KindPause:
	default:
		return errUnknownKind
	}
	return nil
}

// set lands f at now; heal > 0 ends it after heal if its own lifetime is
// longer (or unset).
func (s *faultSet) set(f agentapi.Fault, now time.Time, heal time.Duration) {
	if s.active == nil {
		s.active = map[string]agentapi.ActiveFault{}
	}
	af := agentapi.ActiveFault{Fault: f, Since: now}
	life := f.Duration.D()
	if heal > 0 && (life == 0 || heal < life) {
		life = heal
	}
	if life > 0 {
		af.Until = now.Add(life)
	}
	s.active[faultKey(f.Kind, f.Target)] = af
	s.skewed()
}

// skewed sets skew from the active clock_jump, if any.
func (s *faultSet) skewed() {
	f, ok := s.active[agentapi.KindClockJump]
	if !ok {
		s.skew.Store(0)
		return
	}
	s.skew.Store(int64(f.Offset))
}

// expire drops the faults whose end has come.
func (s *faultSet) expire(now time.Time) {
	for k, f := range s.active {
		if !f.Until.IsZero() && !now.Before(f.Until) {
			delete(s.active, k)
		}
	}
	s.skewed()
}

// lift ends every fault of kind (of one target when target is not "").
func (s *faultSet) lift(kind, target string) {
	for k, f := range s.active {
		if f.Kind == kind && (target == "" || f.Target == target) {
			delete(s.active, k)
		}
	}
	s.skewed()
}

func (s *faultSet) get(kind string) (agentapi.ActiveFault, bool) {
	f, ok := s.active[kind]
	return f, ok
}

func (s *faultSet) has(kind, target string) bool {
	_, ok := s.active[faultKey(kind, target)]
	return ok
}

func (s *faultSet) list() []agentapi.ActiveFault {
	out := make([]agentapi.ActiveFault, 0, len(s.active))
	for _, f := range s.active {
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b agentapi.ActiveFault) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Target, b.Target))
	})
	return out
}
