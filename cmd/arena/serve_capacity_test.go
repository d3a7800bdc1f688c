package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The attacks of issue 34 ("No key, no capacity") on `arena serve` itself,
// its handler behind its own http.Server, over real connections: clients
// without the key must not take the capacity of those with it. The tests
// assert answers (200, never 503), not times; they log each route's p50
// and p99, and ARENA_ATTACK_FOR (default 3s) sets how long the operator's
// requests go on under the attack:
//
//	ARENA_ATTACK_FOR=30s go test -count=1 -run 'TestServe.*Attack' -v ./cmd/arena/

const attackKey = "attack-key"

// slowRead is the request a slow reader pipelines: the dashboard's script,
// public, 22 KB an answer.
const slowRead = "GET /arena/ui/app.js HTTP/1.1\r\nHost: arena\r\n\r\n"

// slowLogin is the head of a login whose body (of an allowed length)
// comes too slowly to finish.
const slowLogin = "POST /arena/session HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"

// attack is load from clients without the key: readers pipeline 250
// requests for slowRead and never read an answer; logins send slowLogin
// and then one byte of body every 100ms. Each goes on until stop, and
// connects again when the server drops it.
type attack struct {
	target  string
	readers int
	logins  int
	sources []netip.Addr  // local addresses, each connection the next in turn; none: the system's
	rotate  time.Duration // > 0: each connection is closed after this long and made again (from the next source)

	stop    chan struct{}
	wg      sync.WaitGroup
	next    atomic.Uint64
	started atomic.Int64 // workers whose first connection has sent its requests
	opened  atomic.Int64
	dropped atomic.Int64 // connections the server closed (a write failed)

	mu   sync.Mutex
	used map[netip.Addr]bool
}

func (a *attack) start() {
	a.stop, a.used = make(chan struct{}), map[netip.Addr]bool{}
	for range a.readers {
		a.wg.Add(1)
		go a.worker(strings.Repeat(slowRead, 250), slowRead, true)
	}
	for range a.logins {
		a.wg.Add(1)
		go a.worker(slowLogin, "k", false)
	}
}

// waitStarted waits until every worker's first connection has sent its
// requests.
func (a *attack) waitStarted(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for a.started.Load() < int64(a.readers+a.logins) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d attacking connections were made", a.started.Load(), a.readers+a.logins)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (a *attack) end() {
	close(a.stop)
	a.wg.Wait()
}

func (a *attack) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	sources := "one address"
	if len(a.used) > 0 {
		sources = fmt.Sprintf("%d addresses", len(a.used))
	}
	return fmt.Sprintf("%d slow readers and %d slow logins: %d connections from %s, %d dropped by the server",
		a.readers, a.logins, a.opened.Load(), sources, a.dropped.Load())
}

// worker keeps one attacking connection going: first, then every 100ms
// after it, never reading. A reader connects with a small receive buffer,
// as any client can, so that its answers back up at once instead of
// filling megabytes of the kernel's.
func (a *attack) worker(first, then string, reader bool) {
	defer a.wg.Done()
	counted := false
	for {
		c := a.dial(reader)
		if c == nil {
			return
		}
		_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		_, err := io.WriteString(c, first)
		if err == nil && !counted {
			counted = true
			a.started.Add(1)
		}
		var expire <-chan time.Time
		if a.rotate > 0 {
			expire = time.After(a.rotate)
		}
		for err == nil {
			select {
			case <-a.stop:
				c.Close()
				return
			case <-expire:
				err = errRotate
				continue
			case <-time.After(100 * time.Millisecond):
			}
			// A write that times out finds the server not reading: still
			// held. One that fails finds the connection closed.
			_ = c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
			if _, err = io.WriteString(c, then); isTimeout(err) {
				err = nil
			}
		}
		if !errors.Is(err, errRotate) {
			a.dropped.Add(1)
		}
		c.Close()
	}
}

