package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ares-arena/arena/internal/chromium"
)

// tab is one headless Chromium tab, driven over the DevTools protocol, with
// a record of every request it sent.
type tab struct {
	t   *testing.T
	ctx context.Context

	mu     sync.Mutex
	reqs   map[network.RequestID]*sent
	log    []*sent  // in the order sent
	errors []string // exceptions and console errors of the page
}

// sent is one request of the tab, as the browser reports it.
type sent struct {
	url, method string
	status      int64             // 0: no answer seen
	headers     map[string]string // as sent on the wire (from the extra info), lower-case names
	blocked     []string          // cookies the browser did not send, with why
}

// openTab starts Chromium (flags of internal/chromium, a fresh profile) and
// opens a tab. Both end with the test.
func openTab(t *testing.T, bin string) *tab {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(bin), chromedp.WindowSize(1280, 1500),
		chromedp.Flag("disable-dev-shm-usage", true)}
	for _, f := range chromium.Flags(filepath.Join(t.TempDir(), "profile")) {
		name, value, ok := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if ok {
			opts = append(opts, chromedp.Flag(name, value))
		} else {
			opts = append(opts, chromedp.Flag(name, true))
		}
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		acancel()
	})
	tb := &tab{t: t, ctx: ctx, reqs: map[network.RequestID]*sent{}}
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start Chromium: %v", err)
	}
	if err := chromedp.Listen(ctx, tb.record); err != nil {
		t.Fatal(err)
	}
	return tb
}

// record keeps what the browser says of each request. It runs on the tab's
// reading goroutine: it only files the facts.
func (tb *tab) record(ev any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	get := func(id network.RequestID) *sent {
		s := tb.reqs[id]
		if s == nil {
			s = &sent{}
			tb.reqs[id] = s
			tb.log = append(tb.log, s)
		}
		return s
	}
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		s := get(e.RequestID)
		s.url, s.method = e.Request.URL, e.Request.Method
	case *network.EventRequestWillBeSentExtraInfo: // before or after requestWillBeSent; once per redirect hop
		s := get(e.RequestID)
		if s.headers == nil {
			s.headers = map[string]string{}
		}
		for k, v := range e.Headers {
			s.headers[strings.ToLower(k)] = fmt.Sprint(v)
		}
		for _, c := range e.AssociatedCookies {
			if len(c.BlockedReasons) > 0 && c.Cookie != nil {
				s.blocked = append(s.blocked, fmt.Sprintf("%s: %v", c.Cookie.Name, c.BlockedReasons))
			}
		}
	case *network.EventResponseReceived:
		s := get(e.RequestID)
		s.status = e.Response.Status
		if s.url == "" { // the browser may report a request's wire headers and answer without announcing it
			s.url = e.Response.URL
		}
	case *runtime.EventExceptionThrown:
		tb.errors = append(tb.errors, (&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error())
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			tb.errors = append(tb.errors, "console.error: "+strings.Join(args, " "))
		}
	}
}

// dest is where the request went: its URL or, for one whose wire headers
// came without its requestWillBeSent (announced later, or never), the host
// they name, as http://host/ ("" if none).
func (s sent) dest() string {
	if s.url != "" {
		return s.url
	}
	for _, h := range []string{"host", ":authority"} {
		if v := s.headers[h]; v != "" {
			return "http://" + v + "/"
		}
	}
	return ""
}

// settled returns what the tab sent so far, once every request the
// browser reported has its URL (requestWillBeSent may come after the
// request's wire headers), or after 2 s with the ones still without.
func (tb *tab) settled() []sent {
	deadline := time.Now().Add(2 * time.Second)
	for {
		reqs := tb.requests()
		if !slices.ContainsFunc(reqs, func(r sent) bool { return r.url == "" }) || time.Now().After(deadline) {
			return reqs
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// requests returns a copy of what the tab sent so far.
func (tb *tab) requests() []sent {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	out := make([]sent, len(tb.log))
	for i, s := range tb.log {
		out[i] = *s
	}
	return out
}

// do runs actions with a deadline.
func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression in the page (awaiting a promise)
// and decodes its value into a T.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := tryEval[T](tb, expr)
	if err != nil {
		tb.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func tryEval[T any](tb *tab, expr string) (T, error) {
	var v T
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string]("(async () => JSON.stringify(await ("+expr+")))()",
		func(p *runtime.EvaluateParams) { p.AwaitPromise = ptr(true) }))
	if err != nil {
		return v, err
	}
	return v, json.Unmarshal([]byte(raw), &v)
}

// waitFor polls a JavaScript condition until it holds, for at most
// timeout; the test fails naming what it waited for, with what the page
// showed of it.
func (tb *tab) waitFor(what string, timeout time.Duration, cond, show string) {
	tb.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := tryEval[bool](tb, cond)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			shown, _ := tryEval[any](tb, show)
			tb.mu.Lock()
			errs := tb.errors
			var last []string
			for _, s := range tb.log[max(0, len(tb.log)-5):] {
				last = append(last, fmt.Sprintf("%s %s %d", s.method, s.url, s.status))
			}
			tb.mu.Unlock()
			tb.t.Fatalf("timed out after %s waiting for %s (%v); the page shows %v; its errors: %q; its last requests: %q", timeout, what, err, shown, errs, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// text is the text of the element with this id.
func (tb *tab) text(id string) string {
	tb.t.Helper()
	return eval[string](tb, "document.getElementById("+quoteJS(id)+").textContent")
}

func quoteJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func ptr[T any](v T) *T { return &v }
