package agentwire

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ares-arena/arena/fault"
)

// TestProviderErrors: each answered kind gets its provider's status, body
// and headers, without reaching the model.
func TestProviderErrors(t *testing.T) {
	type want struct {
		status int
		typ    string // OpenAI error.type / Anthropic error.type
		code   string // OpenAI error.code / Anthropic error.details.error_code
	}
	cases := map[Provider]map[ErrorKind]want{
		OpenAI: {
			ErrRateLimit:     {429, "requests", "rate_limit_exceeded"},
			ErrQuota:         {429, "insufficient_quota", "insufficient_quota"},
			ErrOverloaded:    {503, "server_error", ""},
			ErrServerError:   {500, "server_error", ""},
			ErrModelNotFound: {404, "invalid_request_error", "model_not_found"},
		},
		Anthropic: {
			ErrRateLimit:     {429, "rate_limit_error", ""},
			ErrQuota:         {429, "rate_limit_error", "enforced_spend_limit_reached"},
			ErrOverloaded:    {529, "overloaded_error", ""},
			ErrServerError:   {500, "api_error", ""},
			ErrModelNotFound: {404, "not_found_error", ""},
		},
	}
	for p, kinds := range cases {
		for kind, w := range kinds {
			t.Run(string(p)+"/"+string(kind), func(t *testing.T) {
				a := New()
				var c calls
				rt := a.LLM("w1", p, okModel(&c))
				lift, err := a.InjectLLM(context.Background(), "w1", LLMFault{Error: kind, RetryAfter: 2 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				res, err := post(t, rt, context.Background(), "https://api.example/v1/messages", `{}`)
				if err != nil {
					t.Fatal(err)
				}
				body := readAll(t, res)
				if res.StatusCode != w.status || c.count() != 0 {
					t.Fatalf("status %d, model called %d times; want %d without calling it", res.StatusCode, c.count(), w.status)
				}
				var typ, code, reqID string
				if p == Anthropic {
					var e struct {
						Type  string `json:"type"`
						Error struct {
							Type    string `json:"type"`
							Message string `json:"message"`
							Details struct {
								ErrorCode string `json:"error_code"`
							} `json:"details"`
						} `json:"error"`
						RequestID string `json:"request_id"`
					}
					if err := json.Unmarshal([]byte(body), &e); err != nil || e.Type != "error" || e.Error.Message == "" {
						t.Fatalf("body %s: %v; want Anthropic's error shape", body, err)
					}
					typ, code, reqID = e.Error.Type, e.Error.Details.ErrorCode, e.RequestID
					if res.Header.Get("request-id") != reqID || !strings.HasPrefix(reqID, "req_") {
						t.Errorf("request-id header %q, body %q: want the same req_ ID", res.Header.Get("request-id"), reqID)
					}
				} else {
					var e struct {
						Error struct {
							Message string  `json:"message"`
							Type    string  `json:"type"`
							Code    *string `json:"code"`
						} `json:"error"`
					}
					if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" {
						t.Fatalf("body %s: %v; want OpenAI's error shape", body, err)
					}
					typ = e.Error.Type
					if e.Error.Code != nil {
						code = *e.Error.Code
					}
					if !strings.HasPrefix(res.Header.Get("x-request-id"), "req_") {
						t.Errorf("x-request-id %q", res.Header.Get("x-request-id"))
					}
				}
				if typ != w.typ || code != w.code {
					t.Errorf("type %q code %q, want %q %q", typ, code, w.typ, w.code)
				}
				if kind == ErrRateLimit {
					if got := res.Header.Get("retry-after"); got != "2" {
						t.Errorf("retry-after %q, want 2", got)
					}
					limit := "x-ratelimit-remaining-requests"
					if p == Anthropic {
						limit = "anthropic-ratelimit-requests-remaining"
					}
					if res.Header.Get(limit) != "0" {
						t.Errorf("%s = %q, want 0", limit, res.Header.Get(limit))
					}
				}
				lift(context.Background())
				res, err = post(t, rt, context.Background(), "https://api.example/v1/messages", `{}`)
				if err != nil || res.StatusCode != 200 || readAll(t, res) != `{"ok":true}` || c.count() != 1 {
					t.Errorf("after the lift: %v %v, model called %d times; want the model's answer", res, err, c.count())
				}
			})
		}
	}
}

// TestLLMFaultScope: provider, route and rate pick the calls hit; the
// latest fault is consulted first.
func TestLLMFaultScope(t *testing.T) {
	ctx := context.Background()
	a := New()
	var c calls
	oa, an := a.LLM("w1", OpenAI, okModel(&c)), a.LLM("w1", Anthropic, okModel(&c))
	if _, err := a.InjectLLM(ctx, "w1", LLMFault{Error: ErrServerError, Provider: OpenAI, Route: "/v1/chat", Rate: 0.25}); err != nil {
		t.Fatal(err)
	}
	var hit []int
	for i := 1; i <= 8; i++ {
		res, err := post(t, oa, ctx, "https://api.example/v1/chat/completions", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if readAll(t, res); res.StatusCode == 500 {
			hit = append(hit, i)
		}
	}
	if len(hit) != 2 || hit[0] != 4 || hit[1] != 8 {
		t.Errorf("rate 0.25 hit calls %v, want [4 8]", hit)
	}
	for _, tc := range []struct {
		rt   http.RoundTripper
		path string
	}{{oa, "/v1/embeddings"}, {oa, "/v1/chatter"}, {an, "/v1/chat/completions"}} {
		for range 4 {
			res, err := post(t, tc.rt, ctx, "https://api.example"+tc.path, `{}`)
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("%s: %v %v, want outside the fault", tc.path, res.StatusCode, err)
			}
			readAll(t, res)
		}
	}
	// A later fault covers the first.
	if _, err := a.InjectLLM(ctx, "w1", LLMFault{Error: ErrOverloaded}); err != nil {
		t.Fatal(err)
	}
	res, _ := post(t, an, ctx, "https://api.example/v1/messages", `{}`)
	if readAll(t, res); res.StatusCode != 529 {
		t.Errorf("status %d, want 529 from the later fault", res.StatusCode)
	}
	if h := a.Hits("w1"); h["llm:server_error"] != 2 || h["llm:overloaded"] != 1 {
		t.Errorf("hits %v", h)
	}
}

func TestLLMFaultRefusals(t *testing.T) {
	ctx := context.Background()
	a := New()
	a.MCP("tools-only", nil)
	for _, tc := range []struct {
		agent string
		f     LLMFault
		want  string
	}{
		{"w9", LLMFault{Error: ErrRateLimit}, `"w9"`},
		{"tools-only", LLMFault{Error: ErrRateLimit}, "no model client"},
		{"tools-only", LLMFault{Error: "explode"}, `error "explode"`},
		{"tools-only", LLMFault{Error: ErrRateLimit, Provider: "gemini"}, `provider "gemini"`},
		{"tools-only", LLMFault{Error: ErrRateLimit, Rate: 2}, "rate 2"},
		{"tools-only", LLMFault{Error: ErrRateLimit, Route: "v1"}, `route "v1"`},
	} {
		_, err := a.InjectLLM(ctx, tc.agent, tc.f)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("InjectLLM(%s, %+v) = %v, want an error naming %s", tc.agent, tc.f, err, tc.want)
		}
	}
	if _, err := a.InjectLLM(ctx, "w9", LLMFault{Error: ErrRateLimit}); !errors.Is(err, fault.ErrNoAgent) {
		t.Errorf("unknown agent: %v, want fault.ErrNoAgent", err)
	}
}