var errRotate = errors.New("rotate")

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// dial connects from the next source, with a 4 KiB receive buffer if
// small; nil once the attack stops.
func (a *attack) dial(small bool) net.Conn {
	for {
		d := net.Dialer{Timeout: 5 * time.Second}
		if small {
			d.Control = func(_, _ string, rc syscall.RawConn) error {
				var err error
				if cerr := rc.Control(func(fd uintptr) {
					err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10)
				}); cerr != nil {
					return cerr
				}
				return err
			}
		}
		if len(a.sources) > 0 {
			src := a.sources[(a.next.Add(1)-1)%uint64(len(a.sources))]
			d.LocalAddr = &net.TCPAddr{IP: src.AsSlice()}
			a.mu.Lock()
			a.used[src] = true
			a.mu.Unlock()
		}
		c, err := d.Dial("tcp", a.target)
		if err == nil {
			a.opened.Add(1)
			return c
		}
		select {
		case <-a.stop:
			return nil
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// loopbackSources is n loopback addresses other than 127.0.0.1 and
// 127.0.0.2 (the operator's).
func loopbackSources(n int) []netip.Addr {
	out := make([]netip.Addr, n)
	for i := range out {
		out[i] = netip.AddrFrom4([4]byte{127, 10, byte(i / 250), byte(i%250 + 1)})
	}
	return out
}

// operatorAddr is where the operator's requests come from.
var operatorAddr = netip.AddrFrom4([4]byte{127, 0, 0, 2})

// operator is the client with the key (and a browser without it yet), from
// an address of its own; it keeps every answer's time per route.
type operator struct {
	url    string
	client *http.Client
	mu     sync.Mutex
	took   map[string][]time.Duration
}

func newOperator(url string, from netip.Addr) *operator {
	d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: from.AsSlice()}}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 8}
	return &operator{url: url, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}, took: map[string][]time.Duration{}}
}

// do sends one request and fails the test unless it is answered want.
func (o *operator) do(t *testing.T, method, path, key, body string, want int) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), method, o.url+path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	start := time.Now()
	resp, err := o.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s under attack: %v", method, path, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("%s %s under attack: reading the answer: %v", method, path, err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s %s under attack = %d %s, want %d", method, path, resp.StatusCode, b, want)
	}
	name := method + " " + path
	o.mu.Lock()
	o.took[name] = append(o.took[name], took)
	o.mu.Unlock()
	return string(b)
}

// round is what an operator does while under attack: reads with the key,
// lands a fault and lifts it, loads the page and logs in.
func (o *operator) round(t *testing.T, reads, actions, page bool) {
	t.Helper()
	if reads {
		o.do(t, "GET", "/arena/faults", attackKey, "", http.StatusOK)
		o.do(t, "GET", "/metrics", attackKey, "", http.StatusOK)
	}
	if actions {
		o.do(t, "POST", "/arena/agent/worker-1/pause", attackKey, "", http.StatusOK)
		if b := o.do(t, "DELETE", "/arena/faults", attackKey, "", http.StatusOK); !strings.Contains(b, `"lifted":true`) {
			t.Fatalf("DELETE /arena/faults under attack lifted nothing: %s", b)
		}
	}
	if page {
		if b := o.do(t, "GET", "/arena/ui/", "", "", http.StatusOK); !strings.Contains(b, "<title>arena</title>") {
			t.Fatalf("GET /arena/ui/ under attack is not the page: %.200s", b)
		}
		o.do(t, "POST", "/arena/session", "", `{"key":"`+attackKey+`"}`, http.StatusOK)
	}
}

// report logs each route's times.
func (o *operator) report(t *testing.T) {
	o.mu.Lock()
	defer o.mu.Unlock()
	names := make([]string, 0, len(o.took))
	for name := range o.took {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		d := slices.Clone(o.took[name])
		slices.Sort(d)
		q := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
		t.Logf("%-28s n=%-5d p50 %-10s p99 %-10s max %s", name, len(d), q(0.50).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond), d[len(d)-1].Round(10*time.Microsecond))
	}
}

// attackFor is how long the operator's rounds go on under an attack.
func attackFor(t *testing.T) time.Duration {
	s := os.Getenv("ARENA_ATTACK_FOR")
	if s == "" {
		return 3 * time.Second
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		t.Fatalf("ARENA_ATTACK_FOR=%q: want a positive duration", s)
	}
	return d
}

