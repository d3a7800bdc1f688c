package events

import "fmt"

// Defaults used by [NewMemoryStore] when no option overrides them.
const (
	// DefaultRetention is enough for a long scenario (a few hundred actions
	// per minute for hours) at a few tens of MB.
	DefaultRetention = 100_000
	// DefaultRetentionBytes bounds the retained events by size too (as
	// [WithRetentionBytes] counts it), so that large payloads cannot make
	// the default store grow past a few tens of MB.
	DefaultRetentionBytes = 24 << 20
	// DefaultSubscriberBuffer lets a subscriber fall a burst behind (one
	// tick of a busy scenario) before it is dropped.
	DefaultSubscriberBuffer = 256
)

// Option configures a [MemoryStore]. Options are plain values, so tests can
// compare them.
type Option interface{ apply(*options) }

type options struct {
	retention        int
	retentionBytes   int64
	subscriberBuffer int
}

type retentionOption int

func (o retentionOption) apply(opts *options) { opts.retention = int(o) }

// WithRetention keeps at most the last n events in memory, store-wide. Older
// events are dropped; versions and sequences keep counting. It panics if n is
// not positive.
func WithRetention(n int) Option {
	if n <= 0 {
		panic(fmt.Sprintf("arena: events.WithRetention(%d): retention must be positive", n))
	}
	return retentionOption(n)
}

type retentionBytesOption int64

func (o retentionBytesOption) apply(opts *options) { opts.retentionBytes = int64(o) }

// WithRetentionBytes bounds the retained events by size (default
// [DefaultRetentionBytes]): older events are dropped while the retained ones
// take more than n bytes (each counted as the Event value plus its ID,
// stream, type, payload and metadata strings). The newest event is always
// kept. Count ([WithRetention]) and size both apply; the tighter one wins.
// It panics if n is not positive.
func WithRetentionBytes(n int64) Option {
	if n <= 0 {
		panic(fmt.Sprintf("arena: events.WithRetentionBytes(%d): retention must be positive", n))
	}
	return retentionBytesOption(n)
}

type subscriberBufferOption int

func (o subscriberBufferOption) apply(opts *options) { opts.subscriberBuffer = int(o) }

// WithSubscriberBuffer sets how many events each subscription's channel
// buffers. A subscriber more than n events behind is dropped, because Append
// never waits for it. It panics if n is not positive.
func WithSubscriberBuffer(n int) Option {
	if n <= 0 {
		panic(fmt.Sprintf("arena: events.WithSubscriberBuffer(%d): buffer must be positive", n))
	}
	return subscriberBufferOption(n)
}
