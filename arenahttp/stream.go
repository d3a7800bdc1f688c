package arenahttp

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/internal/sse"
)

// EventStreamGap is the event type the stream sends when a client resumes
// from an id whose successors are no longer retained (or that the stream
// never had, as after a server restart): the data (StreamGap) says where
// the stream picks up. It has no id, so the client's Last-Event-ID stays.
const EventStreamGap = "arena.stream.gap"

// StreamGap is the data of an EventStreamGap event.
type StreamGap struct {
	LastEventID uint64 `json:"last_event_id"` // what the client sent
	Next        uint64 `json:"next"`          // the version of the next event sent
}

// replayPage is how many retained events one read of a replay takes.
const replayPage = 256

// stream serves GET /arena/stream: the "arena" stream of the event store as
// Server-Sent Events. See the package doc for the format.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request) {
	src := h.opts.events
	if src == nil {
		writeError(w, http.StatusServiceUnavailable, "", "no event store configured (arenahttp.WithEvents)")
		return
	}
	last, resume, err := lastEventID(r)
	if err != nil {
		writeErr(w, err)
		return
	}
	if !h.acquireStream() {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(h.opts.retry.Seconds()))))
		writeError(w, http.StatusServiceUnavailable, "", "too many event streams open (the cap is "+strconv.Itoa(h.opts.maxSubscribers)+")")
		return
	}
	defer h.streams.Add(-1)

	ctx := r.Context()
	from := src.Stats().Events // live only
	var gapNext uint64
	if resume {
		from, gapNext, err = resumePoint(ctx, src, last)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "", "event store: "+err.Error())
			return
		}
	}

	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	c := &sseConn{w: w, rc: http.NewResponseController(w), timeout: h.opts.writeTimeout}
	if resume && gapNext == 0 {
		c.skip = last // never send the client an event it has
	}
	c.buf, _ = sse.AppendEvent(c.buf, sse.Event{Retry: h.opts.retry})
	if gapNext != 0 {
		c.gap(StreamGap{LastEventID: last, Next: gapNext})
	}
	if c.send() != nil {
		return
	}

	// Join the shared feed first, then replay what the client missed from
	// the retained events, a page at a time: the feed holds every event
	// after its start, so the two overlap and nothing is lost or repeated.
	f, joinErr := h.hub.join(h.ctx, src)
	if joinErr == nil {
		defer h.hub.leave(f)
	}
	for {
		evs, err := src.Read(ctx, events.Filter{Streams: []string{engine.EventStream}, FromSequence: from}, replayPage)
		if err != nil || len(evs) == 0 {
			break
		}
		for _, e := range evs {
			c.event(e)
			from = e.Sequence
		}
		if c.send() != nil {
			return
		}
	}
	if joinErr != nil {
		return // the store is closed: what it retains was sent
	}
	// The last read found nothing after from, and it came after the feed
	// started: no "arena" event lies between from and the feed's start.
	cursor := max(from, f.start)

	beat := time.NewTicker(h.opts.heartbeat)
	defer beat.Stop()
	age := time.NewTimer(h.opts.maxStreamAge)
	defer age.Stop()
	idle := time.NewTimer(h.opts.streamIdle) // reset by every event sent
	defer idle.Stop()
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	for {
		frames, wait, behind, ok := f.since(cursor, replayPage)
		if !ok {
			// Behind the frames the feed keeps (a client that stopped
			// reading), or the feed ended (the store closed or the
			// subscription lagged). The client reconnects with
			// Last-Event-ID and resumes from the retained events.
			if behind {
				h.hub.dropped.Add(1)
				h.opts.logger.Debug("arenahttp: event stream ended", "reason", "client fell behind")
			}
			return
		}
		if len(frames) > 0 {
			for _, fr := range frames {
				if fr.version > c.skip {
					c.buf = append(c.buf, fr.b...)
				}
				cursor = fr.seq
			}
			idle.Reset(h.opts.streamIdle)
			if len(c.buf) >= 64<<10 || len(frames) == replayPage {
				if c.send() != nil {
					return
				}
			}
			continue
		}
		if len(c.buf) > 0 {
			if c.send() != nil {
				return
			}
			continue
		}
		select {
		case <-wait:
			// Coalesce: let the next moment's events gather in the feed
			// (no wakeup per event), then send them in one write and flush.
			linger.Reset(flushLinger)
			select {
			case <-linger.C:
			case <-ctx.Done():
				return
			case <-h.closing:
				return
			}
		case <-beat.C:
			if !h.stillAuthorized(r) {
				return // logged out, expired, or the key changed (session.go)
			}
			c.buf = sse.AppendComment(c.buf, "heartbeat")
			if c.send() != nil {
				return
			}
		case <-age.C:
			c.buf = sse.AppendComment(c.buf, "max age: reconnect with Last-Event-ID")
			c.send()
			return
		case <-idle.C:
			// Nothing but heartbeats for WithStreamIdle: whether this client
			// reads cannot be told (WithStreamIdle), so it gives its slot
			// back, and comes back at once if it does.
			c.buf, _ = sse.AppendEvent(c.buf, sse.Event{Retry: idleRetry})
			c.buf = sse.AppendComment(c.buf, "idle: reconnect with Last-Event-ID")
			c.send()
			return
		case <-ctx.Done():
			return
		case <-h.closing:
			return
		}
	}
}

