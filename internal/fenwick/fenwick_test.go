package fenwick

import (
	"math/rand/v2"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestAgainstSlices holds two disjoint trees to a plain walk over boolean
// slices through random edits: totals, and the k-th set position of each
// tree alone and of the pair, for every k (and -1 past the end).
func TestAgainstSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 64, 100} {
		set := [2][]bool{make([]bool, n), make([]bool, n)}
		var trees [2]Tree
		for k := range trees {
			trees[k].Build(n, func(i int) bool { return false })
		}
		for step := range 200 {
			if n > 0 {
				k, i := rng.IntN(2), rng.IntN(n)
				if set[1-k][i] { // disjoint: move it from the other tree
					set[1-k][i] = false
					trees[1-k].Add(i, -1)
				}
				set[k][i] = !set[k][i]
				trees[k].Add(i, map[bool]int{true: 1, false: -1}[set[k][i]])
			}
			if step%50 == 49 { // a rebuild gives the same tree
				k := rng.IntN(2)
				trees[k].Build(n, func(i int) bool { return set[k][i] })
			}
			for _, pick := range [][]int{{0}, {1}, {0, 1}} {
				var ts []*Tree
				var want []int
				for i := range n {
					for _, k := range pick {
						if set[k][i] {
							want = append(want, i)
							break
						}
					}
				}
				total := 0
				for _, k := range pick {
					ts = append(ts, &trees[k])
					total += trees[k].Total()
				}
				if len(pick) == 1 && total != len(want) {
					t.Fatalf("n=%d step %d: Total = %d, want %d", n, step, total, len(want))
				}
				for k, w := range want {
					if got := Find(k, ts...); got != w {
						t.Fatalf("n=%d step %d trees %v: Find(%d) = %d, want %d", n, step, pick, k, got, w)
					}
				}
				if got := Find(len(want), ts...); got != -1 {
					t.Fatalf("n=%d: Find past the end = %d, want -1", n, got)
				}
			}
		}
	}
}

func TestEmpty(t *testing.T) {
	var tr Tree
	if tr.Len() != 0 || tr.Total() != 0 || Find(0, &tr) != -1 || Find(0) != -1 || Find(-1, &tr) != -1 {
		t.Fatalf("zero tree: Len %d Total %d Find %d", tr.Len(), tr.Total(), Find(0, &tr))
	}
}

func BenchmarkFind(b *testing.B) {
	var tr Tree
	tr.Build(1000, func(i int) bool { return i%3 != 0 })
	for i := 0; b.Loop(); i++ {
		_ = Find(i%tr.Total(), &tr)
	}
}
