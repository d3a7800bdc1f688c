package history

import (
	"fmt"
	"strings"
	"time"
)

// An operation with an unknown outcome may have taken effect at any time
// after its invocation: porcupine leaves it open to the end of the
// history, and tries it at every place there. With a few of them on one
// key a search tries every subset of them at every step: raft-sim's
// appends that timed out (10 to 18 a key in a simulated hour of faults)
// made an hour's check run out of its budget. Most systems bound how late
// a request given up on can still take effect (a raft entry commits by
// the next leader's first commit, or never): WithUnknownHorizon says so,
// and each unknown operation is then closed at that horizon, taking
// effect before it or not at all.

type horizonOption time.Duration

func (h horizonOption) applyCheck(o *checkOptions) { o.horizon = time.Duration(h) }

// WithUnknownHorizon says that an operation whose outcome is unknown (its
// client gave up on it: Call.Unknown) took effect, if it did, at most d
// after it was given up on: between its invocation and d after its
// Return, or never. The check then searches each such operation only in
// that window, as one that either happened or did not, instead of at
// every later point of the history: a long history with many of them is
// checked in a time that grows with the history, not with the subsets of
// its unknown operations.
//
// It is an assumption about the system under test: a history in which an
// operation took effect later than d after it was given up on, and a later
// operation saw it, is reported as a violation whose summary names the
// horizon, where a check without it would pass. A history that keeps to
// the horizon gets the verdict it gets without one. Choose d above the
// longest time the system can take to apply a request it accepted: for
// raft, the longest leaderless stretch the run's faults can cause plus an
// election. Operations still pending when the check runs have no horizon,
// nor do those the recorder made unknown when it was full (both are open
// to the end, as without the option). The memory budget counts a set of
// states as one state. d must be positive.
func WithUnknownHorizon(d time.Duration) CheckOption {
	if d <= 0 {
		panic(fmt.Sprintf("arena: history.WithUnknownHorizon(%s): the horizon must be positive", d))
	}
	return horizonOption(d)
}

// bound closes op, an operation that changes something and that its
// client gave up on, at the check's horizon: answered then, in the check's
// own copy, as one that may not have happened (Op.maybe). One without the
// time it was given up on (the recorder made it unknown when it was full)
// stays open. Without a horizon it does nothing.
func (c *linearizability[T, S]) bound(g *guard, op *Op[T]) {
	if c.opts.horizon > 0 && op.Status == Unknown && op.Return > 0 && op.Return >= op.Call && c.live(g, op) {
		op.Status, op.Return, op.maybe = OK, op.Return+c.opts.horizon, true
	}
}

// states is what a check under a horizon takes for a state: every state
// the model may be in, distinct, after operations some of which may not
// have happened.
type states[S any] []S

// maybeModel is m over sets of states: an operation closed at its horizon
// (Op.maybe) leads from each state to the one it gives as an unknown
// outcome (m's Step sees it Unknown: its output means nothing) and to the
// state itself (it did not happen); any other operation leads from each
// state to the one it gives, and fails where it fails from every state.
func maybeModel[T, S any](m Model[T, S], horizon time.Duration) Model[T, states[S]] {
	eq := m.Equal
	if eq == nil {
		eq = func(a, b S) bool { return any(a) == any(b) }
	}
	has := func(set states[S], s S) bool {
		for _, x := range set {
			if eq(x, s) {
				return true
			}
		}
		return false
	}
	add := func(set states[S], s S) states[S] {
		if has(set, s) {
			return set
		}
		return append(set, s)
	}
	w := Model[T, states[S]]{
		Init: func() states[S] { return states[S]{m.Init()} },
		Step: func(set states[S], op Op[T]) (bool, states[S]) {
			next := make(states[S], 0, len(set)+1)
			as := op
			if op.maybe {
				as.Status = Unknown
			}
			for _, s := range set {
				if ok, n := m.Step(s, as); ok {
					next = add(next, n)
				}
				if op.maybe {
					next = add(next, s)
				}
			}
			return len(next) > 0, next
		},
		Equal: func(a, b states[S]) bool {
			if len(a) != len(b) {
				return false
			}
			for _, s := range a {
				if !has(b, s) {
					return false
				}
			}
			return true
		},
		Partition: m.Partition,
		ReadOnly:  m.ReadOnly,
		Describe: func(op Op[T]) string {
			as := op
			if op.maybe {
				as.Status, as.Return = Unknown, op.Return-horizon
			}
			s := fmt.Sprintf("%v", op.Value)
			if m.Describe != nil {
				s = m.Describe(as)
			}
			if op.maybe {
				s += fmt.Sprintf(" (unknown: took effect by %s after it was given up on, or never)", horizon)
			}
			return s
		},
		DescribeState: func(set states[S]) string {
			d := make([]string, len(set))
			for i, s := range set {
				if m.DescribeState != nil {
					d[i] = m.DescribeState(s)
				} else {
					d[i] = fmt.Sprintf("%v", s)
				}
			}
			if len(d) == 1 {
				return d[0]
			}
			return "one of " + strings.Join(d, ", ")
		},
	}
	if m.Hash != nil {
		// A sum: the same for the same states in any order.
		w.Hash = func(set states[S]) uint64 {
			var h uint64
			for _, s := range set {
				h += m.Hash(s)
			}
			return h
		}
	}
	return w
}