// underAttack starts `arena serve` with a key, starts a, and has an
// operator from 127.0.0.2 do rounds until attackFor has passed.
func underAttack(t *testing.T, a *attack, reads, actions, page bool) {
	if testing.Short() {
		t.Skip("starts a server and over a hundred connections")
	}
	// All of 127.0.0.0/8 is this machine's on Linux; elsewhere it may not be.
	sources := []netip.Addr{operatorAddr}
	if len(a.sources) > 0 {
		sources = append(sources, a.sources[0])
	}
	for _, src := range sources {
		ln, err := net.Listen("tcp", netip.AddrPortFrom(src, 0).String())
		if err != nil {
			t.Skipf("cannot send from %s: %v", src, err)
		}
		ln.Close()
	}
	t.Setenv("ARENA_API_KEY", attackKey)
	s := startServe(t, "--addr", "127.0.0.1:0", "--seed", "3")
	serving := true
	defer func() {
		if serving { // the test failed: no goroutine of serve's outlives it
			s.stop(t)
		}
	}()
	a.target = strings.TrimPrefix(s.url, "http://")
	op := newOperator(s.url, operatorAddr)
	defer op.client.CloseIdleConnections()
	a.start()
	stopped := false
	stopAttack := func() {
		if !stopped {
			stopped = true
			a.end()
		}
	}
	defer stopAttack()
	a.waitStarted(t)
	rounds := 0
	for end := time.Now().Add(attackFor(t)); rounds < 20 || time.Now().Before(end); rounds++ {
		op.round(t, reads, actions, page)
	}
	stopAttack()
	t.Logf("%d rounds beside %v", rounds, a)
	op.report(t)
	serving = false
	if code := s.stop(t); code != exitPass {
		t.Errorf("serve exited %d, want 0; stderr:\n%s", code, s.stderr())
	}
}

// TestServeSlowReadersAttack is issue 34's first attack: 64 connections
// that pipeline GET /arena/ui/app.js 250 times and never read took every
// read slot, and every read with the key (and the page) was a 503.
func TestServeSlowReadersAttack(t *testing.T) {
	underAttack(t, &attack{readers: 64}, true, false, true)
}

// TestServeSlowLoginsAttack is issue 34's second attack: 64 logins whose
// bodies trickle in took every action slot before a byte of body came, and
// injections, lifts and logins were all 503s.
func TestServeSlowLoginsAttack(t *testing.T) {
	underAttack(t, &attack{logins: 64}, false, true, true)
}

// TestServeUnderBothAttacks: both at once, from one address; then from a
// thousand, one connection each, so that no per-address bound can be what
// saves the operator; then 64 and 64 again, each connection made anew from
// the next of a thousand addresses every 300ms, which costs the server a
// connection's worth of answers each time (serveSendBuffer bounds that).
func TestServeUnderBothAttacks(t *testing.T) {
	t.Run("one address", func(t *testing.T) {
		underAttack(t, &attack{readers: 64, logins: 64}, true, true, true)
	})
	t.Run("1000 addresses", func(t *testing.T) {
		underAttack(t, &attack{readers: 500, logins: 500, sources: loopbackSources(1000)}, true, true, true)
	})
	t.Run("1000 addresses reconnecting", func(t *testing.T) {
		underAttack(t, &attack{readers: 64, logins: 64, sources: loopbackSources(1000), rotate: 300 * time.Millisecond}, true, true, true)
	})
}

// TestServeBoundsTheSendBuffer: the kernel's send buffer of a connection
// serve accepts is serveSendBuffer (doubled by Linux), not the megabytes
// it grows to by itself, which a client that never reads has the server
// fill again at each reconnection.
func TestServeBoundsTheSendBuffer(t *testing.T) {
	srv := newServer(http.NotFoundHandler())
	got := make(chan int, 1)
	bounded := srv.ConnState
	srv.ConnState = func(c net.Conn, s http.ConnState) {
		bounded(c, s)
		if s != http.StateNew {
			return
		}
		rc, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Error(err)
			got <- 0
			return
		}
		n := 0
		_ = rc.Control(func(fd uintptr) { n, err = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF) })
		if err != nil {
			t.Error(err)
		}
		got <- n
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n := <-got; n <= 0 || n > 2*serveSendBuffer {
		t.Errorf("an accepted connection's SO_SNDBUF = %d, want at most %d", n, 2*serveSendBuffer)
	}
}
