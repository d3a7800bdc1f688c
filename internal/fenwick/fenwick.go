// Package fenwick is a Fenwick (binary indexed) tree of counts over the
// positions 0..n-1 of a list, for order statistics in O(log n): how many
// positions are set, and which position is the k-th set one. Survival keeps
// one per agent status, so that picking the k-th eligible agent of a large
// system does not walk it.
package fenwick

import "math/bits"

// Tree counts the set positions of a list of fixed length. Its zero value
// is an empty tree of length 0.
type Tree struct {
	t     []int32 // 1-based: t[i] sums the positions (i - i&-i, i]
	total int
}

// Reset empties t and gives it length n, reusing its memory.
func (t *Tree) Reset(n int) {
	if cap(t.t) >= n+1 {
		t.t = t.t[:n+1]
		clear(t.t)
	} else {
		t.t = make([]int32, n+1)
	}
	t.total = 0
}

// Build sets t to the counts given (set[i] true: position i counts once) in
// O(n).
func (t *Tree) Build(n int, set func(i int) bool) {
	t.Reset(n)
	for i := 1; i <= n; i++ {
		if set(i - 1) {
			t.t[i]++
			t.total++
		}
		if j := i + i&-i; j <= n {
			t.t[j] += t.t[i]
		}
	}
}

// Len returns the list's length.
func (t *Tree) Len() int { return max(len(t.t)-1, 0) }

// Total returns how many positions are set.
func (t *Tree) Total() int { return t.total }

// Add adds delta (+1 to set position i, -1 to clear it).
func (t *Tree) Add(i, delta int) {
	t.total += delta
	for i++; i < len(t.t); i += i & -i {
		t.t[i] += int32(delta)
	}
}

// Find returns the k-th (0-based) position set in one of the trees, which
// are of one length and disjoint (no position set in two), counted in
// position order, or -1 when k is not below the sum of their totals.
func Find(k int, trees ...*Tree) int {
	if len(trees) == 0 || k < 0 {
		return -1
	}
	n := trees[0].Len()
	if n == 0 {
		return -1
	}
	pos, rem := 0, k+1 // the largest pos whose prefix holds fewer than rem
	for step := 1 << (bits.Len(uint(n)) - 1); step > 0; step >>= 1 {
		next := pos + step
		if next > n {
			continue
		}
		s := 0
		for _, t := range trees {
			s += int(t.t[next])
		}
		if s < rem {
			pos, rem = next, rem-s
		}
	}
	if pos >= n {
		return -1
	}
	return pos
}
