package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/ares-arena/arena/agentwire"
	"github.com/ares-arena/arena/sim"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
)

// attempts counts the requests an SDK sends (its retries included).
type attempts struct {
	n    atomic.Int32
	base http.RoundTripper
}

func (a *attempts) RoundTrip(r *http.Request) (*http.Response, error) {
	a.n.Add(1)
	return a.base.RoundTrip(r)
}

// sdkOutcome is what an official SDK returned under a fault.
type sdkOutcome struct {
	errType  string // the Go type of the error, or "ok"
	status   int
	apiType  string // the provider's error type (and code)
	attempts int
	waited   time.Duration // simulated
}

func (o sdkOutcome) String() string {
	return fmt.Sprintf("%s | %d | %s | %d | %v", o.errType, o.status, o.apiType, o.attempts, o.waited)
}

// underFault calls the model once through provider's SDK, defaults kept
// but a 10s request timeout, under f, in simulated time.
func underFault(t *testing.T, p agentwire.Provider, f agentwire.LLMFault, stream bool) sdkOutcome {
	var out sdkOutcome
	synctest.Test(t, func(t *testing.T) {
		w := sim.New(sim.WithSeed(1))
		defer w.Close(context.Background())
		serveNode(t, w, "model", "model", func() (http.Handler, func()) { return &Model{Think: 200 * time.Millisecond}, nil })
		agent, _ := w.AddNode("agent", sim.NodeConfig{Type: "worker"})
		a := agentwire.New()
		count := &attempts{base: a.LLM("agent", p, agent.HTTPTransport())}
		client := &http.Client{Transport: count}
		if f.Error != "" {
			if _, err := a.InjectLLM(context.Background(), "agent", f); err != nil {
				t.Fatal(err)
			}
		}
		ctx := context.Background()
		start := time.Now()
		var err error
		switch p {
		case agentwire.OpenAI:
			c := openai.NewClient(ooption.WithBaseURL("http://model/v1/"), ooption.WithAPIKey("k"), ooption.WithHTTPClient(client),
				ooption.WithRequestTimeout(10*time.Second))
			params := openai.ChatCompletionNewParams{Model: "gpt-scripted", Messages: []openai.ChatCompletionMessageParamUnion{
				openai.UserMessage(`task t1: open a ticket "printer"`)}}
			if stream {
				s := c.Chat.Completions.NewStreaming(ctx, params)
				var acc openai.ChatCompletionAccumulator
				for s.Next() {
					acc.AddChunk(s.Current())
				}
				err = s.Err()
				s.Close()
				if err == nil && len(acc.Choices) == 0 {
					err = errors.New("no choices")
				}
			} else {
				_, err = c.Chat.Completions.New(ctx, params)
			}
		case agentwire.Anthropic:
			c := anthropic.NewClient(aoption.WithBaseURL("http://model/"), aoption.WithAPIKey("k"), aoption.WithHTTPClient(client),
				aoption.WithRequestTimeout(10*time.Second))
			params := anthropic.MessageNewParams{Model: "claude-scripted", MaxTokens: 100, Messages: []anthropic.MessageParam{
				anthropic.NewUserMessage(anthropic.NewTextBlock(`task t1: open a ticket "printer"`))}}
			if stream {
				s := c.Messages.NewStreaming(ctx, params)
				var msg anthropic.Message
				for s.Next() {
					if aerr := msg.Accumulate(s.Current()); aerr != nil && err == nil {
						err = aerr
					}
				}
				if err == nil {
					err = s.Err()
				}
				s.Close()
				if err == nil && msg.StopReason == "" {
					err = errors.New("the stream ended without message_stop")
				}
			} else {
				_, err = c.Messages.New(ctx, params)
			}
		}
		out = sdkOutcome{errType: "ok", attempts: int(count.n.Load()), waited: time.Since(start)}
		var oe *openai.Error
		var ae *anthropic.Error
		switch {
		case errors.As(err, &oe):
			out.errType, out.status, out.apiType = "*openai.Error", oe.StatusCode, oe.Type
			if oe.Code != "" {
				out.apiType += " " + oe.Code
			}
		case errors.As(err, &ae):
			out.errType, out.status, out.apiType = "*anthropic.Error", ae.StatusCode, string(ae.Type())
			if c := ae.ErrorCode(); c != "" {
				out.apiType += " " + string(c)
			}
		case err != nil:
			out.errType = shortErr(err)
		}
	})
	return out
}

// shortErr names an error that is not the API's: its kind, not its text.
func shortErr(err error) string {
	switch s := err.Error(); {
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	case strings.HasPrefix(s, "error parsing response json"):
		return "response JSON error"
	case errors.As(err, new(*json.SyntaxError)):
		return "JSON syntax error"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "io.ErrUnexpectedEOF"
	default:
		return s
	}
}

