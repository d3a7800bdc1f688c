package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/agentapi/agentfault"
	"github.com/ares-arena/arena/fault"
)

// StopAgent deletes the agent's pod with grace period 0, as a crash would
// end it: its controller (StatefulSet, ReplicaSet) resurrects it, and the
// kill counts as a restart of the pod's name or owner (ListAgents). A
// StatefulSet pod already gone (between a kill and its return) is not
// killed twice: ErrCannotLand.
func (r *Runtime) StopAgent(ctx context.Context, id string) error {
	p, err := r.pod(id)
	if err != nil {
		return err
	}
	if p == nil || p.DeletionTimestamp != nil {
		return fmt.Errorf("kube: kill %s: %w: the pod is already going", id, fault.ErrCannotLand)
	}
	r.calls.Add(1)
	err = r.cs.CoreV1().Pods(r.opts.namespace).Delete(ctx, id, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64),
		Preconditions:      &metav1.Preconditions{UID: &p.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return fmt.Errorf("kube: kill %s: %w: the pod is already gone", id, fault.ErrCannotLand)
	}
	if err != nil {
		return fmt.Errorf("kube: kill %s: %w", id, err)
	}
	r.noteKill(p)
	return nil
}

// noteKill records the kill of pod p: stopped, though the cache may list
// it a moment longer.
func (r *Runtime) noteKill(p *corev1.Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.remember(p)
	r.restarts[k.restarts]++
	r.killed[p.UID] = true
}

// PartitionNetwork isolates the agent's pod with a NetworkPolicy that
// selects it (by the label arena.io/partition, set on the pod) and allows
// no traffic in or out. The policy carries the run's labels and is deleted
// on lift, after WithPartitionHealing, or by Close. Landed means a policy
// in force where something enforces it: on a kwok node nothing does, so
// (unless WithEnforcement(EnforcementAssumed)) the partition fails with
// ErrNotEnforced and nothing is created.
func (r *Runtime) PartitionNetwork(ctx context.Context, id string) (fault.Lift, error) {
	p, err := r.pod(id)
	if err != nil {
		return nil, err
	}
	if p == nil || p.DeletionTimestamp != nil {
		return nil, fmt.Errorf("kube: partition %s: %w: the pod is not running", id, fault.ErrCannotLand)
	}
	if r.opts.enforcement == EnforcementDetect {
		sim, err := r.onSimulatedNode(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("kube: partition %s: %w", id, err)
		}
		if sim {
			return nil, fmt.Errorf("kube: partition %s: %w: node %s is simulated by kwok (no CNI)", id, ErrNotEnforced, p.Spec.NodeName)
		}
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, fmt.Errorf("kube: partition %s: runtime closed", id)
	}
	if _, ok := r.partitions[id]; ok {
		r.mu.Unlock()
		return nil, fmt.Errorf("kube: partition %s: %w: partitioned already", id, fault.ErrCannotLand)
	}
	part := &partition{policy: "arena-partition-" + r.runID + "-" + id}
	if len(part.policy) > 253 {
		part.policy = part.policy[:253]
	}
	r.partitions[id] = part
	r.mu.Unlock()

	policy := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: part.policy, Labels: r.runLabels()},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{LabelPartition: part.policy}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
	r.calls.Add(2)
	_, err = r.cs.NetworkingV1().NetworkPolicies(r.opts.namespace).Create(ctx, policy, metav1.CreateOptions{})
	if err == nil {
		err = r.labelPod(ctx, id, part.policy)
	}
	if err != nil {
		r.mu.Lock()
		delete(r.partitions, id)
		r.mu.Unlock()
		return nil, errors.Join(fmt.Errorf("kube: partition %s: %w", id, err), r.deletePolicy(ctx, part.policy))
	}
	if d := r.opts.partitionHeal; d > 0 {
		r.healAfter(d, id, part)
	}
	return func(ctx context.Context) error { return r.healPart(ctx, id, part) }, nil
}

// healAfter heals the partition after d, unless it was lifted or the
// runtime closed meanwhile.
func (r *Runtime) healAfter(d time.Duration, id string, part *partition) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.partitions[id] != part || r.closed {
		return
	}
	r.timers.Add(1)
	part.timer = time.AfterFunc(d, func() {
		defer r.timers.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = r.healPart(ctx, id, part)
	})
}

