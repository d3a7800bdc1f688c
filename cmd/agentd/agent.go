package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/internal/ctxtime"
)

// routeTimeout bounds a hand-off to a route; a route that fails is skipped
// for routeBackoff.
const (
	routeTimeout = 300 * time.Millisecond
	routeBackoff = time.Second
	idlePoll     = 50 * time.Millisecond
)

// Agent is one agentd process: its ledger, memory, faults and loops.
type Agent struct {
	cfg    Config
	log    *slog.Logger
	client *http.Client
	now    func() time.Time

	wake chan struct{} // a task arrived

	mu       sync.Mutex
	started  time.Time
	ledger   *ledger
	mem      memory
	store    store
	ckptAt   time.Time
	restores int
	faults   faultSet
	resume   chan struct{}        // closed when the current pause is lifted
	seq      int                  // last task number created by a source
	down     map[string]time.Time // route → skipped until
	rr       int                  // round-robin position
	finishes []finish             // within the error window
	attempts agentapi.Attempts
}

type finish struct {
	at time.Time
	ok bool
}

// NewAgent opens the agent's ledger and checkpoint and restores its memory.
func NewAgent(cfg Config, log *slog.Logger) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	l, err := openLedger(cfg.Data)
	if err != nil {
		return nil, err
	}
	a := &Agent{
		cfg: cfg, log: log, client: cfg.Client,
		wake: make(chan struct{}, 1), ledger: l, store: store{dir: cfg.Data},
		down: map[string]time.Time{}, mem: newMemory(),
	}
	a.now = func() time.Time { return time.Now().Add(time.Duration(a.faults.skew.Load())) } // clock_jump moves it
	if a.client == nil {
		a.client = &http.Client{Timeout: routeTimeout}
	}
	a.started = a.now()
	a.seq = l.maxSeq(cfg.ID)
	a.attempts.Failed = map[string]int{}
	switch m, at, err := a.store.load(); {
	case err == nil:
		a.mem, a.ckptAt = m, at
		a.restores++
	case !errors.Is(err, errNoCheckpoint):
		log.Warn("checkpoint unreadable; starting with empty memory", "err", err)
	}
	if c := l.counts; c.Accepted > 0 {
		log.Info("ledger replayed", "accepted", c.Accepted, "pending", c.Pending, "done", c.Done, "failed", c.Failed, "handed", c.Handed)
	}
	return a, nil
}

// Close closes the ledger.
func (a *Agent) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ledger.close()
}

// Run runs the agent's loops until ctx ends.
func (a *Agent) Run(ctx context.Context) {
	var wg sync.WaitGroup
	loops := []func(context.Context){a.processLoop, a.checkpointLoop}
	if a.cfg.Source {
		loops = append(loops, a.sourceLoop)
	}
	for _, loop := range loops {
		wg.Go(func() { loop(ctx) })
	}
	wg.Wait()
}

// paused reports whether a pause is active now.
func (a *Agent) paused() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults.expire(a.now())
	return a.faults.has(agentapi.KindPause, "")
}

// pause returns the agent's pause fault, if it has one, and the channel
// closed when it is lifted.
func (a *Agent) pause() (agentapi.ActiveFault, bool, chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults.expire(a.now())
	f, paused := a.faults.get(agentapi.KindPause)
	return f, paused, a.resume
}

// waitUnpaused returns once the agent is not paused: at once, or when the
// pause is lifted or ends. It reports false when ctx ended first.
func (a *Agent) waitUnpaused(ctx context.Context) bool {
	for ctx.Err() == nil {
		f, paused, resume := a.pause()
		if !paused {
			return true
		}
		var until <-chan time.Time
		var t *time.Timer
		if !f.Until.IsZero() {
			t = time.NewTimer(f.Until.Sub(a.now()))
			until = t.C
		}
		select {
		case <-ctx.Done():
		case <-resume:
		case <-until:
		}
		if t != nil {
			t.Stop()
		}
	}
	return false
}

func (a *Agent) notify() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// sourceLoop creates a task every TaskInterval while the agent is in the DAG
// and its queue has room.
func (a *Agent) sourceLoop(ctx context.Context) {
	t := time.NewTicker(a.cfg.TaskInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !a.waitUnpaused(ctx) {
			return
		}
		a.arrive()
		a.notify()
	}
}

// arrive accepts a new task of the agent's own workload, unless its node is
// removed or too many are pending.
func (a *Agent) arrive() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults.expire(a.now())
	if !a.faults.has(agentapi.KindRemoveNode, "") && a.ledger.counts.Pending < a.cfg.MaxPending {
		a.seq++
		if _, err := a.ledger.accept(a.cfg.ID + "-" + strconv.Itoa(a.seq)); err != nil {
			a.log.Error("ledger", "err", err)
		}
	}
}

