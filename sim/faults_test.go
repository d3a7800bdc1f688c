package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/fault"
)

// echoWorld is a world of a client node "a" and an echo server on node
// "b", port 7.
func echoWorld(t *testing.T) *World {
	t.Helper()
	w := New(WithSeed(3))
	t.Cleanup(func() { w.Close(context.Background()) })
	w.AddNode("a", NodeConfig{})
	_, err := w.AddNode("b", NodeConfig{Start: func(ctx context.Context, n *Node) error {
		l, err := n.Listen(":7")
		if err != nil {
			return err
		}
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				go func() { io.Copy(c, c); c.Close() }()
			}
		}()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// exchange dials b from a and echoes each message, logging when each
// step ended, in simulated time from the dial.
func exchange(w *World, msgs ...string) string {
	start := time.Now()
	at := func() time.Duration { return time.Since(start) }
	c, err := w.Node("a").DialContext(context.Background(), "tcp", "b:7")
	if err != nil {
		return fmt.Sprintf("dial %v@%s", errName(err), at())
	}
	defer c.Close()
	log := []string{"dialed@" + at().String()}
	for _, m := range msgs {
		if _, err := c.Write([]byte(m)); err != nil {
			return strings.Join(append(log, fmt.Sprintf("write %v@%s", errName(err), at())), ", ")
		}
		buf := make([]byte, len(m))
		if _, err := io.ReadFull(c, buf); err != nil {
			return strings.Join(append(log, fmt.Sprintf("read %v@%s", errName(err), at())), ", ")
		}
		log = append(log, fmt.Sprintf("%dB@%s", len(m), at()))
	}
	return strings.Join(log, ", ")
}

func errName(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNRESET):
		return "reset"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	}
	return err.Error()
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		fault func(w *World) error
		msgs  []string
		want  string
	}{
		{"none", func(*World) error { return nil }, []string{"ping", "pong"}, "dialed@0s, 4B@0s, 4B@0s"},
		{"latency both ways on the server: half each way, a round trip to dial",
			func(w *World) error {
				return errOf(w.InjectLatency(ctx, "b", fault.Latency{Latency: 200 * time.Millisecond}))
			},
			[]string{"ping", "pong"}, "dialed@200ms, 4B@400ms, 4B@600ms"},
		{"the client's outbound latency slows its requests only",
			func(w *World) error {
				return errOf(w.InjectLatency(ctx, "a", fault.Latency{Latency: 300 * time.Millisecond, Direction: fault.DirectionOutbound}))
			},
			[]string{"ping"}, "dialed@300ms, 4B@600ms"},
		{"latency to another peer: none here",
			func(w *World) error {
				return errOf(w.InjectLatency(ctx, "b", fault.Latency{Latency: time.Second, Peer: "b"}))
			},
			[]string{"ping"}, "dialed@0s, 4B@0s"},
		{"bandwidth: 500 B each way at 1000 B/s",
			func(w *World) error { return errOf(w.LimitBandwidth(ctx, "a", 1000)) },
			[]string{strings.Repeat("x", 500)}, "dialed@0s, 500B@1s"},
		{"reset at once: the dial fails",
			func(w *World) error { return errOf(w.ResetConnections(ctx, "b", 0)) },
			[]string{"ping"}, "dial reset@0s"},
		{"partition: the dial is refused",
			func(w *World) error { return errOf(w.PartitionNetwork(ctx, "b")) },
			[]string{"ping"}, "dial refused@0s"},
		{"reset after 300ms: the second exchange",
			func(w *World) error {
				if _, err := w.InjectLatency(ctx, "b", fault.Latency{Latency: 100 * time.Millisecond}); err != nil {
					return err
				}
				return errOf(w.ResetConnections(ctx, "b", 250*time.Millisecond))
			},
			// open from the end of the dial, 100ms: reset at 350ms
			[]string{"ping", "pong", "again"}, "dialed@100ms, 4B@200ms, 4B@300ms, read reset@350ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := echoWorld(t)
				if err := tc.fault(w); err != nil {
					t.Fatal(err)
				}
				if got := exchange(w, tc.msgs...); got != tc.want {
					t.Errorf("exchange = %q, want %q", got, tc.want)
				}
			})
		})
	}
}

