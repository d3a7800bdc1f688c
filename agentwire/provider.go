package agentwire

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Provider is the wire protocol of a model API: which status, error body
// and headers a fault answers with.
type Provider string

// The providers whose wire protocol agentwire speaks.
const (
	OpenAI    Provider = "openai"    // api.openai.com: chat completions, responses
	Anthropic Provider = "anthropic" // api.anthropic.com: messages
)

// Providers lists the providers in documentation order.
func Providers() []Provider { return []Provider{OpenAI, Anthropic} }

func (p Provider) valid() bool { return p == OpenAI || p == Anthropic }

// answer is a whole HTTP answer a fault gives instead of the model's.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// requestID numbers the answers a fault makes up, so that each carries an
// ID of the provider's form, as every real answer does.
func requestID(p Provider, n uint64) string {
	if p == Anthropic {
		return fmt.Sprintf("req_arena%017d", n)
	}
	return fmt.Sprintf("req_arena%023d", n)
}

// errorAnswer is provider p's answer for err, from its documented error
// formats:
//
//   - OpenAI: {"error": {"message", "type", "param", "code"}} with
//     x-request-id, and on a 429 retry-after and the x-ratelimit-* headers.
//   - Anthropic: {"type": "error", "error": {"type", "message"},
//     "request_id"} with request-id, and on a 429 retry-after and the
//     anthropic-ratelimit-* headers.
//
// retryAfter is the 429's retry-after, in whole seconds (at least 1).
func errorAnswer(p Provider, err ErrorKind, id string, retryAfter time.Duration) answer {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	var status int
	var typ, code, msg string
	switch p {
	case Anthropic:
		h.Set("request-id", id)
		switch err {
		case ErrRateLimit, ErrQuota:
			status, typ, msg = http.StatusTooManyRequests, "rate_limit_error",
				"This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."
			if err == ErrQuota {
				code, msg = "enforced_spend_limit_reached", "You have reached your specified API usage limits. You will regain access on the first day of next month at 00:00 UTC."
			} else {
				rateLimitHeaders(h, p, retryAfter)
			}
		case ErrOverloaded:
			status, typ, msg = 529, "overloaded_error", "Overloaded"
		case ErrServerError:
			status, typ, msg = http.StatusInternalServerError, "api_error", "Internal server error"
		case ErrModelNotFound:
			status, typ, msg = http.StatusNotFound, "not_found_error", "model: not found"
		}
		e := map[string]any{"type": typ, "message": msg}
		if code != "" {
			e["details"] = map[string]any{"error_code": code}
		}
		return answer{status, h, mustJSON(map[string]any{"type": "error", "error": e, "request_id": id})}
	default:
		h.Set("x-request-id", id)
		var param any
		switch err {
		case ErrRateLimit:
			status, typ, code = http.StatusTooManyRequests, "requests", "rate_limit_exceeded"
			msg = fmt.Sprintf("Rate limit reached for requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in %s.", retryAfterOf(retryAfter))
			rateLimitHeaders(h, p, retryAfter)
		case ErrQuota:
			status, typ, code = http.StatusTooManyRequests, "insufficient_quota", "insufficient_quota"
			msg = "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors."
		case ErrOverloaded:
			status, typ, msg = http.StatusServiceUnavailable, "server_error", "The engine is currently overloaded, please try again later."
		case ErrServerError:
			status, typ, msg = http.StatusInternalServerError, "server_error", "The server had an error while processing your request. Sorry about that!"
		case ErrModelNotFound:
			status, typ, code, param = http.StatusNotFound, "invalid_request_error", "model_not_found", "model"
			msg = "The model does not exist or you do not have access to it."
		}
		var c any
		if code != "" {
			c = code
		}
		return answer{status, h, mustJSON(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": param, "code": c}})}
	}
}

// rateLimitHeaders are a 429's: retry-after, and the provider's rate limit
// state (none left of the requests' limit).
func rateLimitHeaders(h http.Header, p Provider, retryAfter time.Duration) {
	secs := retryAfterSeconds(retryAfter)
	h.Set("retry-after", strconv.Itoa(secs))
	switch p {
	case Anthropic:
		reset := time.Now().UTC().Add(time.Duration(secs) * time.Second).Format(time.RFC3339)
		h.Set("anthropic-ratelimit-requests-limit", "50")
		h.Set("anthropic-ratelimit-requests-remaining", "0")
		h.Set("anthropic-ratelimit-requests-reset", reset)
	default:
		h.Set("x-ratelimit-limit-requests", "500")
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("x-ratelimit-reset-requests", retryAfterOf(retryAfter))
		h.Set("x-ratelimit-limit-tokens", "30000")
		h.Set("x-ratelimit-remaining-tokens", "30000")
		h.Set("x-ratelimit-reset-tokens", "0s")
	}
}

func retryAfterSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// retryAfterOf writes d as OpenAI's reset headers do: "1s", "120ms", "6m0s".
func retryAfterOf(d time.Duration) string {
	if d <= 0 {
		d = time.Second
	}
	return d.String()
}

// invalidAnswer is a 200 whose body is not the answer the API documents:
// JSON cut short, as a proxy that gave up mid-body leaves it.
func invalidAnswer(p Provider, id string) answer {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if p == Anthropic {
		h.Set("request-id", id)
		return answer{http.StatusOK, h, []byte(`{"id":"msg_arena","type":"message","role":"assistant","content":[{"type":"text","text":"`)}
	}
	h.Set("x-request-id", id)
	return answer{http.StatusOK, h, []byte(`{"id":"chatcmpl-arena","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`)}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
