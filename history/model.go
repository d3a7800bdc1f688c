package history

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// Model is a sequential specification of a system, for Linearizable: the
// states it can be in (S) and which operations (T) it allows from each. It
// is porcupine's Model, typed. KV, Register and Log are ready ones.
//
// Step must be pure: it returns the next state and must not change the one
// it is given. It sees operations whose status is OK or Unknown (failed
// operations did not happen and are left out); for an Unknown one, the
// output fields of op.Value mean nothing and Step must accept any, taking
// the operation's effect on the state. Porcupine places an unknown
// operation anywhere after its invocation, the end of the history included:
// placed there it has no visible effect, which is how "it may not have
// happened" is checked, Jepsen's way.
type Model[T, S any] struct {
	Init func() S
	Step func(state S, op Op[T]) (bool, S)
	// Equal compares states; nil compares them with == (S must then be
	// comparable).
	Equal func(a, b S) bool
	// Hash, optional, must give equal states equal hashes: the checker
	// then compares fewer states.
	Hash func(S) uint64
	// Partition, optional, names the independent part of the system an
	// operation touches (a key): each part is checked on its own, which
	// is what keeps large histories checkable. nil: one part.
	Partition func(v T) string
	// ReadOnly, optional, says which operations change nothing: one of
	// them with an unknown outcome constrains nothing and is left out.
	ReadOnly func(v T) bool
	// Describe and DescribeState, optional, name an operation and a state
	// in reports and the visualization; nil prints them with %v.
	Describe      func(op Op[T]) string
	DescribeState func(S) string
}

// describe names op with its outcome when it is not OK.
func (m Model[T, S]) describe(op Op[T]) string {
	var s string
	if m.Describe != nil {
		s = m.Describe(op)
	} else {
		s = fmt.Sprintf("%v", op.Value)
	}
	if op.Status != OK {
		s += " (" + op.Status.String() + ")"
	}
	return s
}

func (m Model[T, S]) describeState(s S) string {
	if m.DescribeState != nil {
		return m.DescribeState(s)
	}
	return fmt.Sprintf("%v", s)
}

// check reports whether the model is complete enough to check with.
func (m Model[T, S]) check() error {
	switch {
	case m.Init == nil:
		return fmt.Errorf("model: Init is nil")
	case m.Step == nil:
		return fmt.Errorf("model: Step is nil")
	}
	return nil
}

// porcupine returns the model in porcupine's terms, over one part: inputs
// are the Op[T] values (output is unused), and step is called through
// stepGuard so that the check's budget can stop it.
//
// Porcupine calls Step, Equal and Hash on goroutines of its own, where a
// panic would end the process, not the check: with a guard, a panic of the
// model's code is caught, stops the search, and is the check's error
// (stepGuard.err). Without one (the visualization, on the check's own
// goroutine) it goes up to the check, which arena recovers.
func (m Model[T, S]) porcupine(guard *stepGuard) porcupine.Model {
	pm := porcupine.Model{
		Init: func() any { return m.Init() },
		Step: func(state, input, _ any) (ok bool, next any) {
			if guard != nil {
				if guard.stop() {
					return false, state
				}
				defer guard.catch("Step", func() { ok, next = false, state })
			}
			cur := state.(S)
			ok, n := m.Step(cur, input.(Op[T]))
			if m.Equal != nil && m.Equal(n, cur) {
				return ok, state // the same state: no new box for porcupine to keep
			}
			return ok, n
		},
		DescribeOperation: func(input, _ any) string { return m.describe(input.(Op[T])) },
		DescribeState:     func(s any) string { return m.describeState(s.(S)) },
	}
	if m.Equal != nil {
		pm.Equal = func(a, b any) (eq bool) {
			if guard != nil {
				defer guard.catch("Equal", func() { eq = false })
			}
			return m.Equal(a.(S), b.(S))
		}
	}
	if m.Hash != nil {
		pm.Hash = func(s any) (h uint64) {
			if guard != nil {
				defer guard.catch("Hash", func() { h = 0 })
			}
			return m.Hash(s.(S))
		}
	}
	return pm
}