// A partition cuts the open connections and refuses dials until its lift;
// a pause holds the bytes until its lift, then delivers them all.
func TestPartitionAndPauseLift(t *testing.T) {
	ctx := context.Background()
	synctest.Test(t, func(t *testing.T) {
		w := echoWorld(t)
		c, err := w.Node("a").DialContext(ctx, "tcp", "b:7")
		if err != nil {
			t.Fatal(err)
		}
		lift, err := w.PartitionNetwork(ctx, "b")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("Read across the new partition = %v, want ECONNRESET", err)
		}
		for range 2 { // lifting twice changes nothing
			if err := lift(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if got := exchange(w, "x"); got != "dialed@0s, 1B@0s" {
			t.Errorf("after the lift: %q", got)
		}

		c, err = w.Node("a").DialContext(ctx, "tcp", "b:7")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := w.PauseAgent(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		if agents, _ := w.ListAgents(ctx); agents[1].Status != fault.StatusPaused {
			t.Errorf("ListAgents: b is %s, want paused", agents[1].Status)
		}
		go func() {
			time.Sleep(5 * time.Second)
			w.ResumeAgent(ctx, "b")
		}()
		start := time.Now()
		c.Write([]byte("held"))
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "held" || time.Since(start) != 5*time.Second {
			t.Errorf("echo across a pause = %q, %v after %s; want it at the resume, 5s", buf, err, time.Since(start))
		}
	})
}

// Jitter is drawn from the world's seed: the same seed, the same delays.
func TestJitterFollowsTheSeed(t *testing.T) {
	delays := func(seed uint64) (out []time.Duration) {
		synctest.Test(t, func(t *testing.T) {
			w := New(WithSeed(seed))
			defer w.Close(context.Background())
			w.AddNode("a", NodeConfig{})
			w.AddNode("b", NodeConfig{})
			if _, err := w.InjectLatency(context.Background(), "b", fault.Latency{Latency: 100 * time.Millisecond, Jitter: 50 * time.Millisecond}); err != nil {
				t.Fatal(err)
			}
			for range 5 {
				start := time.Now()
				if err := w.Wait(context.Background(), "a", "b", 10); err != nil {
					t.Fatal(err)
				}
				out = append(out, time.Since(start))
			}
		})
		return out
	}
	a, b, c := delays(1), delays(1), delays(2)
	if fmt.Sprint(a) != fmt.Sprint(b) || fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("delays: seed 1 %v and %v, seed 2 %v; want the same for one seed, others for another", a, b, c)
	}
	for _, d := range a {
		if d < 25*time.Millisecond || d > 75*time.Millisecond {
			t.Errorf("delay %s outside half of 100ms ± 50ms", d)
		}
	}
}

// Wait is a custom transport's toll: refused across a partition, held by
// a pause, slowed by latency and bandwidth.
func TestWait(t *testing.T) {
	ctx := context.Background()
	synctest.Test(t, func(t *testing.T) {
		w := New()
		defer w.Close(ctx)
		w.AddNode("a", NodeConfig{})
		w.AddNode("b", NodeConfig{})
		lift, err := w.PartitionNetwork(ctx, "b")
		if err != nil {
			t.Fatal(err)
		}
		var we *WaitError
		if err := w.Wait(ctx, "a", "b", 1); !errors.As(err, &we) || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("Wait across a partition = %v, want a *WaitError wrapping ECONNREFUSED", err)
		}
		lift(ctx)
		w.LimitBandwidth(ctx, "b", 1000)
		start := time.Now()
		w.Wait(ctx, "a", "b", 2000)
		if got := time.Since(start); got != 2*time.Second {
			t.Errorf("2000 B at 1000 B/s took %s, want 2s", got)
		}
		tctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := w.Wait(tctx, "a", "b", 5000); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Wait past its context = %v, want DeadlineExceeded", err)
		}
	})
}

func TestFaultErrors(t *testing.T) {
	ctx := context.Background()
	w := New()
	defer w.Close(ctx)
	w.AddNode("a", NodeConfig{RestartAfter: -1}) // stays down once killed: RestartAfter 0 restarts it at once, racing the second kill
	var nn *NoNodeError
	for name, err := range map[string]error{
		"unknown node":  errOf(w.InjectLatency(ctx, "x", fault.Latency{Latency: time.Second})),
		"unknown peer":  errOf(w.InjectLatency(ctx, "a", fault.Latency{Latency: time.Second, Peer: "x"})),
		"kill unknown":  w.StopAgent(ctx, "x"),
		"pause unknown": errOf(w.PauseAgent(ctx, "x")),
	} {
		if !errors.As(err, &nn) {
			t.Errorf("%s: %v, want a *NoNodeError", name, err)
		}
	}
	for name, err := range map[string]error{
		"zero latency":   errOf(w.InjectLatency(ctx, "a", fault.Latency{})),
		"zero rate":      errOf(w.LimitBandwidth(ctx, "a", 0)),
		"negative after": errOf(w.ResetConnections(ctx, "a", -time.Second)),
	} {
		if err == nil {
			t.Errorf("%s: nil error", name)
		}
	}
	if err := w.StopAgent(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := w.StopAgent(ctx, "a"); !errors.Is(err, ErrNodeDown) {
		t.Errorf("killing a node that is down = %v, want ErrNodeDown", err)
	}
}

// errOf is the error of a landing, its Lift dropped.
func errOf(_ fault.Lift, err error) error { return err }
