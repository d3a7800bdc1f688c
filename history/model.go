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

// The model's functions as the check calls them: through a guard, which
// turns a panic into its error (the function then returns its zero values).

func (m Model[T, S]) init(g *guard) (s S) {
	defer g.catch("Init")
	return m.Init()
}

func (m Model[T, S]) step(g *guard, s S, op Op[T]) (ok bool, next S) {
	defer g.catch("Step")
	return m.Step(s, op)
}

func (m Model[T, S]) equal(g *guard, a, b S) (eq bool) {
	defer g.catch("Equal")
	if m.Equal == nil {
		return any(a) == any(b)
	}
	return m.Equal(a, b)
}

func (m Model[T, S]) hash(g *guard, s S) (h uint64) {
	defer g.catch("Hash")
	return m.Hash(s)
}

func (m Model[T, S]) partition(g *guard, v T) (key string) {
	defer g.catch("Partition")
	return m.Partition(v)
}

func (m Model[T, S]) readOnly(g *guard, v T) (ro bool) {
	defer g.catch("ReadOnly")
	return m.ReadOnly(v)
}

// describe names op with its outcome when it is not OK.
func (m Model[T, S]) describe(g *guard, op Op[T]) (s string) {
	if m.Describe != nil {
		s = m.describeOp(g, op)
	} else {
		s = fmt.Sprintf("%v", op.Value)
	}
	if op.Status != OK {
		s += " (" + op.Status.String() + ")"
	}
	return s
}

func (m Model[T, S]) describeOp(g *guard, op Op[T]) (s string) {
	defer g.catch("Describe")
	return m.Describe(op)
}

func (m Model[T, S]) describeState(g *guard, s S) (d string) {
	if m.DescribeState == nil {
		return fmt.Sprintf("%v", s)
	}
	defer g.catch("DescribeState")
	return m.DescribeState(s)
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

// porcupine returns the model in porcupine's terms, over one part, its
// code called through g (see guard): inputs are *Op[T] (output is unused)
// and states *S, pointers so that the guard can tell porcupine's states
// apart (guard.kept). init is the state the part starts from.
func (m Model[T, S]) porcupine(g *guard, init func() S) porcupine.Model {
	pm := porcupine.Model{
		Init: func() any {
			s := init()
			return &s
		},
		Step: func(state, input, _ any) (bool, any) {
			if g.stop(state) {
				return false, state
			}
			ok, next := m.step(g, *state.(*S), *input.(*Op[T]))
			if !ok {
				return false, state
			}
			g.kept = &next
			return true, g.kept
		},
		Equal:             func(a, b any) bool { return m.equal(g, *a.(*S), *b.(*S)) },
		DescribeOperation: func(input, _ any) string { return m.describe(g, *input.(*Op[T])) },
		DescribeState:     func(s any) string { return m.describeState(g, *s.(*S)) },
	}
	if m.Hash != nil {
		pm.Hash = func(s any) uint64 { return m.hash(g, *s.(*S)) }
	}
	return pm
}
