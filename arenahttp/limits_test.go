package arenahttp

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
)

// rawRequest opens a connection to s and sends head (request line and
// headers, without the blank line) and then the first bytes of a body.
func rawRequest(t *testing.T, s *system, head, body string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, head+"\r\nHost: arena\r\n\r\n"+body); err != nil {
		t.Fatal(err)
	}
	// Generous: the server answers at once or after its own timeout.
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return c, bufio.NewReader(c)
}

// wantClosed reads the answer, checks its code and that the server then
// closes the connection instead of waiting for the rest of the body.
func wantClosed(t *testing.T, br *bufio.Reader, code int) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != code {
		t.Fatalf("status = %d, want %d (%s)", resp.StatusCode, code, b)
	}
	if !resp.Close {
		t.Errorf("answer %d does not close the connection (Connection: %q)", code, resp.Header.Get("Connection"))
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("after the %d answer: read = %v, want EOF (connection closed)", code, err)
	}
}

func TestEarlyAnswersCloseTheConnection(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithBodyLimit(1000)}})
	t.Run("401 without key, slow body", func(t *testing.T) {
		_, br := rawRequest(t, s, "POST /arena/scenario/validate HTTP/1.1\r\nContent-Length: 100000", "n")
		wantClosed(t, br, http.StatusUnauthorized)
	})
	t.Run("401 wrong key", func(t *testing.T) {
		_, br := rawRequest(t, s, "POST /arena/leader/kill HTTP/1.1\r\nX-API-Key: nope\r\nContent-Length: 500", "{")
		wantClosed(t, br, http.StatusUnauthorized)
	})
	t.Run("413 by Content-Length", func(t *testing.T) {
		_, br := rawRequest(t, s, "POST /arena/scenario/validate HTTP/1.1\r\nX-API-Key: "+testKey+"\r\nContent-Length: 100000", "n")
		wantClosed(t, br, http.StatusRequestEntityTooLarge)
	})
	t.Run("413 chunked", func(t *testing.T) {
		chunk := strings.Repeat("x", 1500)
		_, br := rawRequest(t, s, "POST /arena/scenario/validate HTTP/1.1\r\nX-API-Key: "+testKey+"\r\nTransfer-Encoding: chunked", "5dc\r\n"+chunk+"\r\n")
		wantClosed(t, br, http.StatusRequestEntityTooLarge)
	})
}

func TestSlowBodyTimesOut(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithBodyReadTimeout(100 * time.Millisecond)}})
	_, br := rawRequest(t, s, "POST /arena/scenario/validate HTTP/1.1\r\nX-API-Key: "+testKey+"\r\nContent-Length: 100", "na")
	wantClosed(t, br, http.StatusRequestTimeout)

	// The deadline covers the body only: a run longer than it (the tiny
	// scenario cools down for 300ms) is answered in full.
	r := s.do(t, request{method: "POST", path: "/arena/scenario/run", key: testKey, body: tinyScenario})
	if r.code != http.StatusOK {
		t.Fatalf("scenario run = %d %s, want 200", r.code, r.body)
	}
}

func TestNotFoundAndMethodNotAllowedAreJSON(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	r := s.do(t, request{method: "GET", path: "/arena/nowhere", key: testKey})
	if e := errorOf(t, r); r.code != http.StatusNotFound || !strings.Contains(e.Error, "/arena/nowhere") {
		t.Errorf("GET /arena/nowhere = %d %q, want 404 naming the path", r.code, e.Error)
	}
	r = s.do(t, request{method: "GET", path: "/arena/survival", key: testKey})
	e := errorOf(t, r)
	if r.code != http.StatusMethodNotAllowed || !strings.Contains(r.header.Get("Allow"), "POST") || !strings.Contains(e.Error, "POST") {
		t.Errorf("GET /arena/survival = %d %q (Allow %q), want 405 allowing POST", r.code, e.Error, r.header.Get("Allow"))
	}
	r = s.do(t, request{method: "DELETE", path: "/arena/stats", key: testKey, body: "x"})
	if errorOf(t, r); r.code != http.StatusMethodNotAllowed {
		t.Errorf("DELETE /arena/stats = %d, want 405", r.code)
	}
}