// checkpointLoop checkpoints a sound memory, and restores a corrupted one
// from the last checkpoint.
func (a *Agent) checkpointLoop(ctx context.Context) {
	t := time.NewTicker(a.cfg.CheckpointInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !a.waitUnpaused(ctx) {
			return
		}
		a.checkpointTick()
	}
}

func (a *Agent) checkpointTick() {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if a.mem.ok() {
		if err := a.store.save(a.mem, now); err != nil {
			a.log.Error("checkpoint", "err", err)
			return
		}
		a.ckptAt = now
		return
	}
	m, _, err := a.store.load()
	switch {
	case errors.Is(err, errNoCheckpoint):
		m = newMemory()
	case err != nil:
		a.log.Error("memory corrupted and checkpoint unreadable", "err", err)
		return
	}
	a.mem = m
	a.restores++
	a.log.Info("memory corrupted: restored from the checkpoint", "tasks", m.Tasks)
}

// processLoop takes the oldest pending task and hands it on (an agent with
// routes) or executes it.
func (a *Agent) processLoop(ctx context.Context) {
	for a.waitUnpaused(ctx) {
		id, ok, removed := a.next()
		if !ok || removed {
			select {
			case <-ctx.Done():
			case <-a.wake:
			case <-time.After(idlePoll):
			}
			continue
		}
		if len(a.cfg.Routes) > 0 {
			if !a.route(ctx, id) {
				ctxtime.Sleep(ctx, idlePoll)
			}
			continue
		}
		a.execute(ctx, id)
	}
}

// next returns the oldest pending task, if any, and whether the agent's
// node is removed from the DAG.
func (a *Agent) next() (id string, ok, removed bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults.expire(a.now())
	removed = a.faults.has(agentapi.KindRemoveNode, "")
	id, ok = a.ledger.next()
	return id, ok, removed
}

// route hands task id to the next route that takes it. It reports whether
// one did.
func (a *Agent) route(ctx context.Context, id string) bool {
	for _, r := range a.routes() {
		if err := a.post(ctx, r, id); err != nil {
			a.routeDown(r)
			a.log.Debug("route refused", "route", r, "task", id, "err", err)
			continue
		}
		a.handed(id, r)
		return true
	}
	return false
}

// routes returns the routes a task may take now, in round-robin order:
// those whose edge is in the DAG and that did not refuse one lately.
func (a *Agent) routes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	var cands []string
	for i := range a.cfg.Routes {
		r := a.cfg.Routes[(a.rr+i)%len(a.cfg.Routes)]
		if a.faults.has(agentapi.KindRemoveEdge, r) || now.Before(a.down[r]) {
			continue
		}
		cands = append(cands, r)
	}
	return cands
}

// routeDown skips route r for routeBackoff.
func (a *Agent) routeDown(r string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.down[r] = a.now().Add(routeBackoff)
}

// handed records task id handed on to route r.
func (a *Agent) handed(id, r string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rr = (slices.Index(a.cfg.Routes, r) + 1) % len(a.cfg.Routes)
	if err := a.ledger.hand(id, r); err != nil {
		a.log.Error("ledger", "err", err)
	}
}

func (a *Agent) routeURL(id string) string {
	if a.cfg.RouteURL != nil {
		return a.cfg.RouteURL(id)
	}
	if u, ok := a.cfg.RouteURLs[id]; ok {
		return u
	}
	return "http://" + id + ":" + strconv.Itoa(a.cfg.RoutePort)
}

// taskBody is agentd's hand-off message (POST /tasks).
type taskBody struct {
	ID   string `json:"id"`
	From string `json:"from"`
}

func (a *Agent) post(ctx context.Context, to, id string) error {
	body, _ := json.Marshal(taskBody{ID: id, From: a.cfg.ID})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.routeURL(to)+agentapi.PathTasks, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("%s answered %s", to, resp.Status)
	}
	return nil
}

// execute runs task id to its end: attempts with retries and doubling
// backoff, then done or failed for good.
func (a *Agent) execute(ctx context.Context, id string) {
	for try := 0; ; try++ {
		reason := a.attempt(ctx)
		if ctx.Err() != nil {
			return // a shutdown is not the task's failure; it stays pending
		}
		final := reason == "" || try >= a.cfg.Retries || reason == "llm_failure:invalid_response"
		a.attempted(id, reason, final)
		if final {
			return
		}
		if ctxtime.Sleep(ctx, a.cfg.Backoff<<try) != nil {
			return
		}
	}
}

// attempted records an attempt at task id that failed for reason ("":
// succeeded), and the task's end when it is final.
func (a *Agent) attempted(id, reason string, final bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if reason == "" {
		a.attempts.OK++
	} else {
		a.attempts.Failed[reason]++
	}
	if !final {
		return
	}
	if err := a.ledger.finish(id, reason == "", reason); err != nil {
		a.log.Error("ledger", "err", err)
	}
	if reason == "" {
		a.mem.record(id)
	}
	a.finishes = append(a.finishes, finish{at: a.now(), ok: reason == ""})
}