// flushLinger is how long a stream lets events gather after it is woken
// before it writes and flushes them together: with many clients a write and
// flush per event per client is what costs. It bounds the latency added to
// an event.
const flushLinger = 50 * time.Millisecond

// idleRetry is the reconnection delay an idle stream's end tells its
// client: the next stream's first frame sets WithRetry's again.
const idleRetry = 250 * time.Millisecond

// acquireStream takes a place under the subscriber cap.
func (h *Handler) acquireStream() bool {
	for {
		n := h.streams.Load()
		if n >= int64(h.opts.maxSubscribers) {
			return false
		}
		if h.streams.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// lastEventID reads Last-Event-ID (or ?last_event_id=, for EventSource
// clients that cannot set headers on their first request): the version of
// the last "arena" event the client has, 0 for "from the oldest retained".
func lastEventID(r *http.Request) (uint64, bool, error) {
	field, s := "Last-Event-ID", r.Header.Get("Last-Event-ID")
	if s == "" {
		field, s = "last_event_id", r.URL.Query().Get("last_event_id")
	}
	if s == "" {
		return 0, false, nil
	}
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, false, badRequest(field, "want an event version (a non-negative integer), got %s", quote(s))
	}
	return v, true, nil
}

// resumePoint finds the store sequence after which the events following
// version last of the "arena" stream start. Versions count within the
// stream and sequences across the store, so it is a binary search for the
// smallest s whose next arena event has a version above last (retained
// sequences are contiguous and versions grow with them). gapNext is the
// version the stream resumes at when events after last are missing (0: no
// gap).
func resumePoint(ctx context.Context, src EventSource, last uint64) (from, gapNext uint64, err error) {
	st := src.Stats()
	cur, err := src.StreamVersion(ctx, engine.EventStream)
	if err != nil {
		return 0, 0, err
	}
	next := func(s uint64) (uint64, error) { // version of the first arena event after s; 0: none
		evs, err := src.Read(ctx, events.Filter{Streams: []string{engine.EventStream}, FromSequence: s}, 1)
		if err != nil || len(evs) == 0 {
			return 0, err
		}
		return evs[0].Version, nil
	}
	lo, hi := st.Dropped, st.Events // next(hi) is none
	first, err := next(lo)
	switch {
	case err != nil:
		return 0, 0, err
	case last > cur: // an id this stream never had (the server restarted): start over
		if first == 0 {
			return hi, cur + 1, nil
		}
		return lo, first, nil
	case last == cur:
		return hi, 0, nil
	case first == 0: // events after last, none retained
		return hi, cur + 1, nil
	case first > last:
		if first > last+1 {
			gapNext = first
		}
		return lo, gapNext, nil
	}
	for lo+1 < hi { // invariant: next(lo) <= last < next(hi) (none counts as above)
		mid := lo + (hi-lo)/2
		v, err := next(mid)
		if err != nil {
			return 0, 0, err
		}
		if v != 0 && v <= last {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, 0, nil
}

// sseConn writes frames to one client. Writes are batched in buf and sent
// with a deadline, so a client that stops reading is cut off instead of
// holding the handler forever; the store never waits for it either way.
type sseConn struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	skip    uint64 // versions up to it are not sent
	buf     []byte
}

func (c *sseConn) event(e events.Event) {
	if e.Version <= c.skip {
		return
	}
	c.buf = append(c.buf, encodeFrame(&e)...)
}

func (c *sseConn) gap(g StreamGap) {
	data, _ := json.Marshal(g)
	c.buf, _ = sse.AppendEvent(c.buf, sse.Event{Event: EventStreamGap, Data: data})
}

// send writes and flushes the buffered frames.
func (c *sseConn) send() error {
	if err := c.rc.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	_, err := c.w.Write(c.buf)
	c.buf = c.buf[:0]
	if err != nil {
		return err
	}
	if err := c.rc.Flush(); err != nil {
		return err
	}
	// Sent: no deadline until the next send. On HTTP/2 one left set would
	// reset the stream between heartbeats.
	if err := c.rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
