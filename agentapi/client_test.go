package agentapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/fault"
)

// TestClientErrors: each answer of the contract maps to the error every
// runtime of agentapi agents reports, wrapping arena's sentinels, so that
// errors.Is answers alike on containers and kube.
func TestClientErrors(t *testing.T) {
	answer := func(code int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(code)
			_, _ = w.Write([]byte(body))
		}
	}
	for _, tt := range []struct {
		name    string
		h       http.HandlerFunc
		is      error
		message string
	}{
		{"501", answer(501, `{"error":"unknown fault kind"}`), fault.ErrUnsupported,
			"agent worker-1: tool_timeout is not supported by this runtime: the agent answered unknown fault kind"},
		{"404 without a body", answer(404, ``), fault.ErrUnsupported,
			"agent worker-1: tool_timeout is not supported by this runtime: the agent answered 404 Not Found"},
		{"405", answer(405, ``), fault.ErrUnsupported, "agent worker-1: tool_timeout is not supported by this runtime"},
		{"409", answer(409, `{"error":"paused"}`), fault.ErrCannotLand, "agent worker-1: tool_timeout: fault cannot land: paused"},
		{"500", answer(500, `{"error":"disk full"}`), nil, "agent worker-1: tool_timeout: disk full"},
		{"proxy", answer(503, `{"kind":"Status","apiVersion":"v1","message":"no endpoints"}`), agentapi.ErrOutOfReach,
			"agent worker-1: POST /faults: control endpoint out of reach: 503 no endpoints"},
		{"200 not JSON", answer(200, `ok`), nil, "agent worker-1: tool_timeout: invalid character"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.h)
			defer srv.Close()
			c := agentapi.Client{HTTP: srv.Client(), URL: srv.URL, Agent: "worker-1", Foreign: func(code int, body []byte) (string, bool) {
				if strings.Contains(string(body), `"kind":"Status"`) {
					return "503 no endpoints", true
				}
				return "", false
			}}
			_, err := c.Land(context.Background(), agentapi.Fault{Kind: agentapi.KindToolTimeout})
			if err == nil || !strings.HasPrefix(err.Error(), tt.message) {
				t.Errorf("Land = %v, want %q", err, tt.message)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Land = %v, want it to wrap %v", err, tt.is)
			}
			for _, other := range []error{fault.ErrUnsupported, fault.ErrCannotLand, agentapi.ErrOutOfReach} {
				if other != tt.is && errors.Is(err, other) {
					t.Errorf("Land = %v, which also wraps %v", err, other)
				}
			}
		})
	}
}

// TestClientOutOfReach: no answer is ErrOutOfReach with what happened; the
// answer was lost, not given by something in the agent's place.
func TestClientOutOfReach(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	c := agentapi.Client{HTTP: &http.Client{Timeout: 50 * time.Millisecond}, URL: srv.URL, Agent: "worker-1"}
	_, err := c.Lift(context.Background(), agentapi.KindToolTimeout)
	var reach *agentapi.ReachError
	if !errors.As(err, &reach) || reach.Foreign || reach.Reason != "no answer within 50ms" || !errors.Is(err, agentapi.ErrOutOfReach) {
		t.Fatalf("Lift with no answer = %v, want a ReachError: no answer within 50ms", err)
	}
	if want := "agent worker-1: DELETE /faults/tool_timeout: control endpoint out of reach: no answer within 50ms"; err.Error() != want {
		t.Errorf("Lift = %q, want %q", err, want)
	}
}

// TestClientHealth: 200 and 503 are verdicts, 404 an agent without the
// endpoint, anything else an error.
func TestClientHealth(t *testing.T) {
	for _, tt := range []struct {
		code int
		body string
		want agentapi.Health
		err  string
	}{
		{200, ``, agentapi.Health{Healthy: true}, ""},
		{503, `{"healthy":false,"reason":"quorum lost"}`, agentapi.Health{Reason: "quorum lost"}, ""},
		{503, `down`, agentapi.Health{Reason: "503 Service Unavailable"}, ""},
		{404, ``, agentapi.Health{}, "agent a: GET /healthz is not supported by this runtime: the agent answered 404 Not Found"},
		{500, ``, agentapi.Health{}, "agent a: health answered 500 Internal Server Error"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/healthz" {
				t.Errorf("asked %s, want /healthz", r.URL.Path)
			}
			w.WriteHeader(tt.code)
			_, _ = w.Write([]byte(tt.body))
		}))
		h, err := agentapi.Client{URL: srv.URL, Agent: "a"}.Health(context.Background(), "/healthz")
		srv.Close()
		if h != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("%d %s: Health = %+v, %v; want %+v, %q", tt.code, tt.body, h, err, tt.want, tt.err)
		}
	}
}
