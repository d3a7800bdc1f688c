package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"syscall"
)

// memNet is an in-memory network for the agents of one test: agent id
// listens at http://id, and a dial is a net.Pipe handed to that agent's
// listener. Everything blocks on channels, so a cluster started inside a
// testing/synctest bubble blocks durably there: time.Sleep and
// synctest.Wait are then exact, where a real socket would leave the
// bubble waiting on I/O.
type memNet struct {
	mu        sync.Mutex
	listeners map[string]*memListener
}

func newMemNet() *memNet { return &memNet{listeners: map[string]*memListener{}} }

// listen returns the listener of host, which must not be taken.
func (n *memNet) listen(host string) *memListener {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.listeners[host]; ok {
		panic("memNet: " + host + " listens twice")
	}
	l := &memListener{host: host, conns: make(chan net.Conn), done: make(chan struct{})}
	n.listeners[host] = l
	return l
}

// dial connects to the listener of addr's host; an unknown or closed one
// refuses, as a port nobody listens on would.
func (n *memNet) dial(ctx context.Context, _, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	l := n.listeners[host]
	n.mu.Unlock()
	if l == nil {
		return nil, fmt.Errorf("dial %s: %w", addr, syscall.ECONNREFUSED)
	}
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, ctx.Err()
	}
	client.Close()
	server.Close()
	return nil, fmt.Errorf("dial %s: %w", addr, syscall.ECONNREFUSED)
}

// transport is an HTTP transport over the network. Close its idle
// connections when done: their goroutines would outlive a bubble.
func (n *memNet) transport() *http.Transport {
	return &http.Transport{DialContext: n.dial}
}

type memListener struct {
	host  string
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *memListener) Addr() net.Addr { return memAddr(l.host) }

// memAddr is a listener's address: the agent's ID.
type memAddr string

func (memAddr) Network() string  { return "mem" }
func (a memAddr) String() string { return string(a) + ":80" }
