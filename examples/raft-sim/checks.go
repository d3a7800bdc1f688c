package raftsim

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/history"
)

// Checks are the workload's own consistency checks, for engine.WithChecks:
// each costs what happened since the last one, so they can run after every
// fault of a simulated day.
func (w *Workload) Checks() []fault.Check {
	return []fault.Check{
		{Name: "no acknowledged write lost", Run: w.CheckNoLostWrites},
		{Name: "reads see every write acknowledged before them", Run: w.CheckReads},
	}
}

// HistoryChecks are package history's checks of the recorded history (the
// first WorkloadConfig.History operations): each key's list is a
// linearizable append-only log (history.LogModel: appends at the next
// place, reads that see every append acknowledged before them), and no
// acknowledged append is missing from the leader's state, nor in it twice.
// They read the whole history each time: for runs of minutes.
func (w *Workload) HistoryChecks() []fault.Check {
	return []fault.Check{
		history.Linearizable("linearizable lists (history)", w.rec, history.LogModel()),
		history.NoLostWrites("no acknowledged write lost (history)", w.rec, w.readAll),
		history.NoDuplicates("no write applied twice (history)", w.rec, w.readAll),
	}
}

// readAll is history's Reader: every list of the leader's state, once it
// has applied everything committed before (a raft barrier).
func (w *Workload) readAll(ctx context.Context) ([]history.Message, error) {
	leader := w.c.Leader()
	r, kv := w.c.Raft(leader)
	if r == nil {
		return nil, fmt.Errorf("no leader to read from: %w", fault.ErrNotApplicable)
	}
	if err := r.Barrier(5 * time.Second).Error(); err != nil {
		return nil, fmt.Errorf("barrier on %s: %v: %w", leader, err, fault.ErrNotApplicable)
	}
	var msgs []history.Message
	for _, key := range kv.Keys() {
		for i, v := range kv.Values(key) {
			msgs = append(msgs, history.Message{Key: key, Seq: int64(i + 1), Value: int64(v)})
		}
	}
	return msgs, nil
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
		return fmt.Errorf("no leader to read from: %w", fault.ErrNotApplicable)
	}
	if err := r.Barrier(5 * time.Second).Error(); err != nil {
		return fmt.Errorf("barrier on %s: %v: %w", leader, err, fault.ErrNotApplicable)
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