// onSimulatedNode reports whether the pod runs on a kwok node.
func (r *Runtime) onSimulatedNode(ctx context.Context, p *corev1.Pod) (bool, error) {
	if p.Spec.NodeName == "" {
		return false, fmt.Errorf("%w: the pod is not scheduled", fault.ErrCannotLand)
	}
	r.mu.Lock()
	sim, ok := r.simulated[p.Spec.NodeName]
	r.mu.Unlock()
	if ok {
		return sim, nil
	}
	r.calls.Add(1)
	node, err := r.cs.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	_, sim = node.Annotations[kwokAnnotation]
	r.mu.Lock()
	r.simulated[p.Spec.NodeName] = sim
	r.mu.Unlock()
	return sim, nil
}

// heal lifts the agent's partition, if it has one.
func (r *Runtime) heal(ctx context.Context, id string) error {
	r.mu.Lock()
	part := r.partitions[id]
	r.mu.Unlock()
	if part == nil {
		return nil
	}
	return r.healPart(ctx, id, part)
}

func (r *Runtime) healPart(ctx context.Context, id string, part *partition) error {
	if !r.startLifting(id, part) {
		return nil // lifted already, or being lifted
	}
	err := r.deletePolicy(ctx, part.policy)
	r.calls.Add(1)
	if lerr := r.labelPod(ctx, id, ""); lerr != nil && !apierrors.IsNotFound(lerr) {
		err = errors.Join(err, lerr)
	}
	// Active until the policy is gone and the pod unlabelled.
	r.mu.Lock()
	if r.partitions[id] == part {
		delete(r.partitions, id)
	}
	r.mu.Unlock()
	return err
}

// startLifting claims the lift of the partition, and stops its heal timer;
// false when it is lifted already, or being lifted.
func (r *Runtime) startLifting(id string, part *partition) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.partitions[id] != part || part.lifting {
		return false
	}
	part.lifting = true
	if part.timer != nil && part.timer.Stop() {
		r.timers.Done() // the timer will not run
	}
	return true
}