// TestSDKsUnderLLMFaults is the table of what the official SDKs return under
// each model fault, with their default retries (2), in simulated time.
func TestSDKsUnderLLMFaults(t *testing.T) {
	type want struct {
		errType  string
		status   int
		apiType  string
		attempts int
		waitMin  time.Duration
		waitMax  time.Duration
	}
	const think = 200 * time.Millisecond
	backoff2 := [2]time.Duration{375*time.Millisecond + 750*time.Millisecond, 1500 * time.Millisecond} // 0.5s, 1s, less up to 25% jitter
	rows := []struct {
		f      agentwire.LLMFault
		stream bool
		openai want
		anthro want
	}{
		{agentwire.LLMFault{}, false, want{"ok", 0, "", 1, think, think}, want{"ok", 0, "", 1, think, think}},
		{agentwire.LLMFault{Error: agentwire.ErrRateLimit}, false,
			want{"*openai.Error", 429, "requests rate_limit_exceeded", 3, 2 * time.Second, 2 * time.Second},
			want{"*anthropic.Error", 429, "rate_limit_error", 3, 2 * time.Second, 2 * time.Second}},
		{agentwire.LLMFault{Error: agentwire.ErrQuota}, false,
			want{"*openai.Error", 429, "insufficient_quota insufficient_quota", 3, backoff2[0], backoff2[1]},
			want{"*anthropic.Error", 429, "rate_limit_error enforced_spend_limit_reached", 3, backoff2[0], backoff2[1]}},
		{agentwire.LLMFault{Error: agentwire.ErrOverloaded}, false,
			want{"*openai.Error", 503, "server_error", 3, backoff2[0], backoff2[1]},
			want{"*anthropic.Error", 529, "overloaded_error", 3, backoff2[0], backoff2[1]}},
		{agentwire.LLMFault{Error: agentwire.ErrServerError}, false,
			want{"*openai.Error", 500, "server_error", 3, backoff2[0], backoff2[1]},
			want{"*anthropic.Error", 500, "api_error", 3, backoff2[0], backoff2[1]}},
		{agentwire.LLMFault{Error: agentwire.ErrModelNotFound}, false,
			want{"*openai.Error", 404, "invalid_request_error model_not_found", 1, 0, 0},
			want{"*anthropic.Error", 404, "not_found_error", 1, 0, 0}},
		{agentwire.LLMFault{Error: agentwire.ErrInvalidResponse}, false,
			want{"response JSON error", 0, "", 1, 0, 0}, want{"response JSON error", 0, "", 1, 0, 0}},
		// openai-go returns at its own request timeout; anthropic-sdk-go retries it.
		{agentwire.LLMFault{Error: agentwire.ErrTimeout}, false,
			want{"context.DeadlineExceeded", 0, "", 1, 10 * time.Second, 10 * time.Second},
			want{"context.DeadlineExceeded", 0, "", 3, 30*time.Second + backoff2[0], 30*time.Second + backoff2[1]}},
		{agentwire.LLMFault{Error: agentwire.ErrStreamCut, AfterEvents: 2}, true,
			want{"io.ErrUnexpectedEOF", 0, "", 1, think, think + time.Second}, want{"io.ErrUnexpectedEOF", 0, "", 1, think, think + time.Second}},
		{agentwire.LLMFault{Error: agentwire.ErrStreamStall, AfterEvents: 2, Delay: time.Minute}, true,
			want{"context.DeadlineExceeded", 0, "", 1, 10 * time.Second, 10 * time.Second}, want{"context.DeadlineExceeded", 0, "", 1, 10 * time.Second, 10 * time.Second}},
		{agentwire.LLMFault{Error: agentwire.ErrMalformedEvent, AfterEvents: 2}, true,
			want{"JSON syntax error", 0, "", 1, think, think + time.Second}, want{"JSON syntax error", 0, "", 1, think, think + time.Second}},
		{agentwire.LLMFault{Error: agentwire.ErrSlowFirstToken, Delay: 5 * time.Second}, true,
			want{"ok", 0, "", 1, 5 * time.Second, 6 * time.Second}, want{"ok", 0, "", 1, 5 * time.Second, 6 * time.Second}},
	}
	var table []string
	for _, row := range rows {
		for _, p := range agentwire.Providers() {
			w := row.openai
			if p == agentwire.Anthropic {
				w = row.anthro
			}
			name := string(row.f.Error)
			if name == "" {
				name = "none"
			}
			t.Run(name+"/"+string(p), func(t *testing.T) {
				got := underFault(t, p, row.f, row.stream)
				table = append(table, fmt.Sprintf("| %s | %s | %v", name, p, got))
				if got.errType != w.errType || got.status != w.status || got.apiType != w.apiType || got.attempts != w.attempts ||
					got.waited < w.waitMin || got.waited > w.waitMax {
					t.Errorf("got %v\nwant %s | %d | %s | %d | %v–%v", got, w.errType, w.status, w.apiType, w.attempts, w.waitMin, w.waitMax)
				}
			})
		}
	}
	t.Logf("fault | provider | SDK error | status | API error type (code) | attempts | waited (simulated)\n%s", strings.Join(table, "\n"))
}
