package events

import (
	"slices"
	"strings"
)

// Filter selects events for [MemoryStore.Read] and [MemoryStore.Subscribe].
// The zero Filter selects every event.
type Filter struct {
	// Streams lists the streams to select; empty selects all streams.
	Streams []string `json:"streams,omitempty"`
	// Types lists the event types to select; empty selects all types. An
	// entry ending in ".*" selects by prefix: "arena.*" selects
	// "arena.action.executed" but not "arena" or "arenas.x".
	Types []string `json:"types,omitempty"`
	// FromSequence selects only events with Sequence > FromSequence, so a
	// reader resumes by passing the last sequence it saw. For Subscribe it
	// also says where the replay of retained events starts: zero replays
	// everything retained, Stats().Events replays nothing.
	FromSequence uint64 `json:"from_sequence,omitempty"`
}

// Match reports whether f selects e.
func (f Filter) Match(e Event) bool {
	if e.Sequence <= f.FromSequence {
		return false
	}
	if len(f.Streams) > 0 && !slices.Contains(f.Streams, e.Stream) {
		return false
	}
	if len(f.Types) == 0 {
		return true
	}
	for _, pattern := range f.Types {
		if matchType(pattern, e.Type) {
			return true
		}
	}
	return false
}

// matchType matches one Types entry. The prefix keeps its trailing dot so
// "arena.*" does not select "arenas.x".
func matchType(pattern, typ string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok && strings.HasSuffix(prefix, ".") {
		return strings.HasPrefix(typ, prefix)
	}
	return pattern == typ
}

// clone copies the slices so a caller reusing its Filter cannot race with a
// subscription that holds it.
func (f Filter) clone() Filter {
	f.Streams = slices.Clone(f.Streams)
	f.Types = slices.Clone(f.Types)
	return f
}
