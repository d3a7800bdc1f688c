package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ares-arena/arena"
	"github.com/ares-arena/arena/containers/agentapi"
	"github.com/ares-arena/arena/containers/agentcheck"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// The agent-level faults, pause, the DAG faults, the probe's GET /health and
// the checks' GET /state go to each agent's fault-control endpoint (package
// agentapi) through the API server's pod proxy:
// /api/v1/namespaces/{ns}/pods/{pod}:{port}/proxy/{path}. An agent that
// answers 404 or 501 does not implement the fault: it fails with
// arena.ErrUnsupported, naming the pod and the kind.

// errOutOfReach: the API server could not reach the agent (its answer is
// the API server's, not the agent's).
var errOutOfReach = errors.New("control endpoint out of reach")

// proxy sends one request to the agent's pod through the API server's pod
// proxy and returns the answer as it came: the agent's, or the API
// server's own (a v1 Status) when it could not reach the agent.
func (r *Runtime) proxy(ctx context.Context, id, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := r.host + "/api/v1/namespaces/" + url.PathEscape(r.opts.namespace) + "/pods/" +
		url.PathEscape(id+":"+strconv.Itoa(r.opts.controlPort)) + "/proxy" + path
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	r.calls.Add(1)
	resp, err := r.httpc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return resp.StatusCode, data, err
}

// apiStatus returns the message of an answer that is the API server's
// own v1 Status rather than the agent's.
func apiStatus(data []byte) (string, bool) {
	var st struct{ Kind, APIVersion, Message string }
	if json.Unmarshal(data, &st) == nil && st.Kind == "Status" && st.APIVersion == "v1" {
		return st.Message, true
	}
	return "", false
}

// call sends one request of the contract to the agent's pod and decodes a
// 200 answer into out.
func (r *Runtime) call(ctx context.Context, id, method, path string, body, out any) error {
	if r.opts.controlPort == 0 {
		return fmt.Errorf("kube: agent %s: %s %s: %w (WithoutAgentAPI)", id, method, path, arena.ErrUnsupported)
	}
	code, data, err := r.proxy(ctx, id, method, path, body)
	if err != nil {
		return fmt.Errorf("kube: agent %s: %s %s: %w", id, method, path, err)
	}
	if code == http.StatusOK {
		if out != nil {
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("kube: agent %s: %s %s: %w", id, method, path, err)
			}
		}
		return nil
	}
	if msg, ok := apiStatus(data); ok {
		// The pod is gone, or its agent does not listen.
		return fmt.Errorf("kube: agent %s: %s %s: %w: %d %s", id, method, path, errOutOfReach, code, msg)
	}
	var e agentapi.Error
	msg := strconv.Itoa(code) + " " + http.StatusText(code)
	if json.Unmarshal(data, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	switch code {
	case http.StatusNotFound, http.StatusNotImplemented, http.StatusMethodNotAllowed:
		return fmt.Errorf("kube: agent %s: %s %s: %w: the agent answered %s", id, method, path, arena.ErrUnsupported, msg)
	case http.StatusConflict:
		return fmt.Errorf("kube: agent %s: %w: %s", id, ErrCannotLand, msg)
	}
	return fmt.Errorf("kube: agent %s: %s %s: %s", id, method, path, msg)
}

// reachable returns the agent's pod when its endpoint can answer: the pod
// exists, is not going and is Ready.
func (r *Runtime) reachable(id, what string) (*corev1.Pod, error) {
	p, err := r.pod(id)
	if err != nil {
		return nil, err
	}
	if p == nil || p.DeletionTimestamp != nil || !podReady(p) {
		return nil, fmt.Errorf("kube: %s %s: %w: the pod is not running", what, id, ErrCannotLand)
	}
	return p, nil
}

// undoTimeout bounds the lift sent after a fault's answer was lost.
const undoTimeout = 2 * time.Second

