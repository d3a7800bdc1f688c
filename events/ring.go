package events

// ring holds the retained events, oldest first. It grows by doubling up to
// limit and from then on overwrites the oldest slot, so a push is amortized
// O(1), memory never exceeds limit events, and a small store stays small.
type ring struct {
	buf   []Event
	head  int // index in buf of the oldest event
	n     int // events held
	limit int
}

// push adds e as the newest event, dropping the oldest when full.
func (r *ring) push(e Event) {
	if r.n == len(r.buf) {
		if len(r.buf) == r.limit {
			r.buf[r.head] = e
			r.head = (r.head + 1) % len(r.buf)
			return
		}
		r.grow()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = e
	r.n++
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