// attempt is one try at a task: the memory, MCP and LLM must be sound at its
// start and end, the CPU work is done, a tool is called. It returns why it
// failed, or "".
func (a *Agent) attempt(ctx context.Context) string {
	start := a.now()
	if r := a.broken(); r != "" {
		return r
	}
	a.work()
	tool, hang := a.fault(agentapi.KindToolTimeout)
	if hang {
		wait := min(tool.Timeout.D(), a.cfg.TaskTimeout-a.now().Sub(start))
		ctxtime.Sleep(ctx, wait)
		return agentapi.KindToolTimeout
	}
	ctxtime.Sleep(ctx, a.cfg.ToolLatency)
	if a.now().Sub(start) > a.cfg.TaskTimeout {
		return "task_timeout"
	}
	return a.broken()
}

// fault returns the agent's fault of kind, if it has one.
func (a *Agent) fault(kind string) (agentapi.ActiveFault, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults.expire(a.now())
	return a.faults.get(kind)
}

// broken returns the fault that makes an attempt fail now, or "".
func (a *Agent) broken() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults.expire(a.now())
	switch {
	case !a.mem.ok():
		return agentapi.KindMemoryCorrupt
	case a.faults.has(agentapi.KindMCPDisconnect, ""):
		return agentapi.KindMCPDisconnect
	}
	if f, ok := a.faults.get(agentapi.KindLLMFailure); ok {
		return agentapi.KindLLMFailure + ":" + f.ErrorType
	}
	return ""
}

// work burns a fixed amount of CPU: what slow_agent's throttling slows.
func (a *Agent) work() {
	start := time.Now()
	var h [32]byte
	for i := 0; i < a.cfg.Work; i++ {
		h = sha256.Sum256(h[:])
	}
	took := agentapi.Duration(time.Since(start))
	a.mu.Lock()
	a.attempts.LastWork = took
	a.mu.Unlock()
}

// health says whether the agent works: in the DAG with all its edges, and
// with an error rate under the threshold. Call with a.mu held.
func (a *Agent) health() agentapi.Health {
	now := a.now()
	a.faults.expire(now)
	if a.faults.has(agentapi.KindRemoveNode, "") {
		return agentapi.Health{Reason: "dag broken: node " + a.cfg.ID + " removed", DAGBroken: true}
	}
	for _, r := range a.cfg.Routes {
		if a.faults.has(agentapi.KindRemoveEdge, r) {
			return agentapi.Health{Reason: "dag broken: missing edge " + a.cfg.ID + "->" + r, DAGBroken: true}
		}
	}
	from := now.Add(-a.cfg.ErrorWindow)
	a.finishes = slices.DeleteFunc(a.finishes, func(f finish) bool { return f.at.Before(from) })
	failed := 0
	for _, f := range a.finishes {
		if !f.ok {
			failed++
		}
	}
	if n := len(a.finishes); n > 0 {
		if rate := float64(failed) / float64(n); rate > a.cfg.ErrorThreshold {
			return agentapi.Health{Reason: fmt.Sprintf("error rate %.2f above %.2f", rate, a.cfg.ErrorThreshold)}
		}
	}
	return agentapi.Health{Healthy: true}
}

// State returns the agent's state as GET /state shows it.
func (a *Agent) State() agentapi.State {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a.health()
	st := agentapi.State{
		ID: a.cfg.ID, Type: a.cfg.Type, Started: a.started,
		Faults: a.faults.list(), Tasks: a.ledger.counts, Ledger: a.ledger.snapshot(), Health: h,
		Attempts: agentapi.Attempts{OK: a.attempts.OK, LastWork: a.attempts.LastWork},
	}
	if len(a.attempts.Failed) > 0 {
		st.Attempts.Failed = map[string]int{}
		for k, v := range a.attempts.Failed {
			st.Attempts.Failed[k] = v
		}
	}
	sum := a.mem.checksum()
	st.Memory = agentapi.Memory{OK: a.mem.ok(), Checksum: hex.EncodeToString(sum[:]), CheckpointAt: a.ckptAt, Restores: a.restores}
	_, _, err := a.store.load()
	st.Memory.CheckpointOK = err == nil
	st.DAG = agentapi.DAG{Removed: a.faults.has(agentapi.KindRemoveNode, ""), Routes: []string{}, Missing: []string{}}
	for _, r := range a.cfg.Routes {
		if a.faults.has(agentapi.KindRemoveEdge, r) {
			st.DAG.Missing = append(st.DAG.Missing, r)
		} else {
			st.DAG.Routes = append(st.DAG.Routes, r)
		}
	}
	return st
}