// agentFault lands an agent-level fault through the agent's POST /faults.
// A paused agent answers nothing: nothing lands on it but its resume.
func (r *Runtime) agentFault(ctx context.Context, id string, f agentapi.Fault) error {
	p, err := r.reachable(id, f.Kind)
	if err != nil {
		return err
	}
	track := arena.ActionType(f.Kind).Liftable() || f.Kind == agentapi.KindPause
	if !r.claim(id, f.Kind, p) {
		return fmt.Errorf("kube: %s %s: %w: the agent is paused", f.Kind, id, ErrCannotLand)
	}
	if err := r.call(ctx, id, http.MethodPost, agentapi.PathFaults, f, nil); err != nil {
		if track && !errors.Is(err, errOutOfReach) && !errors.Is(err, arena.ErrUnsupported) && !errors.Is(err, ErrCannotLand) {
			// The answer was lost (the caller gave up, the connection
			// broke): the fault may have landed all the same, and no
			// one would lift it. Lifting one that did not land is a no-op.
			undo, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
			_ = r.call(undo, id, http.MethodDelete, agentapi.PathFaults+"/"+url.PathEscape(f.Kind), nil, nil)
			cancel()
		}
		if f.Kind == agentapi.KindPause {
			r.forget(id, f.Kind)
		}
		return fmt.Errorf("%w (fault %s)", err, f.Kind)
	}
	if track {
		r.record(id, f.Kind, p.UID)
	}
	return nil
}

// claim reports whether a fault of kind may land on the agent that p runs:
// not when it is paused. A pause is recorded at once, so that a concurrent
// fault sees the agent paused.
func (r *Runtime) claim(id, kind string, p *corev1.Pod) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.paused(p) {
		return false
	}
	if kind == agentapi.KindPause {
		r.track(id, kind, p.UID)
	}
	return true
}

// record is track under the lock.
func (r *Runtime) record(id, kind string, uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.track(id, kind, uid)
}

// track records a fault landed on pod uid; r.mu is held.
func (r *Runtime) track(id, kind string, uid types.UID) {
	if r.lifts[id] == nil {
		r.lifts[id] = map[string]types.UID{}
	}
	r.lifts[id][kind] = uid
}

// deferIfPaused notes the lift of kind for the agent's resume when the
// agent that p runs is paused, and reports whether it was.
func (r *Runtime) deferIfPaused(id, kind string, p *corev1.Pod) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.paused(p) {
		return false
	}
	if !slices.Contains(r.deferred[id], kind) {
		r.deferred[id] = append(r.deferred[id], kind)
	}
	return true
}

// liftAgentFault lifts kind on the agent (DELETE /faults/{kind}) if this
// runtime landed it on the pod that runs now; otherwise nothing is active.
// A paused agent answers nothing: its other faults are lifted right after
// its pause.
func (r *Runtime) liftAgentFault(ctx context.Context, id, kind string) error {
	r.mu.Lock()
	uid, ok := r.lifts[id][kind]
	r.mu.Unlock()
	if !ok {
		return nil
	}
	p, err := r.pods.Get(id)
	if err != nil || p.UID != uid {
		r.forget(id, kind) // the pod it landed on is gone, and the fault with it
		return nil
	}
	if kind != agentapi.KindPause && r.deferIfPaused(id, kind, p) {
		return fmt.Errorf("kube: lift %s of %s: %w: the agent is paused; lifting it when resumed", kind, id, ErrCannotLand)
	}
	if err := r.call(ctx, id, http.MethodDelete, agentapi.PathFaults+"/"+url.PathEscape(kind), nil, nil); err != nil {
		return fmt.Errorf("%w (lift %s)", err, kind)
	}
	r.forget(id, kind)
	if kind != agentapi.KindPause {
		return nil
	}
	r.mu.Lock()
	later := r.deferred[id]
	delete(r.deferred, id)
	r.mu.Unlock()
	var errs []error
	for _, k := range later {
		errs = append(errs, r.liftAgentFault(ctx, id, k))
	}
	return errors.Join(errs...)
}

func (r *Runtime) forget(id, kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.lifts[id], kind)
	if len(r.lifts[id]) == 0 {
		delete(r.lifts, id)
	}
}

// paused reports whether this runtime paused the agent's current pod.
func (r *Runtime) paused(p *corev1.Pod) bool {
	uid, ok := r.lifts[p.Name][agentapi.KindPause]
	return ok && uid == p.UID
}

// isPaused is paused under the lock.
func (r *Runtime) isPaused(p *corev1.Pod) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paused(p)
}

// wasKilled reports whether this runtime killed the pod p.
func (r *Runtime) wasKilled(p *corev1.Pod) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.killed[p.UID]
}

