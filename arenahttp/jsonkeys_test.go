package arenahttp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestInvalidUTF8IsRefused: a string of a body that is not valid UTF-8 (a
// byte, or an escape of half a surrogate pair) was stored with U+FFFD in
// its place, as an action's ID; it is a 400 naming the field.
func TestInvalidUTF8IsRefused(t *testing.T) {
	s := newSystem(t, systemConfig{handlerOpts: []Option{WithAPIKey(testKey)}})
	for _, tc := range []struct{ path, body, field string }{
		{"/arena/agent/worker-1/pause", "{\"id\":\"p-\xff\"}", "id"},
		{"/arena/agent/worker-1/pause", `{"id":"p-\ud800"}`, "id"},
		{"/arena/agent/worker-1/pause", `{"id":"p-\udc00\ud800"}`, "id"},
		{"/arena/fault/pause_agent", "{\"target_id\":\"worker-1\",\"id\":\"p\xc3\"}", "id"},
		{"/arena/edge/remove", "{\"source_id\":\"orchestrator-0\",\"target_id\":\"worker-\xe2\x80\"}", "target_id"},
		{"/arena/agent/worker-1/pause", "{\"metadata\":{\"duration\":\"1s\",\"note\":\"\xff\"}}", "metadata.note"},
		{"/arena/agent/worker-1/pause", "{\"metadata\":{\"\xff\":1}}", "metadata"},
		{"/arena/session", "{\"key\":\"\xff\"}", "key"},
	} {
		r := s.do(t, request{method: "POST", path: tc.path, body: tc.body, key: testKey})
		if e := errorOf(t, r); r.code != http.StatusBadRequest || e.Field != tc.field || !strings.Contains(e.Error, "UTF-8") {
			t.Errorf("POST %s %q = %d %+v, want 400 naming %s", tc.path, tc.body, r.code, e, tc.field)
		}
	}
	if n := s.svc.Stats().Total; n != 0 {
		t.Errorf("%d actions reached the service", n)
	}
	// U+FFFD sent as such, and a surrogate pair, are characters.
	for _, id := range []string{"p-\ufffd", `p-\ufffd`, `p-\ud83d\ude00`} {
		r := s.do(t, request{method: "POST", path: "/arena/agent/nobody/kill", body: `{"id":"` + id + `"}`, key: testKey})
		if r.code != http.StatusOK {
			t.Errorf(`POST {"id":%q} = %d %s, want 200`, id, r.code, r.body)
		}
	}
}

func TestValidText(t *testing.T) {
	for raw, want := range map[string]bool{
		`"plain"`:          true,
		"\"caf\xc3\xa9\"":  true,
		`"\ufffd"`:         true, // U+FFFD sent as such
		"\"\xef\xbf\xbd\"": true,
		`"\ud83d\ude00"`:   true, // a surrogate pair
		`"\\ud800"`:        true, // a backslash, then text
		`"\\\ud83d\ude00"`: true,
		`"\ud800"`:         false,
		`"\udc00"`:         false,
		`"\ud800\u0041"`:   false,
		`"\ud800\ud800"`:   false,
		`"a\ud83d"`:        false,
		"\"\xff\"":         false,
		"\"\xed\xa0\x80\"": false, // a surrogate in UTF-8 bytes
		"\"\xc3\"":         false,
		` , "\ud800" `:     false,
	} {
		var s string
		if err := json.Unmarshal([]byte(strings.Trim(raw, " ,")), &s); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := validText(s, []byte(raw)); got != want {
			t.Errorf("validText(%q, %s) = %v, want %v", s, raw, got, want)
		}
	}
}
