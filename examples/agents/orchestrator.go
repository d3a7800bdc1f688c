package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"sync"
	"time"
)

// The orchestrator's policy.
const (
	WorkerTimeout = 20 * time.Second // its wait for a worker's answer
	SlowWorker    = 2 * time.Second  // a worker that failed, or answered later, is passed over…
	Bench         = 10 * time.Second // …for this long, while another is not
)

// orchestrator hands each task to a worker, and to the next one when that
// one fails or does not answer in time (at most every worker once). A
// worker that failed or was slow is benched: passed over for Bench while
// another is not, so one bad worker costs one slow task, not a stream of
// them.
type orchestrator struct {
	workers []string
	client  *http.Client

	mu      sync.Mutex
	benched map[string]time.Time // until when
}

// order is the workers to try for a task: from the task's own (a hash of
// its ID), those not benched first.
func (o *orchestrator) order(task string) []string {
	h := fnv.New32a()
	h.Write([]byte(task))
	first := int(h.Sum32() % uint32(len(o.workers)))
	now := time.Now()
	var ready, later []string
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range o.workers {
		name := o.workers[(first+i)%len(o.workers)]
		if now.Before(o.benched[name]) {
			later = append(later, name)
		} else {
			ready = append(ready, name)
		}
	}
	return append(ready, later...)
}

// judge benches the worker when it failed or was slow.
func (o *orchestrator) judge(worker string, ok bool, took time.Duration) {
	if ok && took <= SlowWorker {
		return
	}
	until := time.Now().Add(Bench)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.benched == nil {
		o.benched = map[string]time.Time{}
	}
	o.benched[worker] = until
}

func (o *orchestrator) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var task TaskRequest
	if err := json.NewDecoder(r.Body).Decode(&task); err != nil || task.ID == "" {
		http.Error(rw, "want a task: {id, text}", http.StatusBadRequest)
		return
	}
	writeJSON(rw, o.run(r.Context(), task))
}

// run hands the task to the workers in order: to the next when one fails,
// and also (a hedge) when one has not answered within SlowWorker. The
// first done answer wins and the others are called off; the task's
// idempotency key makes a task done twice pay once.
func (o *orchestrator) run(ctx context.Context, task TaskRequest) Result {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	order := o.order(task.ID)
	answers := make(chan Result, len(order))
	next, going := 0, 0
	launch := func() {
		name := order[next]
		next++
		going++
		go func() {
			start := time.Now()
			res, err := o.hand(ctx, name, task)
			if err != nil {
				res = Result{Task: task.ID, Status: "failed", Worker: name, Error: err.Error()}
			}
			if ctx.Err() == nil {
				o.judge(name, res.Status == "done", time.Since(start))
			}
			answers <- res
		}()
	}
	launch()
	hedge := time.NewTimer(SlowWorker)
	defer hedge.Stop()
	var last Result
	for going > 0 {
		select {
		case res := <-answers:
			going--
			last = res
			if res.Status == "done" {
				return res
			}
			if going == 0 && next < len(order) && ctx.Err() == nil {
				launch()
				hedge.Reset(SlowWorker)
			}
		case <-hedge.C:
			if next < len(order) {
				launch()
				hedge.Reset(SlowWorker)
			}
		}
	}
	return last
}

// hand gives the task to one worker.
func (o *orchestrator) hand(ctx context.Context, worker string, task TaskRequest) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, WorkerTimeout)
	defer cancel()
	body, _ := json.Marshal(task)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+worker+"/task", bytes.NewReader(body))
	res, err := o.client.Do(req)
	if err != nil {
		return Result{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return Result{}, fmt.Errorf("%s: %s", worker, res.Status)
	}
	var out Result
	err = json.NewDecoder(res.Body).Decode(&out)
	return out, err
}
