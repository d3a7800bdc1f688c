package ctxtime_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/ares-arena/arena/internal/ctxtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSleep: on a synctest bubble's clock, Sleep returns when d has passed
// or when the context ends, whichever is first, with what ended it; a d of
// zero or less returns at once.
func TestSleep(t *testing.T) {
	for _, tt := range []struct {
		name   string
		d      time.Duration
		cancel time.Duration // cancel the context after this (0: never)
		limit  time.Duration // the context's deadline after this (0: none)
		dead   bool          // the context has ended before the call
		want   error
		waited time.Duration
	}{
		{name: "d passes", d: 3 * time.Second, want: nil, waited: 3 * time.Second},
		{name: "cancelled first", d: 3 * time.Second, cancel: time.Second, want: context.Canceled, waited: time.Second},
		{name: "deadline first", d: 3 * time.Second, limit: 2 * time.Second, want: context.DeadlineExceeded, waited: 2 * time.Second},
		{name: "d passes before the deadline", d: time.Second, limit: 2 * time.Second, want: nil, waited: time.Second},
		{name: "zero", d: 0, want: nil},
		{name: "negative", d: -time.Second, want: nil},
		{name: "zero, context ended", d: 0, dead: true, want: context.Canceled},
		{name: "context ended before", d: time.Second, dead: true, want: context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tt.limit > 0 {
					var stop context.CancelFunc
					ctx, stop = context.WithTimeout(ctx, tt.limit)
					defer stop()
				}
				if tt.cancel > 0 {
					time.AfterFunc(tt.cancel, cancel)
				}
				if tt.dead {
					cancel()
				}
				start := time.Now()
				err := ctxtime.Sleep(ctx, tt.d)
				if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
					t.Errorf("Sleep(%s) = %v, want %v", tt.d, err, tt.want)
				}
				if got := time.Since(start); got != tt.waited {
					t.Errorf("Sleep(%s) waited %s, want %s", tt.d, got, tt.waited)
				}
			})
		})
	}
}
