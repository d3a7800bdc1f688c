package arenahttp

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/events"
	"github.com/ares-arena/arena/internal/sse"
)

// feedFrames is how many recent frames a feed keeps. A stream further
// behind than that (a client that stopped reading) is ended; it reconnects
// with Last-Event-ID and resumes from the store's retained events.
const feedFrames = 4096

// hub shares one subscription to the "arena" stream among every open
// GET /arena/stream: a feed, started by the first stream and stopped with
// the last. The feed encodes each event's frame once; streams copy the bytes.
// So an event costs the store one delivery and the server one encoding,
// however many clients follow.
type hub struct {
	mu      sync.Mutex
	cur     *feed
	dropped atomic.Uint64 // streams ended for falling feedFrames behind
}

// feed is one run of the hub's subscription. It holds every "arena" event
// with Sequence > start, except the oldest it let go (Sequence <= floor).
type feed struct {
	start   uint64
	clients int // guarded by hub.mu
	sub     *events.Subscription
	exited  chan struct{}

	mu     sync.Mutex
	frames []feedFrame // ascending Sequence; never modified, only appended to or cut
	floor  uint64
	notify chan struct{} // closed and replaced when frames are added
	ended  bool
}

type feedFrame struct {
	seq, version uint64
	b            []byte // the SSE frame; read-only
}

// join returns the running feed, starting one if none is. ctx bounds the
// feed's subscription (the handler's lifetime).
func (hb *hub) join(ctx context.Context, src EventSource) (*feed, error) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if f := hb.cur; f != nil && !f.isEnded() {
		f.clients++
		return f, nil
	}
	start := src.Stats().Events
	sub, err := src.Subscribe(ctx, events.Filter{Streams: []string{engine.EventStream}, FromSequence: start})
	if err != nil {
		return nil, err
	}
	f := &feed{start: start, floor: start, clients: 1, sub: sub, exited: make(chan struct{}), notify: make(chan struct{})}
	hb.cur = f
	go f.follow()
	return f, nil
}

// leave is join's counterpart: the last stream to leave stops the feed and
// waits for its goroutine.
func (hb *hub) leave(f *feed) {
	hb.mu.Lock()
	f.clients--
	last := f.clients == 0
	if last && hb.cur == f {
		hb.cur = nil
	}
	hb.mu.Unlock()
	if last {
		f.sub.Close()
		<-f.exited
	}
}

// follow encodes what the subscription delivers, a batch at a time, until
// it ends (closed, the store closed, or lagged: then every stream ends and
// its client resumes by Last-Event-ID).
func (f *feed) follow() {
	defer close(f.exited)
	defer f.end()
	var batch []feedFrame
	for e := range f.sub.C() {
		batch = append(batch[:0], newFeedFrame(&e))
	more:
		for len(batch) < 256 {
			select {
			case e, ok := <-f.sub.C():
				if !ok {
					break more
				}
				batch = append(batch, newFeedFrame(&e))
			default:
				break more
			}
		}
		f.add(batch)
	}
}

func newFeedFrame(e *events.Event) feedFrame {
	return feedFrame{seq: e.Sequence, version: e.Version, b: encodeFrame(e)}
}

// encodeFrame is e's frame: id its stream version, event its type, data the
// whole event as JSON.
func encodeFrame(e *events.Event) []byte {
	data, err := json.Marshal(e)
	if err != nil {
		return nil
	}
	b, _ := sse.AppendEvent(make([]byte, 0, len(data)+len(e.Type)+32), sse.Event{ID: strconv.FormatUint(e.Version, 10), Event: e.Type, Data: data})
	return b
}

func (f *feed) add(batch []feedFrame) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frames = append(f.frames, batch...)
	if n := len(f.frames); n > feedFrames {
		// Cut into a new array: streams may still hold the old one's frames.
		keep := feedFrames / 2
		f.floor = f.frames[n-keep-1].seq
		f.frames = append(make([]feedFrame, 0, feedFrames+256), f.frames[n-keep:]...)
	}
	close(f.notify)
	f.notify = make(chan struct{})
}

func (f *feed) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended = true
	close(f.notify)
}

func (f *feed) isEnded() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ended
}

// since returns the frames after cursor (a Sequence), at most max of them.
// With none it returns the channel that is closed when more arrive. ok is
// false when the stream must end: it fell behind the frames kept, or the
// feed ended and the stream has all it held.
func (f *feed) since(cursor uint64, max int) (frames []feedFrame, wait <-chan struct{}, behind, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cursor < f.floor {
		return nil, nil, true, false
	}
	i := sort.Search(len(f.frames), func(i int) bool { return f.frames[i].seq > cursor })
	frames = f.frames[i:min(len(f.frames), i+max)]
	if len(frames) == 0 && f.ended {
		return nil, nil, false, false
	}
	return frames, f.notify, false, true
}
