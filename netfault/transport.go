package netfault

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"
)

// Transport returns a RoundTripper for the HTTP calls of agent from: each
// request goes to the agent its URL's host names (WithAgent) through base
// (http.DefaultTransport when nil), under the faults of both ends:
//
//   - network_latency: the request waits its leg's share before base is
//     called, the response its share after (see arena.Latency's direction;
//     both: half each way), so a round trip takes latency longer;
//   - network_bandwidth: the request body takes ContentLength/rate, the
//     response body (read in full) its length/rate;
//   - connection_reset: the call fails with a *ResetError at once, or when
//     it has lasted after (a reset on the response leg comes after the
//     callee did the work, as on a real network);
//   - http_error: a request to the agent under a failed route is answered
//     with the route's status by the network, without reaching the agent.
//
// Waits are timers (Sleep) that end with the request's context; a call
// under no fault goes straight to base.
func (n *Network) Transport(from string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{n: n, from: from, base: base}
}

type transport struct {
	n    *Network
	from string
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	to := t.n.agentOf(req.URL.Hostname())
	p := t.n.plan(t.from, to, req.URL.Path)
	if p == (plan{resetAt: -1}) {
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	var spent time.Duration
	// wait sleeps d, unless the reset comes first.
	wait := func(d time.Duration) error {
		if p.resetAt >= 0 && spent+d >= p.resetAt {
			if err := t.n.Sleep(ctx, p.resetAt-spent); err != nil {
				return err
			}
			return &ResetError{From: t.from, To: to}
		}
		spent += d
		return t.n.Sleep(ctx, d)
	}
	if err := wait(p.out + transfer(req.ContentLength, p.rate)); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	var resp *http.Response
	if p.status != 0 {
		body := []byte(http.StatusText(p.status) + " (netfault http_error)\n")
		resp = &http.Response{
			Status: strconv.Itoa(p.status) + " " + http.StatusText(p.status), StatusCode: p.status,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:  http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
			Body:    io.NopCloser(bytes.NewReader(body)),
			Request: req, ContentLength: int64(len(body)),
		}
		if req.Body != nil {
			req.Body.Close()
		}
	} else {
		var err error
		if resp, err = t.base.RoundTrip(req); err != nil {
			return nil, err
		}
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("netfault: reading the response: %w", err)
	}
	if err := wait(p.back + transfer(int64(len(b)), p.rate)); err != nil {
		return nil, err
	}
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	return resp, nil
}

// HandlerTransport serves each request with h on the caller's goroutine,
// with no network in between (h may Sleep on the network too).
func HandlerTransport(h http.Handler) http.RoundTripper { return handlerTransport{h} }

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