// TestLLMTimeout: the call waits for the caller's deadline; a lift lets a
// held call on to the model.
func TestLLMTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		var c calls
		rt := a.LLM("w1", OpenAI, okModel(&c))
		lift, err := a.InjectLLMFailure(context.Background(), "w1", fault.LLMTimeout)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		start := time.Now()
		_, err = post(t, rt, ctx, "https://api.example/v1/chat/completions", `{}`)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 10*time.Minute || c.count() != 0 {
			t.Errorf("%v after %v, model called %d; want the caller's deadline after 10m", err, time.Since(start), c.count())
		}
		done := make(chan *http.Response)
		go func() {
			res, _ := post(t, rt, context.Background(), "https://api.example/v1/chat/completions", `{}`)
			done <- res
		}()
		time.Sleep(time.Hour)
		synctest.Wait()
		lift(context.Background())
		if res := <-done; res == nil || res.StatusCode != 200 || time.Since(start) != 10*time.Minute+time.Hour {
			t.Errorf("held call: %v, want the model's answer once lifted", res)
		} else {
			readAll(t, res)
		}
	})
}

// sseModel streams n events, one per second.
func sseModel(n int) http.RoundTripper {
	return roundTrip(func(r *http.Request) (*http.Response, error) {
		pr, pw := io.Pipe()
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			for i := range n {
				time.Sleep(time.Second)
				if _, err := io.WriteString(pw, "event: delta\ndata: {\"i\":"+string(rune('0'+i))+"}\n\n"); err != nil {
					return
				}
			}
			pw.Close()
		}()
		h := http.Header{}
		h.Set("Content-Type", "text/event-stream")
		go func() {
			select {
			case <-r.Context().Done():
				pw.CloseWithError(r.Context().Err())
			case <-finished:
			}
		}()
		return &http.Response{StatusCode: 200, Header: h, Body: pr, Request: r, ContentLength: -1}, nil
	})
}

