package netfault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/sim"
)

// echoServer echoes one connection on loopback (a real goroutine, outside
// the simulation) and reports how its reads ended.
func echoServer(t *testing.T) (addr string, ended <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		_, err = io.Copy(c, c)
		done <- err
	}()
	return ln.Addr().String(), done
}

// simEcho starts an echo server on node "echo" of a sim world in the
// bubble, and returns the node the client dials from.
func simEcho(t *testing.T) *sim.Node {
	t.Helper()
	w := sim.New()
	t.Cleanup(func() { w.Close(context.Background()) })
	_, err := w.AddNode("echo", sim.NodeConfig{Start: func(ctx context.Context, n *sim.Node) error {
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
	client, err := w.AddNode("client", sim.NodeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// exchange sends each message over a connection from the Dialer to a
// simulated echo server, reads it back, and logs each exchange's outcome
// with its simulated end.
func exchange(t *testing.T, n *Network, msgs ...string) string {
	t.Helper()
	node := simEcho(t)
	var log []string
	c, err := n.Dialer("client", node.DialContext)(context.Background(), "tcp", "echo:7")
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	for _, m := range msgs {
		if _, err := c.Write([]byte(m)); err != nil {
			log = append(log, fmt.Sprintf("write reset=%v@%s", errors.Is(err, syscall.ECONNRESET), at(n)))
			break
		}
		buf := make([]byte, len(m))
		if _, err := io.ReadFull(c, buf); err != nil {
			log = append(log, fmt.Sprintf("read reset=%v@%s", errors.Is(err, syscall.ECONNRESET), at(n)))
			break
		}
		log = append(log, fmt.Sprintf("%d bytes@%s", len(buf), at(n)))
	}
	return strings.Join(log, ", ")
}

func TestDialer(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		fault func(n *Network) error
		msgs  []string
		want  string
	}{
		{"no fault", func(*Network) error { return nil }, []string{"ping", "pong"}, "4 bytes@0s, 4 bytes@0s"},
		{"latency: each exchange one round trip longer",
			func(n *Network) error {
				return errOf(n.InjectLatency(ctx, "echo", fault.Latency{Latency: 200 * time.Millisecond}))
			},
			[]string{"ping", "pong"}, "4 bytes@200ms, 4 bytes@400ms"},
		{"bandwidth: 500 B each way at 1000 B/s",
			func(n *Network) error { return errOf(n.LimitBandwidth(ctx, "client", 1000)) },
			[]string{strings.Repeat("x", 500)}, "500 bytes@1s"},
		{"reset at once",
			func(n *Network) error { return errOf(n.ResetConnections(ctx, "echo", 0)) },
			[]string{"ping"}, "write reset=true@0s"},
		{"reset after 300ms: the second exchange",
			func(n *Network) error {
				if _, err := n.InjectLatency(ctx, "echo", fault.Latency{Latency: 200 * time.Millisecond}); err != nil {
					return err
				}
				return errOf(n.ResetConnections(ctx, "echo", 300*time.Millisecond))
			},
			[]string{"ping", "pong"}, "4 bytes@200ms, write reset=true@300ms"},
		{"partition: the dial is refused",
			func(n *Network) error { return errOf(n.PartitionNetwork(ctx, "client")) },
			[]string{"ping"}, "netfault: client -> echo: connection refused (network_partition)"},
		{"partition landing mid-exchange: the wait is cut then",
			func(n *Network) error {
				time.AfterFunc(250*time.Millisecond, func() { n.PartitionNetwork(ctx, "echo") })
				return errOf(n.InjectLatency(ctx, "echo", fault.Latency{Latency: 200 * time.Millisecond}))
			},
			[]string{"ping", "pong"}, "4 bytes@200ms, write reset=true@250ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			simulated(t, func(t *testing.T, n *Network) {
				if err := tc.fault(n); err != nil {
					t.Fatal(err)
				}
				if got := exchange(t, n, tc.msgs...); got != tc.want {
					t.Errorf("exchanges = %q, want %q", got, tc.want)
				}
			}, WithAgent("client", "client"), WithAgent("echo", "service"))
		})
	}
}

// On a real TCP connection a reset is one: the server's read ends with
// ECONNRESET.
func TestDialerResetsTCP(t *testing.T) {
	addr, ended := echoServer(t)
	n := New(nil, WithAgent("client", "client"), WithAgent("echo", "service", "127.0.0.1"))
	defer n.Close()
	if _, err := n.ResetConnections(context.Background(), "echo", 0); err != nil {
		t.Fatal(err)
	}
	c, err := n.Dialer("client", nil)(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("ping")); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("Write under a reset = %v, want ECONNRESET", err)
	}
	if err := <-ended; !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the server's read ended with %v, want an RST", err)
	}
}

