package agentwire

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ares-arena/arena/fault"
)

// ErrorKind is what an LLM fault makes of a model call.
type ErrorKind string

// The LLM error kinds. The first five are llm_failure's error types
// (fault.LLMErrorTypes); llm_error (LLMErrorFault) takes every one.
const (
	ErrRateLimit       ErrorKind = "rate_limit"       // 429 with retry-after and the rate limit headers
	ErrOverloaded      ErrorKind = "overloaded"       // Anthropic 529 overloaded_error; OpenAI 503
	ErrTimeout         ErrorKind = "timeout"          // no answer until the caller gives up (or the fault is lifted)
	ErrServerError     ErrorKind = "server_error"     // 500
	ErrInvalidResponse ErrorKind = "invalid_response" // a 200 whose JSON body is cut short
	ErrQuota           ErrorKind = "quota"            // 429 insufficient_quota; Anthropic's spend limit
	ErrModelNotFound   ErrorKind = "model_not_found"  // 404
	ErrStreamCut       ErrorKind = "stream_cut"       // the answer's connection drops after some events
	ErrStreamStall     ErrorKind = "stream_stall"     // the answer stops for Delay after some events
	ErrMalformedEvent  ErrorKind = "malformed_event"  // an event whose data is not JSON, after some events
	ErrSlowFirstToken  ErrorKind = "slow_first_token" // the answer's first byte comes Delay late
)

// ErrorKinds lists the kinds in documentation order.
func ErrorKinds() []ErrorKind {
	return []ErrorKind{ErrRateLimit, ErrOverloaded, ErrTimeout, ErrServerError, ErrInvalidResponse,
		ErrQuota, ErrModelNotFound, ErrStreamCut, ErrStreamStall, ErrMalformedEvent, ErrSlowFirstToken}
}

// answered reports whether the fault answers in the model's place, without
// calling it.
func (k ErrorKind) answered() bool {
	switch k {
	case ErrRateLimit, ErrOverloaded, ErrServerError, ErrInvalidResponse, ErrQuota, ErrModelNotFound:
		return true
	}
	return false
}

// The defaults of an LLMFault's parameters.
const (
	DefaultRetryAfter  = time.Second      // a rate_limit's retry-after
	DefaultStreamDelay = 30 * time.Second // a stream_stall's stall, a slow_first_token's wait
	DefaultAfterEvents = 1                // events a stream fault lets through first
)

// LLMFault is one fault on an agent's model calls: which calls (Provider,
// Route, Rate) get what (Error).
type LLMFault struct {
	Error ErrorKind
	// Provider limits the fault to the agent's clients of that provider
	// (an agent with a fallback provider keeps it); empty: every one.
	Provider Provider
	// Route limits the fault to the calls whose path is under it, such as
	// /v1/messages or /v1/chat/completions; empty: every path.
	Route string
	// Rate is the share of the matching calls hit, in (0, 1]; 0: every
	// call. The calls hit are spread evenly: with 0.25, the 4th, 8th, …
	Rate float64
	// RetryAfter is a rate_limit's retry-after (DefaultRetryAfter).
	RetryAfter time.Duration
	// Delay is a stream_stall's stall and a slow_first_token's wait
	// (DefaultStreamDelay).
	Delay time.Duration
	// AfterEvents is how many events (server-sent events) of a stream a
	// stream fault lets through before it acts; 0 acts at once (llm_error's
	// after_events defaults to DefaultAfterEvents). On an answer that is
	// not a stream the fault acts halfway through its body.
	AfterEvents int
}

func (f LLMFault) withDefaults() LLMFault {
	if f.Rate == 0 {
		f.Rate = 1
	}
	if f.RetryAfter == 0 {
		f.RetryAfter = DefaultRetryAfter
	}
	if f.Delay == 0 {
		f.Delay = DefaultStreamDelay
	}
	if f.AfterEvents < 0 {
		f.AfterEvents = 0
	}
	return f
}