func TestConcurrencyCapPerRouteClass(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithMaxConcurrent(1)}})
	// A scenario request whose body is still coming holds the one slot of
	// its class.
	held, _ := rawRequest(t, s, "POST /arena/scenario/validate HTTP/1.1\r\nX-API-Key: "+testKey+"\r\nContent-Length: 100", "na")
	var r response
	waitFor(t, "the held request to take the slot", func() bool {
		r = s.do(t, request{method: "POST", path: "/arena/scenario/validate", key: testKey, body: "leader-failover"})
		return r.code != http.StatusOK
	})
	if e := errorOf(t, r); r.code != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(e.Error, "scenario") {
		t.Fatalf("second scenario request = %d %q (Retry-After %q), want 503 naming the class", r.code, e.Error, r.header.Get("Retry-After"))
	}
	// Other classes are not held up.
	if r := s.do(t, request{method: "GET", path: "/arena/stats", key: testKey}); r.code != http.StatusOK {
		t.Errorf("GET /arena/stats while scenarios are full = %d, want 200", r.code)
	}
	held.Close()
	waitFor(t, "the slot to be freed", func() bool {
		r = s.do(t, request{method: "POST", path: "/arena/scenario/validate", key: testKey, body: "leader-failover"})
		return r.code != http.StatusServiceUnavailable
	})
	if r.code != http.StatusOK {
		t.Errorf("after the slot is freed: %d %s, want 200", r.code, r.body)
	}
}

// pageOf reads one page and its numbering headers.
func pageOf(t *testing.T, s *system, path string) (ids []string, first, next, dropped string) {
	t.Helper()
	r := s.do(t, request{method: "GET", path: path, key: testKey})
	if r.code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, r.code, r.body)
	}
	for _, e := range decode[[]struct {
		ActionID string `json:"action_id"`
		Action   struct {
			ID string `json:"id"`
		} `json:"action"`
	}](t, r) {
		ids = append(ids, e.ActionID+e.Action.ID)
	}
	return ids, r.header.Get(HeaderFirst), r.header.Get(HeaderNextAfter), r.header.Get(HeaderDropped)
}

func TestPagedReads(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	for i := range 5 {
		// Failing actions: each is a timeline event, a diagnostic and a result.
		r := s.do(t, request{method: "POST", path: "/arena/agent/nobody/kill", key: testKey, body: `{"id":"a` + string(rune('1'+i)) + `"}`})
		if r.code != http.StatusOK {
			t.Fatalf("kill = %d %s", r.code, r.body)
		}
	}
	for _, route := range []string{"/arena/flight/timeline", "/arena/flight/diagnostics", "/arena/history"} {
		for _, tc := range []struct {
			query             string
			want              string
			first, next, drop string
		}{
			{"", "a1 a2 a3 a4 a5", "1", "5", "0"},
			{"?limit=2", "a4 a5", "4", "5", "0"},
			{"?after=1&limit=2", "a2 a3", "2", "3", "0"},
			{"?after=3", "a4 a5", "4", "5", "0"},
			{"?after=5", "", "6", "5", "0"},
		} {
			ids, first, next, drop := pageOf(t, s, route+tc.query)
			if got := strings.Join(ids, " "); got != tc.want || first != tc.first || next != tc.next || drop != tc.drop {
				t.Errorf("GET %s%s = [%s] first %s next %s dropped %s; want [%s] %s %s %s", route, tc.query, got, first, next, drop, tc.want, tc.first, tc.next, tc.drop)
			}
		}
	}
}

func TestPageSlice(t *testing.T) {
	all := []int{1, 2, 3, 4, 5}
	for _, tc := range []struct {
		after     uint64
		limit     int
		want      []int
		wantFirst uint64
	}{
		{0, 2, []int{4, 5}, 4},
		{0, 10, []int{1, 2, 3, 4, 5}, 1},
		{2, 2, []int{3, 4}, 3},
		{5, 2, nil, 6},
		{9, 2, nil, 10},
	} {
		got, first := pageSlice(all, tc.after, tc.limit)
		if !slices.Equal(got, tc.want) || first != tc.wantFirst {
			t.Errorf("pageSlice(after %d, limit %d) = %v, %d; want %v, %d", tc.after, tc.limit, got, first, tc.want, tc.wantFirst)
		}
	}
}

