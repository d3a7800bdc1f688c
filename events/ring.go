package events

import "unsafe"

// ring holds the retained events, oldest first, in chunks of chunkLen: it
// grows a chunk at a time and never moves an event it holds (doubling one
// array copied each event about twice, write barriers included: a day of
// survival appends tens of thousands), and the chunk emptied at the old end
// is kept for the next one needed at the new end. It holds at most limit
// events: when full, a push drops the oldest, so memory stays within limit
// events and two chunks. With limitBytes set it also drops the oldest events
// while the retained events' size is above it (always keeping the newest).
type ring struct {
	chunks     []*[chunkLen]Event // the oldest event is chunks[0][head]
	spare      *[chunkLen]Event   // an emptied chunk (every slot zero), or nil
	head       int
	n          int // events held
	limit      int
	limitBytes int64 // 0: no limit
	bytes      int64 // size of the events held, as eventSize counts it
}

// chunkLen is the events of a chunk (7.5 KiB of them): a power of two, so
// that the index arithmetic is shifts and masks.
const chunkLen = 64

// push adds e as the newest event, dropping the oldest when full.
func (r *ring) push(e *Event) {
	if r.limitBytes > 0 {
		r.bytes += eventSize(e)
		for r.n > 0 && r.bytes > r.limitBytes {
			r.dropOldest()
		}
	}
	if r.n == r.limit {
		r.dropOldest()
	}
	i := r.head + r.n
	if i == len(r.chunks)*chunkLen {
		c := r.spare
		if c == nil {
			c = new([chunkLen]Event)
		}
		r.chunks, r.spare = append(r.chunks, c), nil
	}
	r.chunks[i/chunkLen][i%chunkLen] = *e
	r.n++
}

// dropOldest forgets the oldest event, releasing its memory. r.n > 0.
func (r *ring) dropOldest() {
	old := &r.chunks[0][r.head]
	if r.limitBytes > 0 {
		r.bytes -= eventSize(old)
	}
	*old = Event{}
	r.n--
	if r.head++; r.head == chunkLen { // the oldest chunk is empty
		r.spare = r.chunks[0]
		r.chunks[0] = nil
		r.chunks, r.head = r.chunks[1:], 0
	}
}

// at returns the i-th oldest event, 0 <= i < r.n.
func (r *ring) at(i int) *Event {
	i += r.head
	return &r.chunks[i/chunkLen][i%chunkLen]
}

// eventSize is what [WithRetentionBytes] counts for e: the Event value and
// the bytes of its strings, payload and metadata (map overhead excluded).
func eventSize(e *Event) int64 {
	n := int(unsafe.Sizeof(*e)) + len(e.ID) + len(e.Stream) + len(e.Type) + len(e.Data)
	if e.ID == "" { // the ID withID makes on the way out, as if it were kept
		n += len(e.Stream) + 1 + digits(e.Version)
	}
	if len(e.Metadata) > 0 { // most events have none; ranging over nil still costs
		for k, v := range e.Metadata {
			n += len(k) + len(v)
		}
	}
	return int64(n)
}

// digits is the length of v in decimal. It compares instead of dividing:
// it runs twice per append of a full store (the event in, the one out).
func digits(v uint64) int {
	n := 1
	for n < len(pow10) && v >= pow10[n] {
		n++
	}
	return n
}

// pow10[i] is 10 to the i; the last is the largest power of ten a uint64
// holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()
