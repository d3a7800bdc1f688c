package netfault

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/ares-arena/arena"
	"github.com/google/go-cmp/cmp"
)

func virtual(t *testing.T, opts ...Option) (*Network, *arena.VirtualClock) {
	t.Helper()
	clock := arena.NewVirtualClock(time.Time{})
	n := New(clock, opts...)
	t.Cleanup(n.Close)
	return n, clock
}

// at is the offset of the network's time from the epoch.
func at(n *Network) time.Duration { return n.Now().Sub(arena.VirtualEpoch) }

// Simulated goroutines run one at a time at their virtual instants, in
// (time, start order) order, and only as far as the clock has moved.
func TestSimulatedGoroutines(t *testing.T) {
	n, clock := virtual(t)
	var log []string
	for _, name := range []string{"a", "b"} {
		n.Go(func(ctx context.Context) {
			for i := range 3 {
				log = append(log, fmt.Sprintf("%s%d@%s", name, i, at(n)))
				if err := n.Sleep(ctx, 150*time.Millisecond); err != nil {
					return
				}
			}
			log = append(log, name+" done@"+at(n).String())
		})
	}
	n.Advance()
	if want := []string{"a0@0s", "b0@0s"}; !cmp.Equal(want, log) {
		t.Fatalf("at 0: %q, want %q", log, want)
	}
	clock.Advance(200 * time.Millisecond)
	n.Advance()
	clock.Advance(time.Second)
	n.Advance()
	want := []string{"a0@0s", "b0@0s", "a1@150ms", "b1@150ms", "a2@300ms", "b2@300ms", "a done@450ms", "b done@450ms"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if got := at(n); got != 1200*time.Millisecond {
		t.Errorf("Now() = %s after the goroutines, want the clock's 1.2s", got)
	}
}

func TestSleepDeadlineAndClose(t *testing.T) {
	n, clock := virtual(t)
	var errs []string
	n.Go(func(ctx context.Context) {
		tctx, cancel := n.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		err := n.Sleep(tctx, time.Second)
		errs = append(errs, fmt.Sprintf("%v@%s deadline=%v", err, at(n), errors.Is(err, context.DeadlineExceeded)))
		err = n.Sleep(tctx, time.Millisecond) // past the deadline: at once
		errs = append(errs, fmt.Sprintf("%v@%s", err, at(n)))
		err = n.Sleep(ctx, time.Hour) // Close ends it
		errs = append(errs, fmt.Sprintf("%v", err))
	})
	clock.Advance(time.Second)
	n.Advance()
	n.Close()
	want := []string{"context deadline exceeded@100ms deadline=true", "context deadline exceeded@100ms", ErrClosed.Error()}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	n.Go(func(context.Context) { t.Error("a goroutine started after Close ran") })
	n.Advance()
}

func TestSleepOutsideASimulatedGoroutine(t *testing.T) {
	n, _ := virtual(t)
	if err := n.Sleep(context.Background(), time.Second); !errors.Is(err, ErrNotSimulated) {
		t.Errorf("Sleep from the test goroutine = %v, want ErrNotSimulated", err)
	}
	if err := n.Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v, want nil: nothing to wait for", err)
	}
}

func TestRealTime(t *testing.T) {
	n := New(arena.RealClock{})
	done := make(chan error, 1)
	n.Go(func(ctx context.Context) {
		tctx, cancel := n.WithTimeout(ctx, time.Millisecond)
		defer cancel()
		done <- n.Sleep(tctx, time.Hour)
	})
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Sleep past a deadline = %v, want DeadlineExceeded", err)
	}
	n.Go(func(ctx context.Context) { done <- n.Sleep(ctx, time.Hour) })
	n.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Sleep at Close = %v, want ErrClosed", err)
	}
}

// In real time the wrappers work on plain goroutines: a reset fails the
// call without reaching the server, and its lift lets calls through.
func TestTransportInRealTime(t *testing.T) {
	n := New(arena.RealClock{}, WithAgent("client", "client"), WithAgent("api", "service"))
	defer n.Close()
	served := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served++ })
	c := &http.Client{Transport: n.Transport("client", HandlerTransport(h))}
	ctx := context.Background()
	lift, err := n.ResetConnections(ctx, "api", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get("http://api/x"); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("Get under a reset = %v, want ECONNRESET", err)
	}
	if err := lift(ctx); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get("http://api/x")
	if err != nil {
		t.Fatalf("Get after the lift = %v", err)
	}
	resp.Body.Close()
	if served != 1 {
		t.Errorf("served %d requests, want 1", served)
	}
}
