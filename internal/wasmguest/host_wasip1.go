//go:build wasip1

package wasmguest

import (
	"encoding/json"
	"fmt"
	"unsafe"
)

//go:wasmimport arena seed
func hostSeed(seed uint64) uint32

//go:wasmimport arena spawn
func hostSpawn(req unsafe.Pointer, n uint32) int32

//go:wasmimport arena wait
func hostWait(id int32, buf unsafe.Pointer, capacity uint32) uint32

//go:wasmimport arena result
func hostResult(buf unsafe.Pointer, n uint32)

// Seed tells the host the seed of the run about to start. An instance
// that runs under no seed yet stops here and runs again from the start
// under this one, so that the run is what its replay command runs; Seed
// returns false when the instance runs under another seed (the replay of
// this run is then exact only for that one).
func Seed(seed uint64) bool {
	if !active {
		return false
	}
	return hostSeed(seed) == 0
}

// Child is an instance the host runs beside this one.
type Child struct{ id int32 }

// Spawn starts a child instance of the same binary: the same arguments
// (less -arena.seeds, -arena.shard and -test.bench) and environment but
// -test.run=run and the seed, which is every run's in it (ARENA_SEED) and
// its host random source's; as says what it is to be (ChildAs).
func Spawn(run string, seed uint64, as string) (Child, error) {
	if !active {
		return Child{}, ErrNoHost
	}
	req, err := json.Marshal(struct {
		Run  string `json:"run"`
		Seed uint64 `json:"seed"`
		As   string `json:"as"`
	}{run, seed, as})
	if err != nil {
		return Child{}, err
	}
	id := hostSpawn(unsafe.Pointer(unsafe.SliceData(req)), uint32(len(req)))
	if id < 0 {
		return Child{}, fmt.Errorf("the host refused a child (run %q, seed %d)", run, seed)
	}
	return Child{id}, nil
}

// Wait blocks the instance until the child ends.
func (c Child) Wait() (Outcome, error) {
	buf := make([]byte, 64<<10)
	for {
		n := hostWait(c.id, unsafe.Pointer(unsafe.SliceData(buf)), uint32(len(buf)))
		if n == 0 {
			return Outcome{}, fmt.Errorf("the host has no child %d", c.id)
		}
		if int(n) <= len(buf) {
			var o Outcome
			err := json.Unmarshal(buf[:n], &o)
			return o, err
		}
		buf = make([]byte, n)
	}
}

// Hand gives the parent that spawned this instance a value (JSON), which
// its Wait returns; the last one handed counts.
func Hand(v []byte) {
	if active && len(v) > 0 {
		hostResult(unsafe.Pointer(unsafe.SliceData(v)), uint32(len(v)))
	}
}
