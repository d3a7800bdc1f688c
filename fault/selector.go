package fault

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
)

// Target selectors: what target_id (and, for an edge, source_id) may say
// instead of an ID, so that one scenario runs on any system. Each picks
// with the run's seed among the eligible targets (Spec.LandsOn), sorted by
// ID, and the Result records the ID it chose.
//
//	any         any agent (a DAG node, an edge's end)
//	random      the same as any (its first name)
//	type:<t>    an agent of type t: type:leader, type:worker
//	not:<t>     an agent of any other type: not:leader is anyone but the leader
//
// Types are what the runtime lists, with live roles (WithRoles): on a Raft
// system the leader is type:leader and not:leader its followers, on the
// fake cluster not:leader is the orchestrator or a worker. A selector never
// picks an agent on which arena landed a fault of the same type that it has
// not lifted yet while another fits: two partitions of not:leader cut two
// agents off, not one twice.
const (
	SelectAny    = "any"
	SelectRandom = "random"
	SelectType   = "type:"
	SelectNot    = "not:"
)

// selector is a parsed selector of agents.
type selector struct {
	typ string // "" with any
	not bool   // every type but typ
}

// parseSelector parses an agent selector; ok is false for an ID.
func parseSelector(id string) (s selector, ok bool) {
	if id == SelectAny || id == SelectRandom {
		return selector{}, true
	}
	if t, ok := strings.CutPrefix(id, SelectType); ok {
		return selector{typ: t}, true
	}
	if t, ok := strings.CutPrefix(id, SelectNot); ok {
		return selector{typ: t, not: true}, true
	}
	return selector{}, false
}

// anyID reports whether id is the selector of any node or edge end.
func anyID(id string) bool { return id == SelectAny || id == SelectRandom }

// IsSelector reports whether target is a selector (any, random, type:<t>,
// not:<t>) rather than an agent's ID.
func IsSelector(target string) bool { _, ok := parseSelector(target); return ok }

// matches reports whether an agent of type typ fits the selector.
func (s selector) matches(typ string) bool {
	return s.typ == "" || (typ == s.typ) != s.not
}

// busyKey is a fault type on one target.
type busyKey struct {
	typ    Type
	target string
}

// busyFaults counts, by type and target, the liftable faults the injector
// landed whose Lift has not run: selectors pick other agents while there
// are some (see the selectors above).
type busyFaults struct {
	mu sync.Mutex
	m  map[busyKey]int
}

// landed counts a landed fault and returns its lift, which uncounts it the
// first time it succeeds: until then the fault holds.
func (b *busyFaults) landed(a Action, lift Lift) Lift {
	if lift == nil || a.TargetID == "" || a.SourceID != "" {
		return lift
	}
	k := busyKey{a.Type, a.TargetID}
	b.mu.Lock()
	if b.m == nil {
		b.m = map[busyKey]int{}
	}
	b.m[k]++
	b.mu.Unlock()
	var lifted atomic.Bool
	return func(ctx context.Context) error {
		if err := lift(ctx); err != nil {
			return err // the fault holds: its target stays busy
		}
		if lifted.CompareAndSwap(false, true) {
			b.mu.Lock()
			if b.m[k]--; b.m[k] <= 0 {
				delete(b.m, k)
			}
			b.mu.Unlock()
		}
		return nil
	}
}

// holds reports whether a fault of type t that arena landed on target is
// still unlifted.
func (b *busyFaults) holds(t Type, target string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.m[busyKey{t, target}] > 0
}
