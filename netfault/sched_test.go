package netfault

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/clock"
)

// bubbleEpoch is where a testing/synctest bubble's clock starts.
var bubbleEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// simulated runs f in a synctest bubble on a fresh network of opts, closed
// when f returns: the network's waits are the bubble's timers.
func simulated(t *testing.T, f func(t *testing.T, n *Network), opts ...Option) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		n := New(clock.Real{}, opts...)
		defer n.Close()
		f(t, n)
	})
}

// at is the offset of the network's time from the bubble's start.
func at(n *Network) time.Duration { return n.Now().Sub(bubbleEpoch) }

// netfault waits on timers: a VirtualClock, which moves no timer, is
// refused at New with the cause and the fix.
func TestNewRefusesAVirtualClock(t *testing.T) {
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "arena: netfault.New: a *clock.Virtual") || !strings.Contains(msg, "arenatest.Simulate") {
			t.Errorf("New(VirtualClock) panicked with %q, want the cause and the fix", msg)
		}
	}()
	New(clock.NewVirtual(time.Time{}))
	t.Error("New(VirtualClock) returned")
}

// In a bubble the waits are simulated: a context's deadline ends a Sleep
// at its simulated instant, and Close ends the ones under way.
func TestSleepDeadlineAndClose(t *testing.T) {
	simulated(t, func(t *testing.T, n *Network) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if err := n.Sleep(ctx, time.Second); !errors.Is(err, context.DeadlineExceeded) || at(n) != 100*time.Millisecond {
			t.Errorf("Sleep(1s) with a 100ms deadline = %v at %s, want DeadlineExceeded at 100ms", err, at(n))
		}
		if err := n.Sleep(ctx, time.Millisecond); !errors.Is(err, context.DeadlineExceeded) || at(n) != 100*time.Millisecond {
			t.Errorf("Sleep past the deadline = %v at %s, want DeadlineExceeded at once", err, at(n))
		}
		done := make(chan error)
		go func() { done <- n.Sleep(context.Background(), time.Hour) }()
		time.Sleep(time.Minute)
		n.Close()
		if err := <-done; !errors.Is(err, ErrClosed) || at(n) != time.Minute+100*time.Millisecond {
			t.Errorf("Sleep at Close = %v at %s, want ErrClosed at 1m0.1s", err, at(n))
		}
		if err := n.Sleep(context.Background(), time.Second); !errors.Is(err, ErrClosed) {
			t.Errorf("Sleep after Close = %v, want ErrClosed", err)
		}
	})
}

func TestRealTime(t *testing.T) {
	n := New(nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if err := n.Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Sleep past a deadline = %v, want DeadlineExceeded", err)
	}
	done := make(chan error, 1)
	go func() { done <- n.Sleep(context.Background(), time.Hour) }()
	n.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Sleep at Close = %v, want ErrClosed", err)
	}
}

// In real time the wrappers work on plain goroutines: a reset fails the
// call without reaching the server, and its lift lets calls through.
func TestTransportInRealTime(t *testing.T) {
	n := New(clock.Real{}, WithAgent("client", "client"), WithAgent("api", "service"))
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
