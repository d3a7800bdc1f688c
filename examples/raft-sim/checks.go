package raftsim

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ares-arena/arena"
)

// Checks are the workload's consistency checks, for arena.WithChecks.
func (w *Workload) Checks() []arena.Check {
	return []arena.Check{
		{Name: "no acknowledged write lost", Run: w.CheckNoLostWrites},
		{Name: "reads see every write acknowledged before them", Run: w.CheckReads},
	}
}

// CheckNoLostWrites reads the leader's state, once every entry committed
// before has been applied (a raft barrier), and checks that every append
// acknowledged by then is in it, and that no value is in it twice. It
// reads what the lists gained since the last check, so a check costs what
// is new. It is not applicable while no leader answers.
func (w *Workload) CheckNoLostWrites(ctx context.Context) error {
	leader := w.c.Leader()
	r, kv := w.c.Raft(leader)
	if r == nil {
		return fmt.Errorf("no leader to read from: %w", arena.ErrNotApplicable)
	}
	if err := r.Barrier(5 * time.Second).Error(); err != nil {
		return fmt.Errorf("barrier on %s: %v: %w", leader, err, arena.ErrNotApplicable)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var lost []string
	for name, k := range w.keys {
		vs := kv.ValuesFrom(name, k.seen)
		for _, v := range vs {
			if _, dup := w.seenValues[v]; dup {
				return fmt.Errorf("%s: value %#x appended twice (on %s)", name, v, leader)
			}
			w.seenValues[v] = struct{}{}
			delete(k.pending, v)
		}
		k.seen += len(vs)
		for v := range k.pending {
			lost = append(lost, fmt.Sprintf("%s=%#x", name, v))
		}
	}
	if len(lost) > 0 {
		sort.Strings(lost)
		return fmt.Errorf("%d acknowledged writes lost (not in %s's state): %v", len(lost), leader, lost[:min(len(lost), 5)])
	}
	return nil
}

// CheckReads reports the first read that saw fewer values than the
// appends to its key acknowledged before it was invoked (a stale read, or
// a lost write), or more than those invoked before it returned.
func (w *Workload) CheckReads(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.violated != "" {
		return errors.New(w.violated)
	}
	return nil
}
