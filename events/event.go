package events

import (
	"encoding/json"
	"time"
)

// Event is one fact recorded by the store. Once appended it is immutable: the
// store owns Data and Metadata from the moment [MemoryStore.Append] is
// called (it keeps them without copying), and readers must treat the events
// they receive as read-only because they share those with the store.
type Event struct {
	// ID identifies the event. When empty the store fills it with
	// "<stream>-<version>", which no other store-assigned ID can repeat.
	ID string `json:"id"`
	// Stream is the stream the event was appended to; the store sets it.
	Stream string `json:"stream"`
	// Type names what happened, dot-separated from general to specific
	// ("arena.action.executed") so filters can select by prefix.
	Type string `json:"type"`
	// Version is the event's position within its stream, 1-based, assigned
	// by the store.
	Version uint64 `json:"version"`
	// Sequence is the event's position across all streams, 1-based,
	// assigned by the store. It is the order every reader sees, which is
	// the order appends committed, not the order of Time.
	Sequence uint64 `json:"sequence"`
	// Time is when the event happened by the caller's clock. The store
	// keeps it as given, zero included, and never reads the wall clock.
	Time time.Time `json:"time"`
	// Data is the event's payload.
	Data json.RawMessage `json:"data,omitempty"`
	// Metadata carries small annotations (run ID, seed, actor).
	Metadata map[string]string `json:"metadata,omitempty"`
}
