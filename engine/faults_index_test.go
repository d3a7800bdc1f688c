package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// The index of faults from outside a run follows the registry through
// supersedes, lifts at a duration and on request, resume_agent and
// rollback: every slot's fault is the registry's, and every fault from
// outside a run has its slot.
func TestOutsideIndexFollowsRegistry(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, 0)
	svc := NewService(fault.NewInjector(stub, stub), nil, nil, WithClock(clk))
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	types := []fault.Type{fault.PauseAgent, fault.SlowAgent, fault.NetworkPartition, fault.ToolTimeout}
	targets := []string{"worker-1", "worker-3"}
	landed := 0
	for step := range 2000 {
		switch op := rng.IntN(10); {
		case op < 6:
			a := fault.Action{Type: types[rng.IntN(len(types))], TargetID: targets[rng.IntN(len(targets))]}
			if rng.IntN(2) == 0 {
				a.Metadata = map[string]any{fault.MetaDuration: "3s"}
			}
			if svc.Execute(ctx, a).Success {
				landed++
			}
		case op == 6:
			svc.Execute(ctx, fault.Action{Type: fault.ResumeAgent, TargetID: targets[rng.IntN(len(targets))]})
		case op == 7:
			if active := svc.ActiveFaults(); len(active) > 0 {
				_ = svc.LiftFault(ctx, active[rng.IntN(len(active))].ID)
			}
		case op == 8:
			clk.Advance(time.Second)
		default:
			if rng.IntN(50) == 0 {
				svc.Rollback(ctx)
			}
		}
		checkOutsideIndex(t, step, svc)
	}
	if landed < 500 {
		t.Fatalf("only %d faults landed: the test exercised little", landed)
	}
}

func checkOutsideIndex(t *testing.T, step int, s *Service) {
	t.Helper()
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	empty := 0
	for idx, byTarget := range s.faults.outside {
		for target, slot := range byTarget {
			if slot.id == "" {
				empty++ // kept for the target's next fault
				continue
			}
			f, ok := s.faults.m[slot.id]
			if !ok || f.seq != slot.seq || f.run != nil || f.target != target || s.injector.Binding(f.typ).Index() != idx {
				t.Fatalf("step %d: index slot [%d][%s] holds %+v, not a fault of the registry from outside a run", step, idx, target, *slot)
			}
		}
	}
	if empty != s.faults.empty {
		t.Fatalf("step %d: %d empty slots, counted %d", step, empty, s.faults.empty)
	}
	if empty > max(len(s.faults.m), 64) {
		t.Fatalf("step %d: %d empty slots kept for %d faults", step, empty, len(s.faults.m))
	}
	for id, f := range s.faults.m {
		if f.run != nil {
			continue
		}
		if slot := s.faults.outside[s.injector.Binding(f.typ).Index()][f.target]; slot == nil || slot.id != id || slot.seq != f.seq {
			t.Fatalf("step %d: active fault %s (%s on %s) is not in the index", step, id, f.typ, f.target)
		}
	}
}

// Targets come and go (pods are renamed): the slots the index keeps for
// targets whose fault left are swept once they outnumber the faults, so a
// long-lived service does not keep one per target it ever hit; a target
// hit again reuses its slot.
func TestOutsideIndexForgetsGoneTargets(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, 0)
	svc := NewService(fault.NewInjector(stub, stub), nil, nil, WithClock(clk))
	ctx := context.Background()
	slots := func() int {
		svc.faults.mu.Lock()
		defer svc.faults.mu.Unlock()
		n := 0
		for _, byTarget := range svc.faults.outside {
			n += len(byTarget)
		}
		return n
	}
	most := 0
	for i := range 1000 {
		res := svc.Execute(ctx, fault.Action{Type: fault.NetworkPartition, TargetID: fmt.Sprintf("pod-%d", i)})
		if !res.Success {
			t.Fatal(res.Error)
		}
		if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
			t.Fatal(err)
		}
		checkOutsideIndex(t, i, svc)
		most = max(most, slots())
	}
	if most > 65 {
		t.Errorf("the index held %d slots at most for faults on 1000 targets one after another, want at most 65", most)
	}
	res := svc.Execute(ctx, fault.Action{Type: fault.NetworkPartition, TargetID: "worker-1"})
	svc.faults.mu.Lock()
	slot := svc.faults.outside[svc.injector.Binding(fault.NetworkPartition).Index()]["worker-1"]
	svc.faults.mu.Unlock()
	if err := svc.LiftFault(ctx, res.Action.ID); err != nil {
		t.Fatal(err)
	}
	svc.Execute(ctx, fault.Action{Type: fault.NetworkPartition, TargetID: "worker-1"})
	svc.faults.mu.Lock()
	again := svc.faults.outside[svc.injector.Binding(fault.NetworkPartition).Index()]["worker-1"]
	svc.faults.mu.Unlock()
	if slot == nil || again != slot {
		t.Error("a target's next fault did not reuse its slot")
	}
	checkOutsideIndex(t, 1000, svc)
}

// Two faults with one ID past admit's check (concurrent Executes): the
// later owns the ID, and superseding the earlier's type and target later
// does not take the later out of the registry.
func TestDuplicateIDKeepsTheLaterFault(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, 0)
	svc := NewService(fault.NewInjector(stub, stub), nil, nil, WithClock(clk))
	ctx := context.Background()
	if res := svc.Execute(ctx, fault.Action{ID: "x", Type: fault.NetworkPartition, TargetID: "worker-1"}); !res.Success {
		t.Fatal(res.Error)
	}
	// What the second Execute would register had it passed admit at the same time.
	svc.track(&fault.Result{Action: fault.Action{ID: "x", Type: fault.SlowAgent, TargetID: "worker-3"}, StartedAt: clk.Now()}, true, fault.Params{}, svc.injector.Binding(fault.SlowAgent), nil, func(context.Context) error { return nil })
	checkOutsideIndex(t, 0, svc)
	if res := svc.Execute(ctx, fault.Action{Type: fault.NetworkPartition, TargetID: "worker-1"}); !res.Success {
		t.Fatal(res.Error)
	}
	checkOutsideIndex(t, 1, svc)
	var slow bool
	for _, f := range svc.ActiveFaults() {
		slow = slow || (f.ID == "x" && f.Type == fault.SlowAgent)
	}
	if !slow {
		t.Errorf("ActiveFaults() = %+v, want the slowdown x still there", svc.ActiveFaults())
	}
}

// A fault is a value in the registry's map, kept in the map's own table
// only while it is at most 128 bytes (larger values are allocated one by
// one): what Execute saved by holding faults by value.
func TestActiveFaultFitsTheMap(t *testing.T) {
	if size := unsafe.Sizeof(activeFault{}); size > 128 {
		t.Errorf("activeFault is %d bytes: over 128, the registry allocates each fault again", size)
	}
}
