package sim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/nettest"
)

// pair returns two connected conns between nodes a and b of a fresh world,
// closed with the world at cleanup.
func pair(t *testing.T) (client, server net.Conn, w *World) {
	t.Helper()
	w = New()
	t.Cleanup(func() { w.Close(context.Background()) })
	a, err := w.AddNode("a", NodeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddNode("b", NodeConfig{}); err != nil {
		t.Fatal(err)
	}
	l, err := w.Listen("b", ":7000")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := a.DialContext(context.Background(), "tcp", "b:7000")
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return c, s, w
}

// The conns pass golang.org/x/net/nettest's conformance suite, in real
// time (its subtests use t.Run, which a synctest bubble does not allow;
// TestConnInBubble checks the same behaviours there).
func TestConnConformance(t *testing.T) {
	nettest.TestConn(t, func() (c1, c2 net.Conn, stop func(), err error) {
		w := New()
		a, _ := w.AddNode("a", NodeConfig{})
		w.AddNode("b", NodeConfig{})
		l, err := w.Listen("b", "b:0")
		if err != nil {
			return nil, nil, nil, err
		}
		defer l.Close()
		c1, err = a.DialContext(context.Background(), "tcp", l.Addr().String())
		if err != nil {
			return nil, nil, nil, err
		}
		c2, err = l.Accept()
		return c1, c2, func() { c1.Close(); c2.Close(); w.Close(context.Background()) }, err
	})
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded)
}

// Inside a bubble every wait of a conn is durable: a Read with a deadline
// an hour away returns after exactly an hour of simulated time, at once.
func TestConnInBubble(t *testing.T) {
	t.Run("deadline in the future", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _, _ := pair(t)
			start := time.Now()
			c.SetReadDeadline(start.Add(time.Hour))
			_, err := c.Read(make([]byte, 1))
			if !isTimeout(err) {
				t.Fatalf("Read = %v, want a timeout", err)
			}
			if got := time.Since(start); got != time.Hour {
				t.Errorf("Read returned after %s, want 1h", got)
			}
		})
	})
	t.Run("deadline in the past, then cleared", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, s, _ := pair(t)
			c.SetDeadline(time.Now().Add(-time.Second))
			if n, err := c.Write([]byte("x")); n != 0 || !isTimeout(err) {
				t.Errorf("Write past the deadline = %d, %v, want 0 and a timeout", n, err)
			}
			if n, err := c.Read(make([]byte, 1)); n != 0 || !isTimeout(err) {
				t.Errorf("Read past the deadline = %d, %v, want 0 and a timeout", n, err)
			}
			c.SetDeadline(time.Time{})
			if _, err := c.Write([]byte("ping")); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 4)
			if _, err := io.ReadFull(s, buf); err != nil || string(buf) != "ping" {
				t.Errorf("after clearing the deadline: %q, %v", buf, err)
			}
		})
	})
	t.Run("deadline set while a Read waits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _, _ := pair(t)
			errc := make(chan error)
			go func() {
				_, err := c.Read(make([]byte, 1))
				errc <- err
			}()
			time.Sleep(time.Minute)
			synctest.Wait()
			c.SetReadDeadline(time.Now())
			if err := <-errc; !isTimeout(err) {
				t.Errorf("Read = %v, want a timeout", err)
			}
		})
	})
	t.Run("a full buffer blocks the writer until the reader reads", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, s, _ := pair(t)
			big := bytes.Repeat([]byte("x"), bufferSize+1000)
			done := make(chan int)
			go func() {
				n, _ := c.Write(big)
				done <- n
			}()
			synctest.Wait()
			select {
			case n := <-done:
				t.Fatalf("Write of %d bytes returned %d with nobody reading", len(big), n)
			default:
			}
			got, err := io.ReadAll(io.LimitReader(s, int64(len(big))))
			if err != nil || !bytes.Equal(got, big) {
				t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(big))
			}
			if n := <-done; n != len(big) {
				t.Errorf("Write = %d, want %d", n, len(big))
			}
		})
	})
	t.Run("write deadline on a full buffer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _, _ := pair(t)
			c.SetWriteDeadline(time.Now().Add(time.Second))
			n, err := c.Write(make([]byte, bufferSize+1))
			if n != bufferSize || !isTimeout(err) {
				t.Errorf("Write = %d, %v, want %d and a timeout", n, err, bufferSize)
			}
		})
	})
	t.Run("close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, s, _ := pair(t)
			errc := make(chan error, 1)
			go func() {
				_, err := c.Read(make([]byte, 1))
				errc <- err
			}()
			synctest.Wait()
			c.Write([]byte("bye"))
			if err := c.Close(); err != nil {
				t.Fatalf("Close = %v", err)
			}
			if err := <-errc; !errors.Is(err, net.ErrClosed) {
				t.Errorf("pending Read at Close = %v, want net.ErrClosed", err)
			}
			if err := c.Close(); !errors.Is(err, net.ErrClosed) {
				t.Errorf("second Close = %v, want net.ErrClosed", err)
			}
			if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
				t.Errorf("Write after Close = %v, want net.ErrClosed", err)
			}
			got, err := io.ReadAll(s)
			if string(got) != "bye" || err != nil {
				t.Errorf("the other end read %q, %v; want what was sent, then EOF", got, err)
			}
			if _, err := s.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
				t.Errorf("Write to a closed end = %v, want EPIPE", err)
			}
		})
	})
	t.Run("reset reaches both ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, s, _ := pair(t)
			errc := make(chan error, 1)
			go func() {
				_, err := s.Read(make([]byte, 1))
				errc <- err
			}()
			synctest.Wait()
			c.(*conn).reset()
			if err := <-errc; !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("the other end's Read = %v, want ECONNRESET", err)
			}
			if _, err := c.Write([]byte("x")); !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("Write = %v, want ECONNRESET", err)
			}
		})
	})
}

func TestListenAndDialErrors(t *testing.T) {
	ctx := context.Background()
	w := New()
	defer w.Close(ctx)
	a, _ := w.AddNode("a", NodeConfig{})
	w.AddNode("b", NodeConfig{})
	l, err := a.Listen(":0")
	if err != nil || l.Addr().String() != "a:32768" {
		t.Fatalf("Listen(:0) = %v, %v; want a:32768", l, err)
	}
	for _, tc := range []struct {
		addr string
		want string
	}{
		{"b:1", `host "b" is not this node`},
		{"a", "missing port"},
		{"a:99999", "want a number from 0 to 65535"},
		{"a:32768", "address already in use"},
	} {
		if _, err := a.Listen(tc.addr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Listen(%q) = %v, want an error with %q", tc.addr, err, tc.want)
		}
	}
	var dns *net.DNSError
	if _, err := a.DialContext(ctx, "tcp", "nowhere:80"); !errors.As(err, &dns) || !dns.IsNotFound {
		t.Errorf("Dial(nowhere) = %v, want no such host", err)
	}
	if _, err := a.DialContext(ctx, "tcp", "b:80"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Dial(b:80) = %v, want ECONNREFUSED", err)
	}
	if _, err := a.DialContext(ctx, "udp", "b:80"); err == nil {
		t.Error("Dial(udp) = nil error")
	}
	c, err := a.DialContext(ctx, "tcp", "localhost:32768")
	if err != nil {
		t.Fatalf("Dial(localhost) = %v", err)
	}
	c.Close()
	l.Close()
	if _, err := a.DialContext(ctx, "tcp", "a:32768"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("Dial after the listener closed = %v, want ECONNREFUSED", err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close = %v, want net.ErrClosed", err)
	}
}