func TestSurvivalBoundsOverHTTP(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithMaxSurvival(time.Hour)}})
	for body, field := range map[string]string{
		`{"duration":"10000h"}`:                    "duration",
		`{"duration":"1h","timeline_cap":1000000}`: "timeline_cap",
	} {
		r := s.do(t, request{method: "POST", path: "/arena/survival", body: body})
		if e := errorOf(t, r); r.code != http.StatusBadRequest || e.Field != field || !strings.Contains(e.Error, "maximum") {
			t.Errorf("POST /arena/survival %s = %d %q, want 400 naming %s and the maximum", body, r.code, e.Error, field)
		}
	}
}

func TestStrictIDsAndKeys(t *testing.T) {
	s := newSystem(t, systemConfig{})
	for _, tc := range []struct {
		path, body, field string
	}{
		{"/arena/agent/worker-1%E2%80%AE/kill", "", "id"},         // bidi override in the path
		{"/arena/agent/worker%E2%80%8B1/kill", "", "id"},          // zero-width space
		{"/arena/agent/worker%FF/kill", "", "id"},                 // invalid UTF-8
		{"/arena/agent/worker-1/kill", `{"id":"a\u2066b"}`, "id"}, // bidi isolate in the body
		{"/arena/agent/worker-1/kill", `{"id":"a\ufeffb"}`, "id"},
		{"/arena/edge/remove", `{"source_id":"orchestrator-0","target_id":"worker-2\u200d"}`, "target_id"},
		{"/arena/agent/worker-1/pause", `{"metadata":{"duration":"1s"},"metadata":{"duration":"9s"}}`, "metadata"},
		{"/arena/agent/worker-1/pause", `{"metadata":{"duration":"1s"},"METADATA":{"duration":"9s"}}`, "METADATA"},
		{"/arena/agent/worker-1/pause", `{"metadata":{"duration":"1s","duration":"9s"}}`, "metadata.duration"},
		{"/arena/agent/worker-1/pause", `{"ID":"x"}`, "ID"},
		{"/arena/survival", `{"duration":"1h","Duration":"2h"}`, "Duration"},
	} {
		r := s.do(t, request{method: "POST", path: tc.path, body: tc.body})
		if e := errorOf(t, r); r.code != http.StatusBadRequest || e.Field != tc.field {
			t.Errorf("POST %s %s = %d %q, want 400 naming %s", tc.path, tc.body, r.code, e.Error, tc.field)
		}
	}
}

// ?after= near the top of uint64 wrapped to a first of 0 and divided by an
// empty ring's length (a 500); it is a range now, and a page past the end
// is empty.
func TestPagingAfterOverflow(t *testing.T) {
	s := newSystem(t, systemConfig{})
	for _, path := range []string{"/arena/history", "/arena/flight/timeline", "/arena/flight/diagnostics"} {
		r := s.do(t, request{method: "GET", path: path + "?after=18446744073709551615"})
		if e := errorOf(t, r); r.code != http.StatusBadRequest || e.Field != "after" || !strings.Contains(e.Error, "from 0 to 9223372036854775807") {
			t.Errorf("GET %s?after=2^64-1 = %d %s, want 400 naming after and its range", path, r.code, r.body)
		}
		r = s.do(t, request{method: "GET", path: path + "?after=9223372036854775807"})
		if r.code != http.StatusOK || strings.TrimSpace(string(r.body)) != "[]" {
			t.Errorf("GET %s?after=2^63-1 = %d %s, want 200 and an empty page", path, r.code, r.body)
		}
	}
}

