package netfault

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"
)

// Transport returns a RoundTripper for the HTTP calls of agent from: each
// request goes to the agent its URL's host names (WithAgent) through base
// (http.DefaultTransport when nil), under the faults of both ends:
//
//   - network_latency: the request waits its leg's share before base is
//     called, the response its share before RoundTrip returns (see
//     fault.Latency's direction; both: half each way), so a round trip
//     takes latency longer;
//   - network_bandwidth: the request body takes its length/rate before
//     base is called (a body of unknown length, ContentLength -1 or 0
//     with a Body as for a pipe or a file, is paced as base reads it);
//     the response body streams through, each chunk read taking its
//     length/rate;
//   - connection_reset: the call fails with a *ResetError at once, or when
//     it has lasted after: before the response (while base waits for the
//     callee, too), or in the middle of its body (while base waits for the
//     next chunk, too); a reset on the response leg comes after the callee
//     did the work, as on a real network;
//   - network_partition: the call is refused at once (a *RefusedError),
//     before it reaches base; a call under way when the partition lands is
//     reset then, as under a reset at once;
//   - http_error: a request to the agent under a failed route is answered
//     with the route's status by the network, without reaching the agent.
//
// Waits are on the network's clock, by arena's network rules; each ends
// early when the faults change (a lift ends it, a new fault lengthens it),
// with the request's context (its deadline), when the response body is
// closed, and at the Network's Close. A call under no fault waits
// nothing, and a fault that lands while it runs still acts on it: a reset
// or a partition cuts it when due by cancelling the context of the request
// base sees (a base that does not heed it, such as HandlerTransport, is
// cut when it returns).
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
	n, to := t.n, t.n.agentOf(req.URL.Hostname())
	status := n.failedStatus(to, req.URL.Path)
	closeBody := func() {
		if req.Body != nil {
			req.Body.Close()
		}
	}
	if err := n.refused(t.from, to); err != nil {
		closeBody()
		return nil, err
	}
	// The call is a tie of the network (open.go): a reset or a partition
	// cancels its context when due, which ends base's wait for the callee
	// or for the next chunk of the body.
	ctx, cancel := context.WithCancel(req.Context())
	call := n.openTie(t.from, to, cancel)
	call.schedule()
	start := call.opened
	fail := func(err error) (*http.Response, error) {
		call.close()
		cancel()
		return nil, call.errOr(err)
	}
	size := max(req.ContentLength, 0) // 0 for a body of unknown length: paced as it is read
	if err := n.step(ctx, t.from, to, start, requestLeg, size); err != nil {
		closeBody()
		return fail(err)
	}
	var resp *http.Response
	if status != 0 {
		closeBody()
		body := []byte(http.StatusText(status) + " (netfault http_error)\n")
		resp = &http.Response{
			Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:  http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
			Body:    io.NopCloser(bytes.NewReader(body)),
			Request: req, ContentLength: int64(len(body)),
		}
	} else {
		out := req.WithContext(ctx)
		if unknownLength(req) {
			out = req.Clone(ctx)
			out.Body = &pacedBody{rc: req.Body, t: t, to: to, ctx: ctx, start: start}
		}
		var err error
		if resp, err = t.base.RoundTrip(out); err != nil {
			return fail(err)
		}
		if resp.Request == out {
			resp.Request = req // not the call's context, which ends with the body
		}
		if call.isReset() { // while base did not heed the context
			resp.Body.Close()
			return fail(nil)
		}
	}
	if err := n.step(ctx, t.from, to, start, responseLeg, 0); err != nil {
		resp.Body.Close()
		return fail(err)
	}
	resp.Body = &pacedBody{rc: resp.Body, t: t, to: to, ctx: ctx, cancel: cancel, call: call, start: start}
	return resp, nil
}

// unknownLength reports whether req has a body of unknown length: a
// ContentLength of -1, or of 0 with a Body (http.NewRequest gives that to
// a pipe or a file: a streamed upload), as net/http reads a client's
// request.
func unknownLength(req *http.Request) bool {
	return req.Body != nil && req.Body != http.NoBody && req.ContentLength <= 0
}

// pacedBody is a body that streams under the link's faults: each chunk
// read waits its transfer, and a reset of the call cuts it. Close ends a
// wait under way.
type pacedBody struct {
	rc     io.ReadCloser
	t      *transport
	to     string
	ctx    context.Context
	cancel context.CancelFunc // nil: the request's body, closed by base
	call   *tie               // nil: the request's body
	start  time.Time

	mu  sync.Mutex
	err error // the reset or the error that ended it, for good
}

func (b *pacedBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	err := b.err
	b.mu.Unlock()
	if err == nil && b.call != nil && b.call.isReset() {
		err = b.end(b.call.errOr(nil))
	}
	if err != nil {
		return 0, err
	}
	k, rerr := b.rc.Read(p)
	if k == 0 && rerr != nil && rerr != io.EOF && b.call != nil {
		rerr = b.call.errOr(rerr) // a reset that cancelled the call ended base's wait
	}
	if k > 0 {
		if err := b.t.n.step(b.ctx, b.t.from, b.to, b.start, noLeg, int64(k)); err != nil {
			if b.call != nil {
				err = b.call.errOr(err)
			}
			return 0, b.end(err)
		}
	}
	if rerr != nil && b.call != nil { // the call is over: EOF, or an error that ends it
		b.call.close()
		b.cancel()
	}
	return k, rerr
}

// end ends the body for good with err; under a reset the rest of it is
// lost with the connection.
func (b *pacedBody) end(err error) error {
	var reset *ResetError
	if errors.As(err, &reset) {
		b.rc.Close()
	}
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
	if b.call != nil {
		b.call.close()
		b.cancel()
	}
	return err
}

func (b *pacedBody) Close() error {
	if b.call != nil {
		b.call.close()
	}
	err := b.rc.Close() // before the cancel: base sees an early close, not a cancelled request
	if b.cancel != nil {
		b.cancel()
	}
	return err
}

// HandlerTransport serves each request with h on the caller's goroutine,
// with no network in between (h may Sleep on the network too). It closes
// the request's body once h returns, as a RoundTripper must.
func HandlerTransport(h http.Handler) http.RoundTripper { return handlerTransport{h} }

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	if req.Body != nil {
		defer req.Body.Close()
	}
	t.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
