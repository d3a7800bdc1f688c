package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/agentapi/agentfault"
	"github.com/ares-arena/arena/containers/agentcheck"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/ctxtime"
)

// The agent-level faults, pause, the DAG faults, the probe's GET /health and
// the checks' GET /state go to each agent's fault-control endpoint (package
// agentapi) through the API server's pod proxy:
// /api/v1/namespaces/{ns}/pods/{pod}:{port}/proxy/{path}. An agent that
// answers 404 or 501 does not implement the fault: it fails with
// fault.ErrUnsupported, naming the pod and the kind.

// client is the agent's fault-control endpoint through the API server's pod
// proxy; an answer that is the API server's own (the pod is gone, or its
// agent does not listen) is agentapi.ErrOutOfReach.
func (r *Runtime) client(id string) agentapi.Client {
	return agentapi.Client{
		HTTP: r.proxyC,
		URL: r.host + "/api/v1/namespaces/" + url.PathEscape(r.opts.namespace) + "/pods/" +
			url.PathEscape(id+":"+strconv.Itoa(r.opts.controlPort)) + "/proxy",
		Agent:   id,
		Foreign: apiStatus,
	}
}

// apiStatus returns the message of an answer that is the API server's
// own v1 Status rather than the agent's.
func apiStatus(code int, data []byte) (string, bool) {
	var st struct{ Kind, APIVersion, Message string }
	if json.Unmarshal(data, &st) == nil && st.Kind == "Status" && st.APIVersion == "v1" {
		return strconv.Itoa(code) + " " + st.Message, true
	}
	return "", false
}

// withAPI is the error of a call to an agent when the runtime was told the
// agents serve no contract (WithoutAgentAPI), nil otherwise.
func (r *Runtime) withAPI(id, what string) error {
	if r.opts.controlPort == 0 {
		return fmt.Errorf("kube: agent %s: %s %w (WithoutAgentAPI)", id, what, fault.ErrUnsupported)
	}
	return nil
}

// counting counts the requests of a transport (Runtime.Calls).
type counting struct {
	base http.RoundTripper
	n    *atomic.Int64
}

func (c counting) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(req)
}

