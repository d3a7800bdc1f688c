package arenahttp

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
)

// TestPublicPool: a slot per address and in total; one more waits for a
// slot to be given back, or gives up with its context.
func TestPublicPool(t *testing.T) {
	p := newPublicPool(3, 2)
	ctx := context.Background()
	done, cancel := context.WithCancel(ctx)
	cancel()
	var releases []func()
	for _, addr := range []string{"a", "a", "b"} {
		release, ok := p.take(ctx, addr)
		if !ok {
			t.Fatalf("take(%s) with slots free = false", addr)
		}
		releases = append(releases, release)
	}
	if _, ok := p.take(done, "c"); ok {
		t.Error("take beyond the total = true")
	}
	releases[2]()
	if _, ok := p.take(done, "a"); ok {
		t.Error("a third take of address a (2 per address) = true")
	}
	got := make(chan bool)
	go func() {
		release, ok := p.take(ctx, "a")
		if ok {
			release()
		}
		got <- ok
	}()
	releases[0]()
	if !<-got {
		t.Error("a waiting take did not get the slot given back")
	}
	releases[1]()
	if len(p.byAddr) != 0 || len(p.all) != 0 {
		t.Errorf("after every release: %d addresses kept, %d slots held; want none", len(p.byAddr), len(p.all))
	}
}

// expectContinue sends head with Expect: 100-continue and waits for the
// 100 Continue that net/http sends when the handler starts reading the
// body: from then on the handler is waiting for the client.
func expectContinue(t *testing.T, s *system, head string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, br := rawRequest(t, s, head+"\r\nExpect: 100-continue", "")
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("%s: want 100 Continue, got %v %v", head, resp, err)
	}
	return c, br
}

// TestSlowLoginTakesNoSlot is issue 34's second attack at the handler: a
// login whose body has not come holds no slot, of the actions (which it
// took before: injections and lifts were 503) nor of the public pool.
func TestSlowLoginTakesNoSlot(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithMaxConcurrent(1), WithPublicCapacity(1, 1)}})
	body := `{"key":"` + testKey + `"}`
	c, br := expectContinue(t, s, "POST /arena/session HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body)))
	if _, err := io.WriteString(c, body[:5]); err != nil {
		t.Fatal(err)
	}
	for _, rq := range []request{
		{method: "POST", path: "/arena/agent/worker-1/pause", key: testKey},
		{method: "DELETE", path: "/arena/faults", key: testKey},
		{method: "GET", path: "/arena/ui/"},
	} {
		if r := s.do(t, rq); r.code != http.StatusOK {
			t.Errorf("%s %s beside a login waiting for its body = %d %s, want 200", rq.method, rq.path, r.code, r.body)
		}
	}
	if _, err := io.WriteString(c, body[5:]); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the login, its body complete = %v %v, want 200", resp, err)
	}
}
