package etcdcluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/history"
)

// Keys are the keys the workload works on.
var Keys = []string{"k0", "k1", "k2", "k3", "k4"}

// Workload is a key-value workload of concurrent clients on the cluster's
// members, each operation recorded in a history: half reads, three tenths
// writes of values never written before, one fifth compare-and-sets.
type Workload struct {
	rec       *history.Recorder[history.KV]
	endpoints []string
	timeout   time.Duration

	mu     sync.Mutex
	counts map[history.Status]int
}

// NewWorkload returns a workload on the members' client base URLs, its
// history on clock (the run's); each operation gives up (unknown) after
// timeout.
func NewWorkload(clk clock.Clock, endpoints []string, timeout time.Duration) *Workload {
	return &Workload{rec: history.NewRecorder[history.KV](clk), endpoints: endpoints, timeout: timeout, counts: map[history.Status]int{}}
}

// Recorder returns the workload's history recorder.
func (w *Workload) Recorder() *history.Recorder[history.KV] { return w.rec }

// Counts returns how many operations ended in each status.
func (w *Workload) Counts() map[history.Status]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[history.Status]int{}
	for k, v := range w.counts {
		out[k] = v
	}
	return out
}

// Run runs clients until ctx ends. Client i starts on member i mod 3 and
// moves to the next member after a failure; after an unknown outcome it
// goes on under a new client number (it may still have an operation in
// flight, as Jepsen's processes do).
func (w *Workload) Run(ctx context.Context, clients int, seed uint64) {
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() { w.client(ctx, i, clients, rand.New(rand.NewPCG(seed, uint64(i)))) })
	}
	wg.Wait()
}

func (w *Workload) client(ctx context.Context, i, clients int, rng *rand.Rand) {
	id, member := i, i
	for n := int64(1); ctx.Err() == nil; n++ {
		base := w.endpoints[member%len(w.endpoints)]
		key := Keys[rng.IntN(len(Keys))]
		value := int64(i)<<32 | n // written once
		var op history.KV
		switch r := rng.IntN(10); {
		case r < 5:
			op = history.Get(key)
		case r < 8:
			op = history.Put(key, value)
		default:
			op = history.CAS(key, int64(rng.IntN(clients))<<32|int64(rng.IntN(int(n))+1), value)
		}
		call := w.rec.Invoke(id, op)
		octx, cancel := context.WithTimeout(ctx, w.timeout)
		var err error
		switch op.Kind {
		case history.KVGet:
			var v int64
			var found bool
			v, found, err = Get(octx, base, key)
			op = op.Read(v, found)
		case history.KVPut:
			err = Put(octx, base, key, value)
		case history.KVCAS:
			var ok bool
			ok, err = CAS(octx, base, key, op.Expect, value)
			op = op.Swap(ok)
		}
		cancel()
		status := history.OK
		switch {
		case err == nil:
			call.OK(op)
		case ctx.Err() != nil:
			call.Unknown() // the run ended under it
			return
		case errors.Is(err, ErrRefused):
			call.Fail(err)
			status = history.Failed
		default:
			call.Unknown()
			status = history.Unknown
			id += clients // a new process
		}
		if err != nil {
			member++
			time.Sleep(20 * time.Millisecond)
		}
		w.mu.Lock()
		w.counts[status]++
		w.mu.Unlock()
	}
}

// String summarises the outcomes.
func (w *Workload) String() string {
	c := w.Counts()
	return fmt.Sprintf("%d ok, %d failed, %d unknown", c[history.OK], c[history.Failed], c[history.Unknown])
}
