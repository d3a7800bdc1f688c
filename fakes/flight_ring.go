package fakes

// boundedRing keeps the last cap items added, each numbered by its position in
// everything ever added (1-based), so that readers can page through it
// with "after the number I saw last" and see what fell out.
type boundedRing[T any] struct {
	cap   int
	buf   []T
	head  int    // index of the oldest item when full
	total uint64 // items ever added; the newest has this number
}

func (r *boundedRing[T]) add(v T) {
	r.total++
	if len(r.buf) < r.cap {
		r.buf = append(r.buf, v)
		return
	}
	r.buf[r.head] = v
	if r.head++; r.head == r.cap { // no division: this runs per action
		r.head = 0
	}
}

// at returns the i-th retained item, oldest first.
func (r *boundedRing[T]) at(i int) T { return r.buf[(r.head+i)%len(r.buf)] }

// dropped is how many items fell out of the ring.
func (r *boundedRing[T]) dropped() uint64 { return r.total - uint64(len(r.buf)) }

// page copies up to limit items numbered after after, oldest first, and
// returns the number of the first (after+1 when nothing is newer). When
// items after after have fallen out, the page starts at the oldest
// retained one. limit <= 0 means no limit.
func (r *boundedRing[T]) page(after uint64, limit int) ([]T, uint64) {
	if after >= r.total { // nothing newer; after+1 cannot wrap
		return []T{}, max(after+1, after)
	}
	first := max(after, r.dropped()) + 1
	n := int(r.total - first + 1)
	if limit > 0 {
		n = min(n, limit)
	}
	out := make([]T, n)
	start := int(first - r.dropped() - 1)
	for i := range out {
		out[i] = r.at(start + i)
	}
	return out, first
}

// last copies the newest n items (all when n <= 0), oldest first, and the
// number of the first.
func (r *boundedRing[T]) last(n int) ([]T, uint64) {
	if n <= 0 || n > len(r.buf) {
		n = len(r.buf)
	}
	return r.page(r.total-uint64(n), n)
}