// ToolTimeout makes the agent's tool calls hang for timeout, then fail,
// until LiftFault.
func (r *Runtime) ToolTimeout(ctx context.Context, id string, timeout time.Duration) error {
	return r.agentFault(ctx, id, agentapi.Fault{Kind: agentapi.KindToolTimeout, Timeout: agentapi.Duration(timeout)})
}

// CorruptMemory corrupts the agent's memory; the agent heals it from its
// checkpoint.
func (r *Runtime) CorruptMemory(ctx context.Context, id string) error {
	return r.agentFault(ctx, id, agentapi.Fault{Kind: agentapi.KindMemoryCorrupt})
}

// DisconnectMCP drops the agent's MCP session (agentd reconnects after 1s).
func (r *Runtime) DisconnectMCP(ctx context.Context, id string) error {
	return r.agentFault(ctx, id, agentapi.Fault{Kind: agentapi.KindMCPDisconnect})
}

// InjectLLMFailure makes the agent's LLM calls fail with errType until
// LiftFault.
func (r *Runtime) InjectLLMFailure(ctx context.Context, id string, errType arena.LLMErrorType) error {
	return r.agentFault(ctx, id, agentapi.Fault{Kind: agentapi.KindLLMFailure, ErrorType: string(errType)})
}

// PauseAgent pauses the agent through its fault-control endpoint (the
// agentapi kind pause: Kubernetes cannot freeze a pod): it stops working
// and answering until ResumeAgent or LiftFault. ListAgents lists it paused.
func (r *Runtime) PauseAgent(ctx context.Context, id string) error {
	p, err := r.reachable(id, "pause")
	if err != nil {
		return err
	}
	if r.isPaused(p) {
		return fmt.Errorf("kube: pause %s: %w: paused already", id, ErrCannotLand)
	}
	return r.agentFault(ctx, id, agentapi.Fault{Kind: agentapi.KindPause})
}

// ResumeAgent lifts the agent's pause; an agent this runtime did not pause
// is ErrCannotLand.
func (r *Runtime) ResumeAgent(ctx context.Context, id string) error {
	p, err := r.pod(id)
	if err != nil {
		return err
	}
	if p == nil || !r.isPaused(p) {
		return fmt.Errorf("kube: resume %s: %w: not paused", id, ErrCannotLand)
	}
	return r.liftAgentFault(ctx, id, agentapi.KindPause)
}

// ListNodes returns the agents that are in the task DAG (not removed), in
// ID order. Agents whose state cannot be read are listed.
func (r *Runtime) ListNodes(ctx context.Context) ([]string, error) {
	agents, err := r.ListAgents(ctx)
	if err != nil {
		return nil, err
	}
	sts, _ := r.states(ctx)
	var out []string
	for _, a := range agents {
		if !sts[a.ID].DAG.Removed {
			out = append(out, a.ID)
		}
	}
	return out, nil
}

// ListEdges returns the present edges of the task DAG, as the agents
// report them in GET /state (dag.routes), by source then target.
func (r *Runtime) ListEdges(ctx context.Context) ([]arena.Edge, error) {
	sts, err := r.states(ctx)
	if err != nil && !errors.Is(err, arena.ErrNotApplicable) {
		return nil, err
	}
	var out []arena.Edge
	for _, id := range slices.Sorted(maps.Keys(sts)) {
		st := sts[id]
		if st.DAG.Removed {
			continue
		}
		for _, to := range slices.Sorted(slices.Values(st.DAG.Routes)) {
			if sts[to].DAG.Removed {
				continue
			}
			out = append(out, arena.Edge{Source: id, Target: to})
		}
	}
	return out, nil
}

// RemoveNode takes the agent out of the task DAG (agentd repairs it after
// its -dag-repair).
func (r *Runtime) RemoveNode(ctx context.Context, nodeID string) error {
	return r.agentFault(ctx, nodeID, agentapi.Fault{Kind: agentapi.KindRemoveNode})
}

// RemoveEdge makes sourceID stop routing tasks to targetID.
func (r *Runtime) RemoveEdge(ctx context.Context, sourceID, targetID string) error {
	return r.agentFault(ctx, sourceID, agentapi.Fault{Kind: agentapi.KindRemoveEdge, Target: targetID})
}

