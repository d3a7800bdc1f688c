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

	"github.com/ares-arena/arena/containers/agentapi"
)

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
