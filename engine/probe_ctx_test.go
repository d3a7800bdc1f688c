package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

type ctxKey struct{}

// lazyDeadline behaves as context.WithDeadline: the same Deadline, Err,
// Done, Value and Cause, whether or not Done was asked for before the end.
func TestLazyDeadline(t *testing.T) {
	bg := context.WithValue(context.Background(), ctxKey{}, "v")

	t.Run("live", func(t *testing.T) {
		c := newLazyDeadline(bg, time.Hour)
		if d, ok := c.Deadline(); !ok || time.Until(d) < 59*time.Minute {
			t.Fatalf("deadline %v %v, want about an hour from now", d, ok)
		}
		if err := c.Err(); err != nil {
			t.Fatalf("err %v before the deadline", err)
		}
		if v := c.Value(ctxKey{}); v != "v" {
			t.Fatalf("value %v, want the parent's", v)
		}
		c.release()
		if err := c.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v after release, want Canceled", err)
		}
		select {
		case <-c.Done():
		default:
			t.Fatal("Done asked for after release is not closed")
		}
	})

	t.Run("deadline passed, Done never asked for", func(t *testing.T) {
		c := newLazyDeadline(bg, time.Nanosecond)
		time.Sleep(time.Millisecond)
		if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want DeadlineExceeded", err)
		}
		if err := context.Cause(c); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cause %v, want DeadlineExceeded", err)
		}
		c.release()
		if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v after release, want DeadlineExceeded (the first error stays)", err)
		}
	})

	t.Run("Done closes at the deadline", func(t *testing.T) {
		c := newLazyDeadline(bg, 5*time.Millisecond)
		defer c.release()
		<-c.Done()
		if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want DeadlineExceeded", err)
		}
		if v := c.Value(ctxKey{}); v != "v" {
			t.Fatalf("value %v, want the parent's", v)
		}
	})

	t.Run("parent cancelled", func(t *testing.T) {
		parent, cancel := context.WithCancelCause(bg)
		c := newLazyDeadline(parent, time.Hour)
		defer c.release()
		child, stop := context.WithCancel(c) // asks for Done
		defer stop()
		why := errors.New("why")
		cancel(why)
		<-child.Done()
		if err := c.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want Canceled", err)
		}
		if err := context.Cause(c); err != why {
			t.Fatalf("cause %v, want the parent's", err)
		}
	})

	t.Run("parent cancelled, Done never asked for", func(t *testing.T) {
		parent, cancel := context.WithCancel(bg)
		c := newLazyDeadline(parent, time.Hour)
		cancel()
		if err := c.Err(); !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want Canceled", err)
		}
		c.release()
	})

	t.Run("earlier parent deadline", func(t *testing.T) {
		parent, cancel := context.WithTimeout(bg, time.Minute)
		defer cancel()
		c := newLazyDeadline(parent, time.Hour)
		defer c.release()
		want, _ := parent.Deadline()
		if d, _ := c.Deadline(); !d.Equal(want) {
			t.Fatalf("deadline %v, want the parent's %v", d, want)
		}
	})
}