// TestStreamFaults: what a streaming answer becomes under each stream
// fault, and when.
func TestStreamFaults(t *testing.T) {
	for _, tc := range []struct {
		f       LLMFault
		events  int           // whole events read
		err     error         // then
		elapsed time.Duration // since the call (the model's events wait in the network meanwhile, as on TCP)
		extra   string        // in the body
	}{
		{LLMFault{Error: ErrStreamCut, AfterEvents: 2}, 2, io.ErrUnexpectedEOF, 2 * time.Second, ""},
		{LLMFault{Error: ErrStreamStall, AfterEvents: 1, Delay: time.Minute}, 4, nil, time.Minute + 3*time.Second, ""},
		{LLMFault{Error: ErrMalformedEvent, AfterEvents: 1}, 5, nil, 4 * time.Second, `"text":"`},
		{LLMFault{Error: ErrSlowFirstToken, Delay: 20 * time.Second}, 4, nil, 23 * time.Second, ""},
	} {
		t.Run(string(tc.f.Error), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := New()
				rt := a.LLM("w1", Anthropic, sseModel(4))
				if _, err := a.InjectLLM(context.Background(), "w1", tc.f); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				res, err := post(t, rt, context.Background(), "https://api.example/v1/messages", `{"stream":true}`)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				if got := strings.Count(string(body), "\n\n"); got != tc.events || !errors.Is(err, tc.err) && (err != nil || tc.err != nil) {
					t.Errorf("%d events then %v, want %d then %v:\n%s", got, err, tc.events, tc.err, body)
				}
				if time.Since(start) != tc.elapsed {
					t.Errorf("took %v, want %v", time.Since(start), tc.elapsed)
				}
				if !strings.Contains(string(body), tc.extra) {
					t.Errorf("body lacks %q:\n%s", tc.extra, body)
				}
				time.Sleep(time.Minute) // the model's writer sees the cut and ends
			})
		})
	}
}

// TestStallEndsWithTheCaller: a stall ends when the caller gives up.
func TestStallEndsWithTheCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		rt := a.LLM("w1", OpenAI, sseModel(4))
		a.InjectLLM(context.Background(), "w1", LLMFault{Error: ErrStreamStall, Delay: time.Hour})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		res, err := post(t, rt, ctx, "https://api.example/v1/chat/completions", `{"stream":true}`)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(res.Body)
		res.Body.Close()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 30*time.Second {
			t.Errorf("%v after %v, want the caller's deadline at 30s", err, time.Since(start))
		}
	})
}

// TestStreamFaultsOnWholeAnswers: an answer that is not a stream is cut,
// held or spoiled halfway.
func TestStreamFaultsOnWholeAnswers(t *testing.T) {
	const whole = `{"id":"chatcmpl-1","choices":[{"message":{"content":"hello"}}]}`
	model := roundTrip(func(r *http.Request) (*http.Response, error) { return respond(r, 200, "application/json", whole), nil })
	for kind, check := range map[ErrorKind]func(string, error) bool{
		ErrStreamCut:      func(b string, err error) bool { return b == whole[:len(whole)/2] && err == io.ErrUnexpectedEOF },
		ErrMalformedEvent: func(b string, err error) bool { return err == nil && !json.Valid([]byte(b)) },
		ErrStreamStall:    func(b string, err error) bool { return b == whole && err == nil },
	} {
		synctest.Test(t, func(t *testing.T) {
			a := New()
			rt := a.LLM("w1", OpenAI, model)
			a.InjectLLM(context.Background(), "w1", LLMFault{Error: kind, Delay: time.Minute})
			res, err := post(t, rt, context.Background(), "https://api.example/v1/chat/completions", `{}`)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			if !check(string(b), err) {
				t.Errorf("%s: %q, %v", kind, b, err)
			}
		})
	}
}

func TestInvalidResponse(t *testing.T) {
	for _, p := range Providers() {
		a := New()
		var c calls
		rt := a.LLM("w1", p, okModel(&c))
		a.InjectLLMFailure(context.Background(), "w1", fault.LLMInvalidResponse)
		res, err := post(t, rt, context.Background(), "https://api.example/v1/x", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if b := readAll(t, res); res.StatusCode != 200 || json.Valid([]byte(b)) || c.count() != 0 {
			t.Errorf("%s: %d %q, want a 200 whose JSON is cut short", p, res.StatusCode, b)
		}
	}
}

// TestCloseEndsAStall: closing the body ends a stall under way, as closing
// a body ends a read waiting on its connection.
func TestCloseEndsAStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New()
		rt := a.LLM("w1", OpenAI, sseModel(4))
		a.InjectLLM(context.Background(), "w1", LLMFault{Error: ErrStreamStall, Delay: time.Hour, AfterEvents: 1})
		res, err := post(t, rt, context.Background(), "https://api.example/v1/chat/completions", `{"stream":true}`)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		go func() {
			time.Sleep(10 * time.Second)
			res.Body.Close()
		}()
		_, err = io.ReadAll(res.Body)
		if err == nil || time.Since(start) != 10*time.Second {
			t.Errorf("%v after %v, want the read ended by the Close at 10s", err, time.Since(start))
		}
		time.Sleep(time.Minute)
	})
}