// health asks the agent's GET /health within the probe timeout. ok false
// with a nil error: the agent has no /health (404/501), readiness decides.
func (r *Runtime) health(ctx context.Context, id string) (h agentapi.Health, has bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.probeTimeout)
	defer cancel()
	if r.opts.controlPort == 0 {
		return agentapi.Health{}, false, nil
	}
	code, data, err := r.proxy(ctx, id, http.MethodGet, agentapi.PathHealth, nil)
	if err != nil {
		if ctx.Err() != nil {
			return h, true, fmt.Errorf("no answer within %v", r.opts.probeTimeout)
		}
		return h, true, err
	}
	if msg, ok := apiStatus(data); ok {
		return h, true, errors.New(msg)
	}
	switch code {
	case http.StatusOK:
		return agentapi.Health{Healthy: true}, true, nil
	case http.StatusServiceUnavailable:
		if json.Unmarshal(data, &h) != nil || h.Reason == "" {
			h = agentapi.Health{Reason: "503"}
		}
		h.Healthy = false
		return h, true, nil
	case http.StatusNotFound, http.StatusNotImplemented:
		return h, false, nil
	}
	return h, true, fmt.Errorf("health answered %d", code)
}

// Checks returns the consistency checks of package agentcheck over the
// agents' GET /state, read through the pod proxy:
//
//   - "tasks": no task lost: every task an agent handed on is in the
//     ledger of the agent it was handed to;
//   - "memory": every agent's memory matches its checksum, and its last
//     checkpoint reads back intact.
//
// Agents that cannot answer by design (not Ready, paused, killed) are
// skipped;
// agents that answer 404 are left out; when no agent's state could be read
// a check fails with arena.ErrNotApplicable (not measured).
func (r *Runtime) Checks() []arena.Check {
	if r.opts.controlPort == 0 {
		return nil
	}
	return []arena.Check{
		{Name: "tasks", Run: func(ctx context.Context) error {
			sts, err := r.states(ctx)
			if err != nil {
				return err
			}
			return agentcheck.Tasks(ctx, sts, r.readState)
		}},
		{Name: "memory", Run: func(ctx context.Context) error {
			sts, err := r.states(ctx)
			if err != nil {
				return err
			}
			return agentcheck.Memory(sts)
		}},
	}
}

var errSkip = errors.New("agent out of reach by design")

// State reads the agent's GET /state through the pod proxy
// (arena.ErrUnsupported when it has none).
func (r *Runtime) State(ctx context.Context, id string) (agentapi.State, error) {
	var st agentapi.State
	err := r.call(ctx, id, http.MethodGet, agentapi.PathState, nil, &st)
	return st, err
}

// readState reads the state of an agent that can answer, retrying a few
// times: a pod that has just become Ready may need a moment to listen.
func (r *Runtime) readState(ctx context.Context, id string) (agentapi.State, error) {
	var err error
	for try := 0; try < 4; try++ {
		p, perr := r.pods.Get(id)
		if perr != nil || p.DeletionTimestamp != nil || !podReady(p) {
			return agentapi.State{}, errSkip
		}
		if r.isPaused(p) || r.wasKilled(p) {
			return agentapi.State{}, errSkip
		}
		var st agentapi.State
		if st, err = r.State(ctx, id); err == nil || errors.Is(err, arena.ErrUnsupported) {
			return st, err
		}
		t := time.NewTimer(250 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return agentapi.State{}, fmt.Errorf("state unreadable: %w", err)
		case <-t.C:
		}
	}
	return agentapi.State{}, fmt.Errorf("state unreadable: %w", err)
}

// states reads the state of every agent that can answer, in parallel. When
// none could, the error wraps arena.ErrNotApplicable.
func (r *Runtime) states(ctx context.Context) (map[string]agentapi.State, error) {
	pods, err := r.pods.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	out := map[string]agentapi.State{}
	var mu sync.Mutex
	var errs []error
	unsupported, skipped := 0, 0
	var wg sync.WaitGroup
	for _, p := range pods {
		wg.Go(func() {
			st, err := r.readState(ctx, p.Name)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, errSkip):
				skipped++
			case errors.Is(err, arena.ErrUnsupported):
				unsupported++
			case err != nil:
				errs = append(errs, err)
			default:
				out[p.Name] = st
			}
		})
	}
	wg.Wait()
	if len(errs) == 0 && len(out) == 0 {
		return nil, fmt.Errorf("%w: no agent's state was read (%d of %d agents do not serve GET %s, %d out of reach)",
			arena.ErrNotApplicable, unsupported, len(pods), agentapi.PathState, skipped)
	}
	return out, errors.Join(errs...)
}
