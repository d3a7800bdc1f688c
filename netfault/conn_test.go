package netfault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ares-arena/arena"
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

// exchange sends msg and reads it back, in a simulated goroutine on an
// echo server under fault, and returns each exchange's outcome with its
// virtual end, then how the server's side ended.
func exchange(t *testing.T, fault func(n *Network) error, msgs ...string) (string, error) {
	t.Helper()
	addr, ended := echoServer(t)
	n, clock := virtual(t, WithAgent("client", "client"), WithAgent("echo", "service", "127.0.0.1"))
	if err := fault(n); err != nil {
		t.Fatal(err)
	}
	var log []string
	n.Go(func(ctx context.Context) {
		c, err := n.Dialer("client", nil)(ctx, "tcp", addr)
		if err != nil {
			log = append(log, err.Error())
			return
		}
		defer c.Close()
		for _, m := range msgs {
			if _, err := c.Write([]byte(m)); err != nil {
				log = append(log, fmt.Sprintf("write reset=%v@%s", errors.Is(err, syscall.ECONNRESET), at(n)))
				return
			}
			buf := make([]byte, len(m))
			if _, err := io.ReadFull(c, buf); err != nil {
				log = append(log, fmt.Sprintf("read reset=%v@%s", errors.Is(err, syscall.ECONNRESET), at(n)))
				return
			}
			log = append(log, fmt.Sprintf("%d bytes@%s", len(buf), at(n)))
		}
	})
	clock.Advance(time.Minute)
	n.Advance()
	return strings.Join(log, ", "), <-ended
}

func TestDialer(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		fault     func(n *Network) error
		msgs      []string
		want      string
		serverRST bool
	}{
		{"no fault", func(*Network) error { return nil }, []string{"ping", "pong"}, "4 bytes@0s, 4 bytes@0s", false},
		{"latency: each exchange one round trip longer",
			func(n *Network) error {
				return errOf(n.InjectLatency(ctx, "echo", arena.Latency{Latency: 200 * time.Millisecond}))
			},
			[]string{"ping", "pong"}, "4 bytes@200ms, 4 bytes@400ms", false},
		{"bandwidth: 500 B each way at 1000 B/s",
			func(n *Network) error { return errOf(n.LimitBandwidth(ctx, "client", 1000)) },
			[]string{strings.Repeat("x", 500)}, "500 bytes@1s", false},
		{"reset at once: the server sees an RST",
			func(n *Network) error { return errOf(n.ResetConnections(ctx, "echo", 0)) },
			[]string{"ping"}, "write reset=true@0s", true},
		{"reset after 300ms: the second exchange",
			func(n *Network) error {
				if _, err := n.InjectLatency(ctx, "echo", arena.Latency{Latency: 200 * time.Millisecond}); err != nil {
					return err
				}
				return errOf(n.ResetConnections(ctx, "echo", 300*time.Millisecond))
			},
			[]string{"ping", "pong"}, "4 bytes@200ms, write reset=true@300ms", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, serverErr := exchange(t, tc.fault, tc.msgs...)
			if got != tc.want {
				t.Errorf("exchanges = %q, want %q", got, tc.want)
			}
			if rst := errors.Is(serverErr, syscall.ECONNRESET); rst != tc.serverRST {
				t.Errorf("server's read ended with %v, want an RST: %v", serverErr, tc.serverRST)
			}
		})
	}
}
