package heapq

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type item struct {
	key, seq int
	ref      *int // a pointer, to see Pop release it
}

func (a *item) Less(b *item) bool {
	return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.seq, b.seq)) < 0
}

// Pops come out in (key, seq) order, however pushes and pops interleave,
// and a popped slot keeps no reference.
func TestHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var h Heap[item, *item]
		var want []item // what is in the heap, kept sorted
		seq := 0
		for range rng.IntN(300) {
			if len(want) > 0 && rng.IntN(3) == 0 {
				got := h.Pop()
				if got.key != want[0].key || got.seq != want[0].seq {
					t.Fatalf("round %d: popped (%d, %d), want (%d, %d)", round, got.key, got.seq, want[0].key, want[0].seq)
				}
				want = want[1:]
				if c := h[:cap(h)][len(h)]; c.ref != nil {
					t.Fatalf("round %d: the popped slot still holds a reference", round)
				}
				continue
			}
			seq++
			e := item{key: rng.IntN(20), seq: seq, ref: new(int)}
			h.Push(e)
			i, _ := slices.BinarySearchFunc(want, e, func(a, b item) int {
				return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.seq, b.seq))
			})
			want = slices.Insert(want, i, e)
			if len(h) != len(want) || h[0].seq != want[0].seq {
				t.Fatalf("round %d: len %d, head seq %d; want %d, %d", round, len(h), h[0].seq, len(want), want[0].seq)
			}
		}
	}
}

// DeleteFunc drops exactly what it is asked to and frees the slots, and
// what is left pops in order, on heaps built by pushes and pops.
func TestHeapDeleteFunc(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	less := func(a, b item) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.seq, b.seq)) }
	for round := range 200 {
		var h Heap[item, *item]
		var in []item // what is in the heap, kept sorted
		for seq := range rng.IntN(300) {
			if len(in) > 0 && rng.IntN(4) == 0 {
				_ = h.Pop()
				in = in[1:]
				continue
			}
			e := item{key: rng.IntN(20), seq: seq, ref: new(int)}
			h.Push(e)
			i, _ := slices.BinarySearchFunc(in, e, less)
			in = slices.Insert(in, i, e)
		}
		want := slices.DeleteFunc(in, func(e item) bool { return e.key%3 == 0 })
		n := len(h)
		h.DeleteFunc(func(e *item) bool { return e.key%3 == 0 })
		for _, c := range h[len(h):n] {
			if c.ref != nil {
				t.Fatalf("round %d: a freed slot still holds a reference", round)
			}
		}
		if len(h) != len(want) {
			t.Fatalf("round %d: %d left, want %d", round, len(h), len(want))
		}
		for i := range want {
			if got := h.Pop(); got.key != want[i].key || got.seq != want[i].seq {
				t.Fatalf("round %d: pop %d = (%d, %d), want (%d, %d)", round, i, got.key, got.seq, want[i].key, want[i].seq)
			}
		}
	}
}

func TestHeapNoAlloc(t *testing.T) {
	h := make(Heap[item, *item], 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		h.Push(item{key: 3})
		h.Push(item{key: 1})
		_ = h.Pop()
		_ = h.Pop()
	}); n != 0 {
		t.Fatalf("%v allocations per push and pop, want 0", n)
	}
}