// reachable returns the agent's pod when its endpoint can answer: the pod
// exists, is not going and is Ready.
func (r *Runtime) reachable(id, what string) (*corev1.Pod, error) {
	p, err := r.pod(id)
	if err != nil {
		return nil, err
	}
	if p == nil || p.DeletionTimestamp != nil || !podReady(p) {
		return nil, fmt.Errorf("kube: %s %s: %w: the pod is not running", what, id, fault.ErrCannotLand)
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
	track := fault.Type(f.Kind).Liftable() || f.Kind == agentapi.KindPause
	if !r.claim(id, f.Kind, p) {
		return fmt.Errorf("kube: %s %s: %w: the agent is paused", f.Kind, id, fault.ErrCannotLand)
	}
	err = r.withAPI(id, f.Kind)
	if err == nil {
		_, err = r.client(id).Land(ctx, f)
	}
	if err != nil {
		var reach *agentapi.ReachError
		lost := !errors.Is(err, fault.ErrUnsupported) && !errors.Is(err, fault.ErrCannotLand) && !(errors.As(err, &reach) && reach.Foreign)
		if track && lost {
			// The answer was lost (the caller gave up, the connection
			// broke): the fault may have landed all the same, and no
			// one would lift it. Lifting one that did not land is a no-op.
			undo, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
			_, _ = r.client(id).Lift(undo, f.Kind)
			cancel()
		}
		if f.Kind == agentapi.KindPause {
			r.forget(id, f.Kind)
		}
		return fmt.Errorf("kube: %w", err)
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
		return fmt.Errorf("kube: lift %s of %s: %w: the agent is paused; lifting it when resumed", kind, id, fault.ErrCannotLand)
	}
	if err := r.withAPI(id, "lifting "+kind); err != nil {
		return err
	}
	if _, err := r.client(id).Lift(ctx, kind); err != nil {
		return fmt.Errorf("kube: %w", err)
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

// agentFaults are the agent-level faults of every runtime of agentapi
// agents: the capabilities of agentfault.Faults (agentfault.Types), landed
// by landAgentFault.
type agentFaults = agentfault.Faults

// PauseAgent pauses the agent through its fault-control endpoint (the
// agentapi kind pause: Kubernetes cannot freeze a pod): it stops working
// and answering until ResumeAgent or its lift. ListAgents lists it paused.
func (r *Runtime) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	p, err := r.reachable(id, "pause")
	if err != nil {
		return nil, err
	}
	if r.isPaused(p) {
		return nil, fmt.Errorf("kube: pause %s: %w: paused already", id, fault.ErrCannotLand)
	}
	return r.landAgentFault(ctx, id, agentapi.Fault{Kind: agentapi.KindPause})
}

// landAgentFault lands an agent-level fault (agentFault), and hands back
// its lift: DELETE /faults/{kind}, if the fault is still on the pod it
// landed on.
func (r *Runtime) landAgentFault(ctx context.Context, id string, f agentapi.Fault) (fault.Lift, error) {
	if err := r.agentFault(ctx, id, f); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return r.liftAgentFault(ctx, id, f.Kind) }, nil
}

// ResumeAgent lifts the agent's pause; an agent this runtime did not pause
// is ErrCannotLand.
func (r *Runtime) ResumeAgent(ctx context.Context, id string) error {
	p, err := r.pod(id)
	if err != nil {
		return err
	}
	if p == nil || !r.isPaused(p) {
		return fmt.Errorf("kube: resume %s: %w: not paused", id, fault.ErrCannotLand)
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
func (r *Runtime) ListEdges(ctx context.Context) ([]fault.Edge, error) {
	sts, err := r.states(ctx)
	if err != nil && !errors.Is(err, fault.ErrNotApplicable) {
		return nil, err
	}
	var out []fault.Edge
	for _, id := range slices.Sorted(maps.Keys(sts)) {
		st := sts[id]
		if st.DAG.Removed {
			continue
		}
		for _, to := range slices.Sorted(slices.Values(st.DAG.Routes)) {
			if sts[to].DAG.Removed {
				continue
			}
			out = append(out, fault.Edge{Source: id, Target: to})
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

// health asks the agent's GET /health within the probe timeout. has false
// with a nil error: the agent has no /health (404/501), readiness decides.
func (r *Runtime) health(ctx context.Context, id string) (h agentapi.Health, has bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.probeTimeout)
	defer cancel()
	if r.opts.controlPort == 0 {
		return agentapi.Health{}, false, nil
	}
	h, err = r.client(id).Health(ctx, "")
	var reach *agentapi.ReachError
	switch {
	case errors.Is(err, fault.ErrUnsupported):
		return h, false, nil
	case errors.As(err, &reach) && ctx.Err() != nil:
		return h, true, fmt.Errorf("no answer within %v", r.opts.probeTimeout)
	case errors.As(err, &reach):
		return h, true, errors.New(reach.Reason) // the probe names the agent
	}
	return h, true, err
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
// a check fails with fault.ErrNotApplicable (not measured).
func (r *Runtime) Checks() []fault.Check {
	if r.opts.controlPort == 0 {
		return nil
	}
	return []fault.Check{
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

// State reads the agent's GET /state through the pod proxy
// (fault.ErrUnsupported when it has none).
func (r *Runtime) State(ctx context.Context, id string) (agentapi.State, error) {
	if err := r.withAPI(id, "GET "+agentapi.PathState); err != nil {
		return agentapi.State{}, err
	}
	st, err := r.client(id).State(ctx)
	if err != nil {
		return st, fmt.Errorf("kube: %w", err)
	}
	return st, nil
}

// readState reads the state of an agent that can answer, retrying a few
// times: a pod that has just become Ready may need a moment to listen.
func (r *Runtime) readState(ctx context.Context, id string) (agentapi.State, error) {
	var err error
	for try := 0; try < 4; try++ {
		p, perr := r.pods.Get(id)
		if perr != nil || p.DeletionTimestamp != nil || !podReady(p) {
			return agentapi.State{}, agentcheck.ErrSkip
		}
		if r.isPaused(p) || r.wasKilled(p) {
			return agentapi.State{}, agentcheck.ErrSkip
		}
		var st agentapi.State
		if st, err = r.State(ctx, id); err == nil || errors.Is(err, fault.ErrUnsupported) {
			return st, err
		}
		if ctxtime.Sleep(ctx, 250*time.Millisecond) != nil {
			return agentapi.State{}, fmt.Errorf("state unreadable: %w", err)
		}
	}
	return agentapi.State{}, fmt.Errorf("state unreadable: %w", err)
}

// states reads the state of every agent pod that can answer
// (agentcheck.States).
func (r *Runtime) states(ctx context.Context) (map[string]agentapi.State, error) {
	pods, err := r.pods.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(pods))
	for i, p := range pods {
		ids[i] = p.Name
	}
	return agentcheck.States(ctx, ids, r.readState)
}
