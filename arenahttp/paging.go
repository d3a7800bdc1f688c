package arenahttp

import (
	"context"
	"math"
	"net/http"
	"strconv"

	"github.com/ares-arena/arena/engine"
)

// Paged reads (history, flight timeline, diagnostics). Each item is
// numbered by its position among all ever recorded, from 1; the numbers
// travel in headers, so that the body stays a plain JSON array.
const (
	// DefaultPageLimit is the page size when ?limit= is not given.
	DefaultPageLimit = 1000
	// MaxPageLimit is the largest ?limit= accepted.
	MaxPageLimit = 10_000

	// HeaderFirst is the number of the first item of the page.
	HeaderFirst = "X-Arena-First"
	// HeaderNextAfter is the ?after= value that reads the next page.
	HeaderNextAfter = "X-Arena-Next-After"
	// HeaderDropped counts the items that fell out of the bounded store
	// (a gap when HeaderFirst is beyond the after asked for).
	HeaderDropped = "X-Arena-Dropped"
)

// pageQuery lists the query parameters of a paged route.
var pageQuery = []string{"after", "limit"}

// pageParams reads ?after= (0: the newest page) and ?limit=.
func pageParams(r *http.Request) (after uint64, limit int, err error) {
	q := r.URL.Query()
	limit = DefaultPageLimit
	if s := q.Get("after"); s != "" {
		if after, err = strconv.ParseUint(s, 10, 63); err != nil {
			return 0, 0, badRequest("after", "want an integer from 0 to %d, got %s", uint64(math.MaxInt64), quote(s))
		}
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxPageLimit {
			return 0, 0, badRequest("limit", "want an integer from 1 to %d, got %s", MaxPageLimit, quote(s))
		}
		limit = n
	}
	return after, limit, nil
}

func writePage[T any](w http.ResponseWriter, items []T, first, dropped uint64) {
	if items == nil {
		items = []T{}
	}
	h := w.Header()
	h.Set(HeaderFirst, strconv.FormatUint(first, 10))
	h.Set(HeaderNextAfter, strconv.FormatUint(first+uint64(len(items))-1, 10))
	h.Set(HeaderDropped, strconv.FormatUint(dropped, 10))
	writeJSON(w, http.StatusOK, items)
}

// flightPager is a flight recorder that reads a page without copying the
// rest (*fakes.FlightRecorder is one). Others are read whole and paged here.
type flightPager interface {
	TimelinePage(ctx context.Context, after uint64, limit int) ([]engine.FlightEvent, uint64, uint64, error)
	DiagnosticsPage(ctx context.Context, after uint64, limit int) ([]engine.Diagnostic, uint64, uint64, error)
}

// pageSlice pages a whole list numbered from 1 (nothing dropped).
func pageSlice[T any](all []T, after uint64, limit int) ([]T, uint64) {
	total := uint64(len(all))
	if after == 0 {
		after = total - uint64(min(len(all), limit))
	}
	if after >= total {
		return nil, after + 1
	}
	end := min(total, after+uint64(limit))
	return all[after:end], after + 1
}