func (f LLMFault) validate() error {
	switch {
	case !slices.Contains(ErrorKinds(), f.Error):
		return fmt.Errorf("error %q: want one of %s", f.Error, kindList())
	case f.Provider != "" && !f.Provider.valid():
		return fmt.Errorf("provider %q: want openai or anthropic", f.Provider)
	case f.Route != "" && !strings.HasPrefix(f.Route, "/"):
		return fmt.Errorf("route %q: want a path starting with /", f.Route)
	case f.Rate < 0 || f.Rate > 1 || f.Rate != f.Rate:
		return fmt.Errorf("rate %v: want a share in (0, 1]", f.Rate)
	case f.RetryAfter < 0 || f.RetryAfter > fault.MaxDelay:
		return fmt.Errorf("retry_after %v: want 0 to %v", f.RetryAfter, fault.MaxDelay)
	case f.Delay < 0 || f.Delay > fault.MaxDelay:
		return fmt.Errorf("delay %v: want 0 to %v", f.Delay, fault.MaxDelay)
	}
	return nil
}

func kindList() string {
	var s []string
	for _, k := range ErrorKinds() {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// llmFault is a landed LLMFault.
type llmFault struct {
	LLMFault
	calls  uint64        // matching calls so far (for Rate)
	lifted chan struct{} // closed by the lift: a held call goes on
}

// hits counts a matching call and reports whether the fault takes it:
// call n (from 1) is hit when floor(n*rate) grows.
func (f *llmFault) hits() bool {
	f.calls++
	n := float64(f.calls)
	return int64(n*f.Rate) > int64((n-1)*f.Rate)
}

func (f *llmFault) matches(p Provider, path string) bool {
	if f.Provider != "" && f.Provider != p {
		return false
	}
	r := strings.TrimSuffix(f.Route, "/")
	return r == "" || path == r || strings.HasPrefix(path, r+"/")
}

// llmTransport is an agent's model client's RoundTripper (Agents.LLM).
type llmTransport struct {
	a        *Agents
	agent    string
	provider Provider
	base     http.RoundTripper
}

func (t llmTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := t.a.slowdown(ctx, t.agent); err != nil {
		closeBody(req)
		return nil, err
	}
	f, n := t.a.llmFaultFor(t.agent, t.provider, req.URL.Path)
	if f == nil {
		return t.base.RoundTrip(req)
	}
	switch {
	case f.Error.answered():
		closeBody(req)
		var ans answer
		if f.Error == ErrInvalidResponse {
			ans = invalidAnswer(t.provider, requestID(t.provider, n))
		} else {
			ans = errorAnswer(t.provider, f.Error, requestID(t.provider, n), f.RetryAfter)
		}
		return ans.response(req), nil
	case f.Error == ErrTimeout:
		select {
		case <-ctx.Done():
			closeBody(req)
			return nil, ctx.Err()
		case <-f.lifted:
			return t.base.RoundTrip(req) // the model answers as the fault ends
		}
	}
	res, err := t.base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	res.Body = newStreamFault(ctx, res.Body, f.LLMFault, t.provider, isEventStream(res))
	res.ContentLength = -1
	res.Header.Del("Content-Length")
	return res, nil
}

func (ans answer) response(req *http.Request) *http.Response {
	h := ans.header.Clone()
	h.Set("Content-Length", fmt.Sprint(len(ans.body)))
	return &http.Response{
		Status:     fmt.Sprintf("%d %s", ans.status, statusText(ans.status)),
		StatusCode: ans.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(strings.NewReader(string(ans.body))),
		ContentLength: int64(len(ans.body)), Request: req,
	}
}

func statusText(code int) string {
	if code == 529 {
		return "Site Overloaded" // not in net/http: Anthropic's own
	}
	return http.StatusText(code)
}

func isEventStream(res *http.Response) bool {
	return strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream")
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}
