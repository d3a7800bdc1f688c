package wasmhost

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// The host module "arena" is what arena's test helpers ask the host
// (package internal/wasmguest is their side):
//
//	seed(seed u64) -> u32          the run's seed; an instance without one runs again under it
//	spawn(req, len) -> i32         a child instance (a JSON childRequest); its id, or -1
//	wait(id, buf, cap) -> u32      the child's outcome (JSON childOutcome): its length, written when it fits
//	result(buf, len)               a value for the parent that spawned this instance

// Memory is the program's linear memory: buf and len are offsets in it.
const hostModule = "arena"

// childRequest is what spawn reads.
type childRequest struct {
	Run  string `json:"run"`  // -test.run of the child
	Seed uint64 `json:"seed"` // its seed (never 0), every run's in it
	As   string `json:"as"`   // what it is to be (ARENA_WASM_CHILD), never ""
}

// childOutcome is what wait writes.
type childOutcome struct {
	Exit   uint32          `json:"exit"`
	Output string          `json:"output"`
	Result json.RawMessage `json:"result,omitempty"`
	Err    string          `json:"err,omitempty"` // the host's trouble running it
}

// child is a spawned instance.
type child struct {
	done chan struct{}
	out  []byte // the childOutcome, once done
}

func (h *Host) exportArena(ctx context.Context) error {
	_, err := h.rt.NewHostModuleBuilder(hostModule).
		NewFunctionBuilder().WithFunc(h.seed).Export("seed").
		NewFunctionBuilder().WithFunc(h.spawn).Export("spawn").
		NewFunctionBuilder().WithFunc(h.wait).Export("wait").
		NewFunctionBuilder().WithFunc(h.hand).Export("result").
		Instantiate(ctx)
	return err
}

func (h *Host) instanceOf(m api.Module) *instance {
	v, ok := h.instances.Load(m.Name())
	if !ok {
		panic(fmt.Sprintf("arena-wasm: a call from module %q, which is no instance of this host", m.Name()))
	}
	return v.(*instance)
}

// seed: 0 when the instance runs under seed already, 1 when it runs
// under another one (the program says the replay is exact for that one
// only); an instance under none stops and runs again under seed.
func (h *Host) seed(ctx context.Context, m api.Module, seed uint64) uint32 {
	inst := h.instanceOf(m)
	switch {
	case seed == 0 || inst.spec.seed == seed:
		return 0
	case inst.spec.seed != 0:
		return 1
	}
	inst.restart = seed
	_ = m.CloseWithExitCode(ctx, exitRestart)
	panic(sys.NewExitError(exitRestart))
}

func (h *Host) spawn(ctx context.Context, m api.Module, ptr, n uint32) int32 {
	inst := h.instanceOf(m)
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		return -1
	}
	var req childRequest
	if err := json.Unmarshal(b, &req); err != nil || req.Seed == 0 || req.As == "" {
		return -1
	}
	s := spec{keep: childArgs(inst.spec.keep), run: req.Run, seed: req.Seed, override: true, child: req.As}
	c := &child{done: make(chan struct{})}
	inst.next++
	inst.children[inst.next] = c
	go func() {
		defer close(c.done)
		o := h.run(ctx, s)
		co := childOutcome{Exit: o.code, Output: string(o.output), Result: o.result}
		if o.err != nil {
			co.Err = o.err.Error()
		}
		if len(co.Result) > 0 && !json.Valid(co.Result) {
			co.Result = nil
		}
		c.out, _ = json.Marshal(co)
	}()
	return inst.next
}

// wait blocks the instance until child id ends: its slot goes to the
// children meanwhile.
func (h *Host) wait(ctx context.Context, m api.Module, id int32, ptr, capacity uint32) uint32 {
	inst := h.instanceOf(m)
	c, ok := inst.children[id]
	if !ok {
		return 0
	}
	select {
	case <-c.done:
	default:
		h.release()
		<-c.done
		h.acquire()
	}
	if uint32(len(c.out)) <= capacity {
		if !m.Memory().Write(ptr, c.out) {
			return 0
		}
		delete(inst.children, id)
	}
	return uint32(len(c.out))
}

func (h *Host) hand(ctx context.Context, m api.Module, ptr, n uint32) {
	inst := h.instanceOf(m)
	if b, ok := m.Memory().Read(ptr, n); ok {
		inst.result = append([]byte(nil), b...)
	}
}

// childArgs are a child's arguments: its parent's, less the sweep's size
// and share (a child runs one seed) and the benchmarks.
func childArgs(keep []string) []string {
	var out []string
	for _, a := range keep {
		name, _, _ := flagOf(a)
		if name == "arena.seeds" || name == "arena.shard" || name == "test.bench" {
			continue
		}
		out = append(out, a)
	}
	return out
}
