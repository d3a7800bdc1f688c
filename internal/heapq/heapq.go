// Package heapq is a binary min-heap on a slice of values, typed so that a
// push or a pop boxes nothing (container/heap boxes every element through
// its interface). The schedulers of the engine's executor and of the fake
// cluster share it.
package heapq

// Heap is a min-heap of T ordered by (*T).Less, which must be a strict weak
// order; with a total order (a unique sequence number as the last key) any
// correct heap pops the same sequence. Its zero value is empty; h[0] is the
// least element while len(h) > 0.
type Heap[T any, PT interface {
	*T
	Less(*T) bool
}] []T

// Push adds e.
func (h *Heap[T, PT]) Push(e T) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !PT(&s[i]).Less(&s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// Pop removes and returns the least element; the heap must not be empty.
// The slot it leaves is zeroed, so the backing array holds no reference to
// what was popped.
func (h *Heap[T, PT]) Pop() T {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	var zero T
	s[n] = zero
	s = s[:n]
	s.down(0)
	*h = s
	return top
}

// DeleteFunc removes every element for which drop returns true and restores
// the heap order in O(n); the slots it frees are zeroed. With a total order
// the elements left pop in the same sequence as before.
func (h *Heap[T, PT]) DeleteFunc(drop func(*T) bool) {
	s := *h
	k := 0
	for i := range s {
		if !drop(&s[i]) {
			s[k] = s[i]
			k++
		}
	}
	clear(s[k:])
	s = s[:k]
	for i := k/2 - 1; i >= 0; i-- {
		s.down(i)
	}
	*h = s
}

// down moves s[i] towards the leaves until neither child is less.
func (s Heap[T, PT]) down(i int) {
	n := len(s)
	for {
		l, m := 2*i+1, i
		if l < n && PT(&s[l]).Less(&s[m]) {
			m = l
		}
		if r := l + 1; r < n && PT(&s[r]).Less(&s[m]) {
			m = r
		}
		if m == i {
			return
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
}
