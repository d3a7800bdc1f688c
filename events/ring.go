package events

import "unsafe"

// ring holds the retained events, oldest first. It grows by doubling up to
// limit and from then on overwrites the oldest slot, so a push is amortized
// O(1), memory never exceeds limit events, and a small store stays small.
// With limitBytes set it also drops the oldest events while the retained
// events' size is above it (always keeping the newest).
type ring struct {
	buf        []Event
	head       int // index in buf of the oldest event
	n          int // events held
	limit      int
	limitBytes int64 // 0: no limit
	bytes      int64 // size of the events held, as eventSize counts it
}

// push adds e as the newest event, dropping the oldest when full.
func (r *ring) push(e *Event) {
	if r.limitBytes > 0 {
		r.bytes += eventSize(e)
		for r.n > 0 && r.bytes > r.limitBytes {
			r.dropOldest()
		}
	}
	if r.n == len(r.buf) {
		if len(r.buf) == r.limit { // full: e takes the oldest's slot
			if r.limitBytes > 0 {
				r.bytes -= eventSize(&r.buf[r.head])
			}
			r.buf[r.head] = *e
			r.advanceHead()
			return
		}
		r.grow()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = *e
	r.n++
}

// dropOldest forgets the oldest event, releasing its memory. r.n > 0.
func (r *ring) dropOldest() {
	old := &r.buf[r.head]
	if r.limitBytes > 0 {
		r.bytes -= eventSize(old)
	}
	*old = Event{}
	r.advanceHead()
	r.n--
}

// advanceHead moves head to the next slot (no division: it runs per
// append).
func (r *ring) advanceHead() {
	if r.head++; r.head == len(r.buf) {
		r.head = 0
	}
}

// grow is only called when the ring is full, so buf[head:] then buf[:head]
// is every event in order.
func (r *ring) grow() {
	buf := make([]Event, min(max(2*len(r.buf), 16), r.limit))
	k := copy(buf, r.buf[r.head:])
	copy(buf[k:], r.buf[:r.head])
	r.buf, r.head = buf, 0
}

// at returns the i-th oldest event, 0 <= i < r.n.
func (r *ring) at(i int) *Event { return &r.buf[(r.head+i)%len(r.buf)] }

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
