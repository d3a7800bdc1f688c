package history

import (
	"context"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/anishathalye/porcupine"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// registerWrites records n writes to one register by clients clients in
// turn, each invoked before the one before it was answered when clients >
// 1, then, if impossible, a read of a value none of them wrote.
func registerWrites(n, clients int, impossible bool) History[KV] {
	clk := clock.NewVirtual(time.Time{})
	rec := NewRecorder[KV](clk)
	var prev Call[KV]
	for i := range n {
		clk.Advance(time.Microsecond)
		c := rec.Invoke(i%clients, Put("r", int64(i+1)))
		switch {
		case clients == 1:
			c.OK(Put("r", int64(i+1)))
		case i > 0:
			prev.OK(Put("r", int64(i)))
		}
		prev = c
	}
	if clients > 1 {
		prev.OK(Put("r", int64(n)))
	}
	if impossible {
		clk.Advance(time.Microsecond)
		rec.Invoke(clients, Get("r")).OK(Get("r").Read(-1, true))
	}
	return rec.History()
}

// What the check counts never passes its memory budget, and each search
// gives back what it took when it ends: all it still holds at the end is
// its snapshot of the history.
func TestBudgetHeldStaysWithinIt(t *testing.T) {
	for _, memory := range []int64{1 << 20, 4 << 20, 64 << 20} {
		for _, impossible := range []bool{false, true} {
			h := registerWrites(5000, 2, impossible)
			c := &linearizability[KV, KVState]{name: "register", model: Register(), opts: defaultCheckOptions([]CheckOption{WithMemoryBudget(memory), WithReportDir("")})}
			b := &budget{deadline: clock.Wall().Add(time.Minute), ctx: context.Background(), memory: memory}
			err := c.checkWithin(h, b, clock.Wall())
			var v *fault.Violation
			switch {
			case memory < 4<<20 && !errors.Is(err, fault.ErrUndecided): // 5000 states of 0.8 KiB
				t.Errorf("memory %d, impossible %v: checkWithin() = %v, want undecided", memory, impossible, err)
			case memory == 64<<20 && (impossible != errors.As(err, &v) || !impossible && err != nil):
				t.Errorf("memory %d, impossible %v: checkWithin() = %v, want it decided", memory, impossible, err)
			}
			if peak := b.peak.Load(); peak > memory || peak == 0 {
				t.Errorf("memory %d, impossible %v: the count peaked at %d, want within (0, %d]", memory, impossible, peak, memory)
			}
			if held, snapshot := b.held.Load(), int64(len(h.Ops))*(int64(unsafe.Sizeof(Op[KV]{}))+opBytes); held != snapshot && held != 0 {
				t.Errorf("memory %d, impossible %v: %d held at the end, want %d (the snapshot) or 0 (it did not fit)", memory, impossible, held, snapshot)
			}
		}
	}
}

// A state porcupine keeps is counted, one it already had is not: the
// count is porcupine's cache, not its steps.
func TestGuardCountsStatesKept(t *testing.T) {
	// Two concurrent writes of 1 and a read of 5: porcupine tries both
	// orders of the writes, reaches {both writes, 1} two ways and keeps it
	// once.
	clk := clock.NewVirtual(time.Time{})
	rec := NewRecorder[KV](clk)
	a, b := rec.Invoke(0, Put("r", 1)), rec.Invoke(1, Put("r", 1))
	a.OK(Put("r", 1))
	b.OK(Put("r", 1))
	rec.Invoke(2, Get("r")).OK(Get("r").Read(5, true))
	h := rec.History()
	m := Register()
	c := &linearizability[KV, KVState]{model: m}
	p := c.parts(h, &guard{})[0]
	g := &guard{b: &budget{deadline: clock.Wall().Add(time.Minute), ctx: context.Background(), memory: 1 << 20}, stateBytes: 1}
	if porcupine.CheckOperations(m.porcupine(g, func() KVState { return m.init(g) }), p.operations(0, len(p.src), end(h))) {
		t.Fatal("linearizable")
	}
	// Kept: {a}, {a, b}, {b}; {a, b} from {b} is not kept again.
	if n := g.statesKept(); n != 3 {
		t.Errorf("states counted = %d, want 3", n)
	}
}

// visualizeBytes covers what porcupine's visualization allocates, for a
// part whose linearizations are as long as it and for one whose are short.
// (The race detector's build allocates more: there it is only logged.)
func TestVisualizeBytesCoversWhatItAllocates(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    History[KV]
	}{
		{"long prefix", registerWrites(3000, 3, true)},
		{"short prefixes", func() History[KV] {
			h := registerWrites(3000, 3, true)
			last := h.Ops[len(h.Ops)-1]
			copy(h.Ops[1:], h.Ops[:len(h.Ops)-1])
			last.Call, last.Return = 0, 0 // the impossible read, first
			h.Ops[0] = last
			return h
		}()},
	} {
		m := Register()
		c := &linearizability[KV, KVState]{model: m}
		g := &guard{}
		p := c.parts(tc.h, g)[0]
		_, info := porcupine.CheckOperationsVerbose(m.porcupine(g, func() KVState { return m.init(g) }), p.operations(0, len(p.src), end(tc.h)), 0)
		steps := 0
		for _, lin := range info.PartialLinearizations()[0] {
			steps += len(lin)
		}
		pm := m.porcupine(g, func() KVState { return m.init(g) })
		pm.DescribeOperationMetadata = func(any) string { return "" }
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := draw(pm, info, io.Discard); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		got, est := int64(after.TotalAlloc-before.TotalAlloc), visualizeBytes(len(p.src), steps)
		t.Logf("%s: %d operations, %d steps: %d bytes allocated, %d estimated", tc.name, len(p.src), steps, got, est)
		if got > est && !raceEnabled {
			t.Errorf("%s: drawing allocated %d bytes, more than the %d estimated", tc.name, got, est)
		}
	}
}
