package agentwire

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// roundTrip is a base transport made of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// calls counts what reached the base.
type calls struct {
	mu   sync.Mutex
	n    int
	body []string
}

func (c *calls) add(r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		c.body = append(c.body, string(b))
	}
}

func (c *calls) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// okModel answers every call with a JSON 200.
func okModel(c *calls) http.RoundTripper {
	return roundTrip(func(r *http.Request) (*http.Response, error) {
		c.add(r)
		return respond(r, 200, "application/json", `{"ok":true}`), nil
	})
}

func respond(r *http.Request, status int, ctype, body string) *http.Response {
	h := http.Header{}
	h.Set("Content-Type", ctype)
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r, ContentLength: int64(len(body))}
}

func post(t *testing.T, rt http.RoundTripper, ctx context.Context, url, body string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return rt.RoundTrip(req)
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return string(b)
}