// A key with white space around it (a trailing newline from a file) could
// never match a header, which HTTP trims: everyone was locked out without a
// word (issue 26). Such a key is refused where it is set.
func TestAPIKeyThatNoHeaderCanCarry(t *testing.T) {
	for key, bad := range map[string]bool{"": false, "s3cret": false, "a b": false, "s3cret\n": true, " s3cret": true, "s3\x01cret": true} {
		if err := CheckAPIKey(key); (err != nil) != bad {
			t.Errorf("CheckAPIKey(%q) = %v, want an error: %v", key, err, bad)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SetAPIKey(\"s3cret\\n\") did not panic")
		}
	}()
	s := newSystem(t, systemConfig{})
	s.h.SetAPIKey("s3cret\n")
}

// A field of the wrong type in a survival body is named as the client
// wrote it, not survivalFields.seed (issue 26).
func TestSurvivalBodyTypeErrorNamesTheField(t *testing.T) {
	s := newSystem(t, systemConfig{clock: clock.NewVirtual(time.Time{})})
	r := s.do(t, request{method: "POST", path: "/arena/survival", body: `{"duration":"1m","seed":"x"}`})
	if e := errorOf(t, r); r.code != http.StatusBadRequest || e.Field != "seed" || strings.Contains(string(r.body), "survivalFields") {
		t.Errorf("POST /arena/survival with a string seed = %d %s, want 400 naming seed", r.code, r.body)
	}
}

// TestLiftsHaveSlotsOfTheirOwn: with every action slot taken, a fault can
// still be lifted.
func TestLiftsHaveSlotsOfTheirOwn(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey), WithMaxConcurrent(1)}})
	expectContinue(t, s, "POST /arena/agent/worker-1/pause HTTP/1.1\r\nX-API-Key: "+testKey+"\r\nContent-Length: 10")
	if r := s.do(t, request{method: "POST", path: "/arena/leader/kill", key: testKey}); r.code != http.StatusServiceUnavailable {
		t.Fatalf("an action with the one action slot held = %d %s, want 503", r.code, r.body)
	}
	for _, rq := range []request{{method: "DELETE", path: "/arena/faults"}, {method: "DELETE", path: "/arena/faults/nothing-1"}} {
		rq.key = testKey
		if r := s.do(t, rq); r.code == http.StatusServiceUnavailable {
			t.Errorf("%s %s with every action slot held = 503 %s, want it served", rq.method, rq.path, r.body)
		}
	}
}

// TestMethodNotAllowedOnlyWithTheKey: without the key, a known path with
// another method, or an unknown path, is the 401 of any route: what routes
// there are is not for anyone to learn. A public route answers publicly
// still, and a path's cleaning is a redirect for anyone.
func TestMethodNotAllowedOnlyWithTheKey(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	for _, tc := range []struct {
		method, path, key string
		want              int
	}{
		{"GET", "/arena/survival", "", http.StatusUnauthorized},
		{"PUT", "/arena/session", "", http.StatusUnauthorized},
		{"POST", "/arena/ui/app.js", "", http.StatusUnauthorized},
		{"GET", "/arena/nowhere", "", http.StatusUnauthorized},
		{"GET", "/arena/survival", "wrong", http.StatusUnauthorized},
		{"GET", "/arena/survival", testKey, http.StatusMethodNotAllowed},
		{"GET", "/arena/nowhere", testKey, http.StatusNotFound},
		{"GET", "/arena/ui/app.js", "", http.StatusOK},
		{"GET", "/arena/ui/nothing.js", "", http.StatusNotFound},
		{"GET", "/arena/ui", "", http.StatusTemporaryRedirect},
	} {
		client := *s.srv.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		req, _ := http.NewRequest(tc.method, s.srv.URL+tc.path, nil)
		if tc.key != "" {
			req.Header.Set("X-API-Key", tc.key)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s (key %q) = %d, want %d", tc.method, tc.path, tc.key, resp.StatusCode, tc.want)
		}
		if resp.StatusCode == http.StatusUnauthorized && resp.Header.Get("Allow") != "" {
			t.Errorf("%s %s (key %q): a 401 with Allow %q", tc.method, tc.path, tc.key, resp.Header.Get("Allow"))
		}
	}
}
