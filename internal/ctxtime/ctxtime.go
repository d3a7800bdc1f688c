// Package ctxtime is time.Sleep that a context cuts short: the one wait of
// the runtimes (containers, kube), the reference agent (cmd/agentd) and the
// simulator (sim). Its timer runs on the fake clock of a testing/synctest
// bubble too, where such a wait blocks durably.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends: nil when d has passed, ctx's error when
// ctx ended first. A d of zero or less does not wait: Sleep returns ctx's
// error at once (nil while ctx lasts), so a loop that sleeps between tries
// stops with its context however short its waits.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