// On real TCP a partition refuses the dial without making it, and after
// the lift the same dial reaches the server.
func TestDialerPartitionTCP(t *testing.T) {
	addr, _ := echoServer(t)
	n := New(nil, WithAgent("client", "client"), WithAgent("echo", "service", "127.0.0.1"))
	defer n.Close()
	ctx := context.Background()
	lift, err := n.PartitionNetwork(ctx, "echo")
	if err != nil {
		t.Fatal(err)
	}
	dial := n.Dialer("client", nil)
	var refused *RefusedError
	if c, err := dial(ctx, "tcp", addr); !errors.As(err, &refused) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial across the partition = %v, %v; want a *RefusedError (ECONNREFUSED)", c, err)
	}
	if err := lift(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := dial(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("dial after the lift: %v", err)
	}
	defer c.Close()
	// The server accepts one connection: had the refused dial been made,
	// this one would get no echo.
	c.SetDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4)
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Errorf("echo after the lift = %q, %v", buf, err)
	}
}

// A fault that resets a connection reaches one whose Read is blocked on
// the connection beneath (the peer sends nothing) when the fault says, not
// when bytes or a deadline come: the Read ends with a *ResetError then.
// The fault lands at 1s on a connection opened at 0; a reset lifted before
// it is due resets nothing (the Read ends at the Close, at 3s). A closed
// connection leaves the network's set.
func TestDialerResetsABlockedRead(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		fault func(n *Network) error
		want  time.Duration // 0: not reset
	}{
		{"partition", func(n *Network) error { return errOf(n.PartitionNetwork(ctx, "echo")) }, time.Second},
		{"reset at once", func(n *Network) error { return errOf(n.ResetConnections(ctx, "client", 0)) }, time.Second},
		{"reset after 500ms: due already", func(n *Network) error { return errOf(n.ResetConnections(ctx, "echo", 500*time.Millisecond)) }, time.Second},
		{"reset after 1.5s", func(n *Network) error { return errOf(n.ResetConnections(ctx, "echo", 1500*time.Millisecond)) }, 1500 * time.Millisecond},
		{"the earlier of two resets", func(n *Network) error {
			if _, err := n.ResetConnections(ctx, "echo", 2500*time.Millisecond); err != nil {
				return err
			}
			return errOf(n.ResetConnections(ctx, "client", 1200*time.Millisecond))
		}, 1200 * time.Millisecond},
		{"reset after 2s, lifted at 1.5s", func(n *Network) error {
			lift, err := n.ResetConnections(ctx, "echo", 2*time.Second)
			time.AfterFunc(500*time.Millisecond, func() { lift(ctx) })
			return err
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			simulated(t, func(t *testing.T, n *Network) {
				c, err := n.Dialer("client", simEcho(t).DialContext)(ctx, "tcp", "echo:7")
				if err != nil {
					t.Fatal(err)
				}
				time.AfterFunc(time.Second, func() {
					if err := tc.fault(n); err != nil {
						t.Error(err)
					}
				})
				time.AfterFunc(3*time.Second, func() { c.Close() })
				var reset *ResetError
				k, err := c.Read(make([]byte, 4))
				switch {
				case tc.want == 0 && (!errors.Is(err, net.ErrClosed) || at(n) != 3*time.Second):
					t.Errorf("blocked Read = %d, %v at %s; want net.ErrClosed at the Close, 3s", k, err, at(n))
				case tc.want != 0 && (!errors.As(err, &reset) || !errors.Is(err, syscall.ECONNRESET) || at(n) != tc.want):
					t.Errorf("blocked Read = %d, %v at %s; want a *ResetError at %s", k, err, at(n), tc.want)
				}
				if _, err := c.Write([]byte("ping")); tc.want != 0 && !errors.As(err, &reset) {
					t.Errorf("Write after the reset = %v, want a *ResetError", err)
				}
				c.Close()
				if k := openConns(n); k != 0 {
					t.Errorf("%d connections left in the network's set after Close", k)
				}
			}, WithAgent("client", "client"), WithAgent("echo", "service"))
		})
	}
}