func (r *Runtime) deletePolicy(ctx context.Context, name string) error {
	r.calls.Add(1)
	err := r.cs.NetworkingV1().NetworkPolicies(r.opts.namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// labelPod sets (or, with value "", removes) the pod's partition label.
func (r *Runtime) labelPod(ctx context.Context, id, value string) error {
	var v any
	if value != "" {
		v = value
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{LabelPartition: v}}})
	if err != nil {
		return err
	}
	_, err = r.cs.CoreV1().Pods(r.opts.namespace).Patch(ctx, id, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// unlabelPods removes the partition label naming policy from the pods of
// a namespace (Sweep).
func unlabelPods(ctx context.Context, cs kubernetes.Interface, ns, policy string) error {
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: LabelPartition + "=" + policy})
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range pods.Items {
		_, err := cs.CoreV1().Pods(ns).Patch(ctx, p.Name, types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"`+LabelPartition+`":null}}}`), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// SlowAgent lowers the CPU limit of each of the pod's containers that has
// one to limit·ref/(ref+delay) (ref: WithSlowReference), not below its
// request, in place, through the pods/resize subresource; its lift and
// Close restore the limits it had. Landed means the API server accepted
// the resize: the kubelet applies it (a kwok node only records it).
func (r *Runtime) SlowAgent(ctx context.Context, id string, delay time.Duration) (fault.Lift, error) {
	if delay <= 0 {
		return nil, fmt.Errorf("kube: slow %s: delay %v, want > 0", id, delay)
	}
	p, err := r.pod(id)
	if err != nil {
		return nil, err
	}
	if p == nil || p.DeletionTimestamp != nil {
		return nil, fmt.Errorf("kube: slow %s: %w: the pod is not running", id, fault.ErrCannotLand)
	}
	if r.isSlowed(id) {
		return nil, fmt.Errorf("kube: slow %s: %w: slowed already", id, fault.ErrCannotLand)
	}
	var orig, slow []cpuLimit
	ratio := float64(r.opts.slowRef) / float64(r.opts.slowRef+delay)
	for _, c := range p.Spec.Containers {
		lim, ok := c.Resources.Limits[corev1.ResourceCPU]
		if !ok {
			continue
		}
		m := int64(float64(lim.MilliValue()) * ratio)
		if req, ok := c.Resources.Requests[corev1.ResourceCPU]; ok && m < req.MilliValue() {
			m = req.MilliValue()
		}
		m = max(m, 1)
		orig = append(orig, cpuLimit{c.Name, lim.String()})
		slow = append(slow, cpuLimit{c.Name, resource.NewMilliQuantity(m, resource.DecimalSI).String()})
	}
	if len(orig) == 0 {
		return nil, fmt.Errorf("kube: slow %s: %w: no container has a CPU limit", id, fault.ErrCannotLand)
	}
	if !r.claimSlow(id, orig) {
		return nil, fmt.Errorf("kube: slow %s: %w: slowed already", id, fault.ErrCannotLand)
	}
	if err := r.resize(ctx, id, slow); err != nil {
		r.mu.Lock()
		delete(r.slowed, id)
		r.mu.Unlock()
		return nil, fmt.Errorf("kube: slow %s: %w", id, err)
	}
	return func(ctx context.Context) error { return r.unslow(ctx, id) }, nil
}

// isSlowed reports whether the agent is slowed.
func (r *Runtime) isSlowed(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.slowed[id]
	return ok
}

// claimSlow records the agent's original limits, unless a concurrent
// slow_agent did first.
func (r *Runtime) claimSlow(id string, orig []cpuLimit) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.slowed[id]; ok {
		return false
	}
	r.slowed[id] = orig
	return true
}

// unslow restores the CPU limits SlowAgent changed. A pod gone since
// (killed and replaced) has its template's limits again: nothing to do.
func (r *Runtime) unslow(ctx context.Context, id string) error {
	r.mu.Lock()
	orig, ok := r.slowed[id]
	delete(r.slowed, id)
	r.mu.Unlock()
	if !ok {
		return nil
	}
	err := r.resize(ctx, id, orig)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// resize patches the pod's CPU limits through the resize subresource.
func (r *Runtime) resize(ctx context.Context, id string, limits []cpuLimit) error {
	type res struct {
		Limits map[string]string `json:"limits"`
	}
	type ctr struct {
		Name      string `json:"name"`
		Resources res    `json:"resources"`
	}
	var cs []ctr
	for _, l := range limits {
		cs = append(cs, ctr{l.container, res{map[string]string{"cpu": l.limit}}})
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"containers": cs}})
	if err != nil {
		return err
	}
	r.calls.Add(1)
	_, err = r.cs.CoreV1().Pods(r.opts.namespace).Patch(ctx, id, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "resize")
	return err
}

// RefusedScopes says why the runtime refuses a fault inside an agent that
// the agents' fault-control contract has no kind for (fault.ScopeRefuser):
// the agent-level faults it lands go through that contract (agentfault).
func (r *Runtime) RefusedScopes() map[fault.Scope]string {
	return map[fault.Scope]string{fault.ScopeAgent: agentfault.Uncontracted}
}

// Refusals says why the runtime refuses the built-in types it does not
// land (fault.Refuser).
func (r *Runtime) Refusals() map[fault.Type]string {
	const network = "Kubernetes has no API to degrade the links between pods (latency, bandwidth, resets): put the agents behind proxies of your own, or use a service mesh's fault injection"
	return map[fault.Type]string{
		fault.NetworkLatency:   network,
		fault.NetworkBandwidth: network,
		fault.ConnectionReset:  network,
	}
}

// Active lists the faults that are active now, as "kind agent".
func (r *Runtime) Active() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for id := range r.partitions {
		out = append(out, string(fault.NetworkPartition)+" "+id)
	}
	for id := range r.slowed {
		out = append(out, string(fault.SlowAgent)+" "+id)
	}
	for id, kinds := range r.lifts {
		for kind := range kinds {
			if kind == agentapi.KindPause {
				kind = string(fault.PauseAgent)
			}
			out = append(out, kind+" "+id)
		}
	}
	return out
}
