package quotes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Client gets quotes from the service, with retries, and from the cache
// when the service fails (or its breaker is open).
type Client struct {
	http       *http.Client
	Tries      int           // tries of the service per call (default 3)
	Backoff    time.Duration // before the second try, doubling (default 50ms)
	TryTimeout time.Duration // per try (default 250ms)
	Breaker    *Breaker      // nil: no breaker
}

// NewClient returns a client that reaches the services through rt.
func NewClient(rt http.RoundTripper, breaker *Breaker) *Client {
	return &Client{http: &http.Client{Transport: rt}, Tries: 3, Backoff: 50 * time.Millisecond,
		TryTimeout: 250 * time.Millisecond, Breaker: breaker}
}

// Quote returns the quote of symbol: fresh from the service, or stale
// from the cache.
func (c *Client) Quote(ctx context.Context, symbol string) (Quote, error) {
	if c.Breaker == nil || c.Breaker.Allow(time.Now()) {
		backoff := c.Backoff
		for try := 0; try < c.Tries; try++ {
			if try > 0 {
				select {
				case <-time.After(backoff):
				case <-ctx.Done():
					return Quote{}, ctx.Err()
				}
				backoff *= 2
			}
			q, err := c.get(ctx, "http://quotes/quote/"+symbol)
			if ctx.Err() != nil {
				return Quote{}, ctx.Err()
			}
			if c.Breaker != nil {
				c.Breaker.Record(time.Now(), err == nil)
			}
			if err == nil {
				return q, nil
			}
			if c.Breaker != nil && !c.Breaker.Allow(time.Now()) {
				break // the breaker opened: stop hammering the service
			}
		}
	}
	return c.get(ctx, "http://cache/quote/"+symbol)
}

func (c *Client) get(ctx context.Context, url string) (Quote, error) {
	ctx, cancel := context.WithTimeout(ctx, c.TryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Quote{}, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return Quote{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Quote{}, fmt.Errorf("%s: %s", url, resp.Status)
	}
	var q Quote
	if err := json.NewDecoder(resp.Body).Decode(&q); err != nil {
		return Quote{}, fmt.Errorf("%s: %w", url, err)
	}
	return q, nil
}

// Breaker is a circuit breaker: Threshold failures in a row open it for
// Cooldown; then one call may try (half open): a success closes it, a
// failure opens it again.
type Breaker struct {
	Threshold int
	Cooldown  time.Duration

	mu        sync.Mutex
	failures  int
	openUntil time.Time
	trial     bool // half open: a trial call is out
}

// NewBreaker returns a breaker that opens after 3 failures for 1s.
func NewBreaker() *Breaker { return &Breaker{Threshold: 3, Cooldown: time.Second} }

// Allow reports whether a call may go to the service now.
func (b *Breaker) Allow(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.failures < b.Threshold:
		return true
	case now.Before(b.openUntil) || b.trial:
		return false
	default:
		b.trial = true
		return true
	}
}

// Record counts a call's outcome.
func (b *Breaker) Record(now time.Time, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.trial = false
	if ok {
		b.failures = 0
		return
	}
	b.failures++
	if b.failures >= b.Threshold {
		b.openUntil = now.Add(b.Cooldown)
	}
}
