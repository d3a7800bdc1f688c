package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// The users' side: how often they ask, how long they wait, and the level
// of service the probe holds the system to.
const (
	Interval     = time.Second      // between a user's tasks, ± 30%
	TaskTimeout  = 45 * time.Second // an attempt's wait for the answer
	TaskAttempts = 5                // attempts per task, 1s, 2s, 4s, 8s apart
	Window       = 5 * time.Second  // the probe's look back
	MaxFailures  = 0.2              // share of the attempts in Window that may fail
	MaxLatency   = 5 * time.Second  // an attempt answered later counts as failed
)

// Task is one task of a user, as the user saw it.
type Task struct {
	ID       string
	Text     string
	Kind     string // pay or ticket
	Account  string // pay: the account
	Amount   int    // pay: the amount
	Title    string // ticket: the title
	Attempts int
	Outcome  string // done, failed, lost (no answer to any attempt); "" while going
	Result   *Result
	Start    time.Time
	End      time.Time
}

// users asks the system for tasks, as several users would, and records
// what each task got.
type users struct {
	client *http.Client
	rng    *rand.Rand

	mu       sync.Mutex
	tasks    []*Task
	attempts []attempt // finished within the last Window, and going
}

type attempt struct {
	at     time.Time
	failed bool
}

func (u *users) run(ctx context.Context, name string, rng *rand.Rand) {
	for n := 1; ; n++ {
		jitter := time.Duration(rng.Int64N(int64(Interval)*6/10+1)) - Interval*3/10
		if !pause(ctx, Interval+jitter) {
			return
		}
		t := u.newTask(fmt.Sprintf("%s-%d", name, n), rng)
		u.do(ctx, t)
	}
}

func (u *users) newTask(id string, rng *rand.Rand) *Task {
	t := &Task{ID: id, Start: time.Now()}
	if rng.IntN(2) == 0 {
		t.Kind, t.Account, t.Amount = "pay", fmt.Sprintf("acct-%d", rng.IntN(5)), 100*(1+rng.IntN(20))
		t.Text = fmt.Sprintf("task %s: pay %d to %s", id, t.Amount, t.Account)
	} else {
		t.Kind, t.Title = "ticket", fmt.Sprintf("printer %d on floor %d jams", rng.IntN(100), rng.IntN(9))
		t.Text = fmt.Sprintf("task %s: open a ticket %q", id, t.Title)
	}
	u.mu.Lock()
	u.tasks = append(u.tasks, t)
	u.mu.Unlock()
	return t
}

// do asks for t until it is answered done or failed, at most TaskAttempts
// times.
func (u *users) do(ctx context.Context, t *Task) {
	outcome := "lost"
	var result *Result
	backoff := time.Second
	for n := 1; n <= TaskAttempts; n++ {
		u.mu.Lock()
		t.Attempts = n
		u.mu.Unlock()
		start := time.Now()
		res, err := u.ask(ctx, t, n)
		if ctx.Err() != nil {
			return // the run ended: the task is neither done nor lost
		}
		a := attempt{at: time.Now(), failed: err != nil || res.Status != "done"}
		a.failed = a.failed || a.at.Sub(start) > MaxLatency
		u.mu.Lock()
		u.attempts = append(u.attempts, a)
		u.mu.Unlock()
		if err == nil {
			outcome, result = res.Status, &res
			if res.Status == "done" {
				break
			}
		}
		if n == TaskAttempts || !pause(ctx, backoff) {
			break
		}
		backoff *= 2
	}
	end := time.Now()
	u.mu.Lock()
	t.Outcome, t.Result, t.End = outcome, result, end
	u.mu.Unlock()
}

func (u *users) ask(ctx context.Context, t *Task, attempt int) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, TaskTimeout)
	defer cancel()
	body, _ := json.Marshal(TaskRequest{ID: t.ID, Text: t.Text, Attempt: attempt})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://orchestrator/task", bytes.NewReader(body))
	res, err := u.client.Do(req)
	if err != nil {
		return Result{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return Result{}, fmt.Errorf("orchestrator: %s", res.Status)
	}
	var out Result
	err = json.NewDecoder(res.Body).Decode(&out)
	return out, err
}

// probe is healthy while, over the last Window, at most MaxFailures of the
// users' attempts failed (or took longer than MaxLatency).
func (u *users) probe(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now()
	u.mu.Lock()
	defer u.mu.Unlock()
	i := 0
	for i < len(u.attempts) && !u.attempts[i].at.After(now.Add(-Window)) {
		i++
	}
	u.attempts = u.attempts[i:]
	failed := 0
	for _, a := range u.attempts {
		if a.failed {
			failed++
		}
	}
	if n := len(u.attempts); n > 0 && float64(failed)/float64(n) > MaxFailures {
		return fmt.Errorf("%d of the users' %d tasks in the last %v failed or took over %v", failed, n, Window, MaxLatency)
	}
	return nil
}

// finished returns the tasks that ended and c has not seen yet, and marks
// them seen: tasks end out of order, so c remembers which of those after
// its first unseen one it has seen.
func (u *users) finished(c *cursor) []Task {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []Task
	for i := c.from; i < len(u.tasks); i++ {
		if u.tasks[i].Outcome != "" && !c.seen[i] {
			out = append(out, *u.tasks[i])
			c.seen[i] = true
		}
	}
	for c.seen[c.from] {
		delete(c.seen, c.from)
		c.from++
	}
	return out
}

// cursor is what a reader of the finished tasks has seen: every task
// before from, and those in seen.
type cursor struct {
	from int
	seen map[int]bool
}

func newCursor() *cursor { return &cursor{seen: map[int]bool{}} }

// all returns every finished task.
func (u *users) all() []Task { return u.finished(newCursor()) }
