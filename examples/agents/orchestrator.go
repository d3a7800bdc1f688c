package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"time"
)

// WorkerTimeout is how long the orchestrator waits for a worker's answer.
const WorkerTimeout = 20 * time.Second

// orchestrator hands each task to a worker, and to the next one when that
// one fails or does not answer in time (at most every worker once).
type orchestrator struct {
	workers []string
	client  *http.Client
}

func (o *orchestrator) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	var task TaskRequest
	if err := json.NewDecoder(r.Body).Decode(&task); err != nil || task.ID == "" {
		http.Error(rw, "want a task: {id, text}", http.StatusBadRequest)
		return
	}
	h := fnv.New32a()
	h.Write([]byte(task.ID))
	first := int(h.Sum32() % uint32(len(o.workers)))
	var last Result
	for i := range o.workers {
		name := o.workers[(first+i)%len(o.workers)]
		res, err := o.hand(r.Context(), name, task)
		if err != nil {
			last = Result{Task: task.ID, Status: "failed", Worker: name, Error: err.Error()}
		} else {
			last = res
		}
		if last.Status == "done" || r.Context().Err() != nil {
			break
		}
	}
	writeJSON(rw, last)
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
