// Package events is the embedded event store of the arena: every action a
// scenario executes, every fault it injects and every observation it makes is
// appended here, and reports, graders and live dashboards read it back.
//
// # Streams, versions and sequences
//
// Events belong to named streams ("arena", "agent/planner", …). Each event
// carries two counters, both assigned by the store:
//
//   - Version counts events within one stream (1, 2, 3, …). Writers use it for
//     optimistic concurrency: [MemoryStore.Append] takes the version the writer
//     last saw and fails with [ErrConflict] if someone else wrote since.
//   - Sequence counts events across the whole store. It is the one total order
//     that every reader sees: the order in which appends committed.
//
// Append takes ownership of the events' Data and Metadata: the store keeps
// them without copying, so a writer encodes each payload afresh and does not
// touch it after the call.
//
// Event.Time is stored exactly as the caller gave it. Callers stamp events
// from the run's (usually virtual) clock; the store never reads the wall
// clock, so a replayed seeded run produces byte-identical events.
//
// # Subscriptions
//
// [MemoryStore.Subscribe] delivers matching events into a buffered channel in
// Sequence order. Append never waits for a subscriber: delivery is a
// non-blocking send made while the append holds the store lock, and a
// subscriber whose buffer is full is dropped on the spot. Its channel is
// closed and [Subscription.Err] wraps [ErrLagged]; the subscriber resumes by
// subscribing again with Filter.FromSequence set to
// [Subscription.LastSequence], which replays what it missed from the
// retained events without gaps or duplicates.
//
// # Retention
//
// The store keeps at most the last [WithRetention] events in memory (default
// [DefaultRetention]) in a ring, and at most [WithRetentionBytes] bytes of
// them (default [DefaultRetentionBytes]), so a long run uses bounded memory. Dropping
// old events never resets versions or sequences; [MemoryStore.Stats] reports
// how many were dropped. Retained events always form one contiguous range of
// sequences, Stats().Dropped+1 through Stats().Events, so a reader that asks
// for events after a sequence older than that range can tell it lost some.
//
// # API
//
// Writing and reading:
//
//   - [NewMemoryStore] with [WithRetention], [WithRetentionBytes] and [WithSubscriberBuffer]
//   - [MemoryStore.Append], [AnyVersion], [ErrConflict], [ConflictError]
//   - [MemoryStore.StreamVersion], [MemoryStore.Read], [MemoryStore.Stats]
//   - [MemoryStore.Close], [ErrClosed]
//
// Selecting events: [Filter] and [Filter.Match].
//
// Following the store live:
//
//   - [MemoryStore.Subscribe] returns a [Subscription]
//   - [Subscription.C], [Subscription.Err], [Subscription.LastSequence],
//     [Subscription.Close], [ErrLagged]
package events
