package sim

import (
	"context"
	"time"
)

// faultState holds the faults on the world's links. (Filled in with the
// network-fault rules; for now the network is perfect.)
type faultState struct{}

func (f *faultState) init(seed uint64) {}
func (f *faultState) close()           {}

// dial is what the faults do to a dial from → to: a wait, or an error.
func (f *faultState) dial(ctx context.Context, from, to string) error { return ctx.Err() }

// held returns a channel that is closed when the link from → to stops
// holding its bytes, or nil when it does not hold them.
func (w *World) held(from, to string) chan struct{} { return nil }

// deliverAt is when k bytes written now from → to reach the other end.
func (w *World) deliverAt(from, to string, now time.Time, k int) time.Time { return now }