// A connection dialed while a reset at once is in force is reset at once:
// a first Read, blocked on the connection beneath, does not wait.
func TestDialerResetsAtDial(t *testing.T) {
	simulated(t, func(t *testing.T, n *Network) {
		if _, err := n.ResetConnections(context.Background(), "echo", 0); err != nil {
			t.Fatal(err)
		}
		c, err := n.Dialer("client", simEcho(t).DialContext)(context.Background(), "tcp", "echo:7")
		if err != nil {
			t.Fatal(err)
		}
		var reset *ResetError
		if _, err := c.Read(make([]byte, 4)); !errors.As(err, &reset) || at(n) != 0 {
			t.Errorf("first Read under a reset at once = %v at %s, want a *ResetError at 0s", err, at(n))
		}
		c.Close()
		if k := openConns(n); k != 0 {
			t.Errorf("%d connections left in the network's set after Close", k)
		}
	}, WithAgent("client", "client"), WithAgent("echo", "service"))
}

// A connection closed by its user, under no fault, leaves the open set,
// and a fault landing after the Close does not make it a reset: its Read
// says it is closed. One dropped without Close leaves the set when it is
// collected.
func TestDialerOpenSet(t *testing.T) {
	simulated(t, func(t *testing.T, n *Network) {
		dial := n.Dialer("client", simEcho(t).DialContext)
		c, err := dial(context.Background(), "tcp", "echo:7")
		if err != nil {
			t.Fatal(err)
		}
		if k := openConns(n); k != 1 {
			t.Fatalf("%d connections in the open set after a dial, want 1", k)
		}
		c.Close()
		if _, err := n.PartitionNetwork(context.Background(), "echo"); err != nil {
			t.Fatal(err)
		}
		var reset *ResetError
		if _, err := c.Read(make([]byte, 4)); errors.As(err, &reset) || !errors.Is(err, net.ErrClosed) {
			t.Errorf("Read after Close, then a partition = %v, want net.ErrClosed", err)
		}
		if k := openConns(n); k != 0 {
			t.Errorf("%d connections left in the open set after Close", k)
		}
	}, WithAgent("client", "client"), WithAgent("echo", "service"))

	n := New(nil, WithAgent("client", "client"), WithAgent("echo", "service", "127.0.0.1"))
	defer n.Close()
	addr, _ := echoServer(t)
	if _, err := n.Dialer("client", nil)(context.Background(), "tcp", addr); err != nil {
		t.Fatal(err)
	}
	for i := 0; openConns(n) != 0; i++ {
		if i == 100 {
			t.Fatal("a dropped connection is still in the open set after 100 collections")
		}
		runtime.GC()
		time.Sleep(time.Millisecond) // the cleanup runs on its own goroutine
	}
}

// openConns is the size of the network's open set.
func openConns(n *Network) int {
	open, _, _ := n.ties.counts()
	return open
}

// On real TCP a partition landing while the client's Read is blocked ends
// that Read at once, and the server sees the RST.
func TestDialerPartitionCutsABlockedReadTCP(t *testing.T) {
	addr, ended := echoServer(t)
	n := New(nil, WithAgent("client", "client"), WithAgent("echo", "service", "127.0.0.1"))
	defer n.Close()
	ctx := context.Background()
	c, err := n.Dialer("client", nil)(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(time.Minute)) // a failure ends here, not at the test's timeout
	read := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 4))
		read <- err
	}()
	time.Sleep(50 * time.Millisecond) // the Read is blocked, or about to be: either way it must end
	if _, err := n.PartitionNetwork(ctx, "echo"); err != nil {
		t.Fatal(err)
	}
	if err := <-read; !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the blocked Read ended with %v, want ECONNRESET", err)
	}
	if err := <-ended; !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("the server's read ended with %v, want an RST", err)
	}
}
