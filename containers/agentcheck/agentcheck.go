// Package agentcheck holds the consistency checks over the agents' GET
// /state (package agentapi) that every runtime of agentapi agents shares:
// the containers and the Kubernetes runtimes read the states their own way
// and hand them here.
package agentcheck

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/fault"
)

// ErrSkip is what a runtime's read of an agent's state returns for an
// agent that cannot answer by design (paused, partitioned, killed, not
// Ready): States leaves it out, and counts it.
var ErrSkip = errors.New("agent out of reach by design")

// States reads the state of every agent of ids that can answer, in
// parallel, with read. Agents read skips (ErrSkip) or that do not serve
// GET /state (fault.ErrUnsupported) are left out; other errors are
// joined. When none could be read and none failed, the error wraps
// fault.ErrNotApplicable: the checks had nothing to look at.
func States(ctx context.Context, ids []string, read func(ctx context.Context, id string) (agentapi.State, error)) (map[string]agentapi.State, error) {
	out := map[string]agentapi.State{}
	var mu sync.Mutex
	var errs []error
	unsupported, skipped := 0, 0
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			st, err := read(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, ErrSkip):
				skipped++
			case errors.Is(err, fault.ErrUnsupported):
				unsupported++
			case err != nil:
				errs = append(errs, err)
			default:
				out[id] = st
			}
		})
	}
	wg.Wait()
	if len(errs) == 0 && len(out) == 0 {
		return nil, fmt.Errorf("%w: no agent's state was read (%d of %d agents do not serve GET %s, %d out of reach)",
			fault.ErrNotApplicable, unsupported, len(ids), agentapi.PathState, skipped)
	}
	return out, errors.Join(errs...)
}

// Tasks checks that no task was lost: every task an agent handed on is in
// the ledger of the agent it was handed to. Agents missing from sts (out of
// reach) are not verified this time. reread, when not nil, reads a receiver
// again after its senders (it may have been read before their last
// hand-offs).
func Tasks(ctx context.Context, sts map[string]agentapi.State, reread func(ctx context.Context, id string) (agentapi.State, error)) error {
	missing := func(ids []string, st agentapi.State) []string {
		have := make(map[string]bool, len(st.Ledger.Accepted))
		for _, id := range st.Ledger.Accepted {
			have[id] = true
		}
		var out []string
		for _, id := range ids {
			if !have[id] {
				out = append(out, id)
			}
		}
		return out
	}
	var lost []string
	for _, from := range slices.Sorted(maps.Keys(sts)) {
		for _, to := range slices.Sorted(maps.Keys(sts[from].Ledger.Handed)) {
			st, ok := sts[to]
			if !ok {
				continue // out of reach: not verified this time
			}
			m := missing(sts[from].Ledger.Handed[to], st)
			if len(m) > 0 && reread != nil {
				if again, err := reread(ctx, to); err == nil {
					m = missing(m, again)
				}
			}
			for _, id := range m {
				lost = append(lost, fmt.Sprintf("%s (%s->%s)", id, from, to))
			}
		}
	}
	if len(lost) > 0 {
		show := lost[:min(len(lost), 5)]
		return fmt.Errorf("%d tasks lost: handed on but not in the receiver's ledger: %s", len(lost), strings.Join(show, ", "))
	}
	return nil
}

// Memory checks that every agent's memory matches its checksum, and that
// its last checkpoint reads back intact.
func Memory(sts map[string]agentapi.State) error {
	var bad []string
	for _, id := range slices.Sorted(maps.Keys(sts)) {
		m := sts[id].Memory
		switch {
		case !m.OK:
			bad = append(bad, id+": memory does not match its checksum")
		case !m.CheckpointOK && !m.CheckpointAt.IsZero():
			bad = append(bad, id+": checkpoint unreadable or corrupt")
		}
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}
