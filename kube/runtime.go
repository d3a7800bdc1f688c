package kube

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	coordlisters "k8s.io/client-go/listers/coordination/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/agentapi/agentfault"
	"github.com/ares-arena/arena/fault"
)

// Compile-time checks: the capabilities the runtime has. Pause and the
// agent-level and DAG faults need agents that serve the agentapi contract
// (see the package documentation).
var (
	_ fault.RuntimeProvider = (*Runtime)(nil)
	_ fault.DAGProvider     = (*Runtime)(nil)
	_ fault.Refuser         = (*Runtime)(nil)
)

// ErrNotEnforced: the cluster would accept the NetworkPolicy, but nothing
// enforces it where the pod runs (a kwok node has no network): the
// partition did not land, and no policy was left behind. The other errors
// of fault injection are arena's, wrapped with the agent's ID:
// fault.ErrNoAgent for an unknown agent pod, fault.ErrCannotLand when the
// pod's state rules the fault out (slow a pod without a CPU limit,
// partition a partitioned pod), fault.ErrUnsupported when the agent does
// not serve the fault (its endpoint answered 404 or 501, or
// WithoutAgentAPI).
var ErrNotEnforced = errors.New("NetworkPolicy not enforced where the pod runs")

// kwokAnnotation marks nodes that kwok simulates.
const kwokAnnotation = "kwok.x-k8s.io/node"

// Runtime is a system of agents running as pods: chosen by namespace and
// label selector, listed from an informer's cache, faulted through the API
// server (see the package documentation). It is safe for concurrent use.
// Close lifts the faults still active and deletes what it created.
type Runtime struct {
	agentFaults // the agent-level faults: agentfault.Types (landAgentFault)

	cs     kubernetes.Interface
	proxyC *http.Client // the clientset's transport, counted, for the pod proxy
	host   string       // the API server's base URL
	opts   options
	runID  string

	factory informers.SharedInformerFactory
	leaseFn informers.SharedInformerFactory // nil without WithLeaderLease
	pods    corelisters.PodNamespaceLister
	leases  coordlisters.LeaseNamespaceLister // nil without WithLeaderLease
	stop    chan struct{}

	calls atomic.Int64 // API requests the faults made (Calls)

	mu         sync.Mutex
	closed     bool
	known      map[string]knownPod // every agent ever listed, by pod name
	baseline   map[string]int      // owner key → pods it had at the start
	workers    map[string]bool     // owner key → its pods are workers
	restarts   map[string]int      // restart key → kills
	partitions map[string]*partition
	slowed     map[string][]cpuLimit
	simulated  map[string]bool    // node name → kwok node
	killed     map[types.UID]bool // pods deleted, until the cache drops them
	// lifts: the agent-level faults (and pauses) landed and not lifted,
	// by agent and agentapi kind, with the pod they landed on.
	lifts    map[string]map[string]types.UID
	deferred map[string][]string // kinds to lift once the agent's pause is lifted
	timers   sync.WaitGroup
}

type knownPod struct {
	owner    string // "StatefulSet/web" or "pod/<name>"
	stable   bool   // its name comes back after a kill (StatefulSet)
	typ      string
	restarts string // key of restarts: the pod's name when stable, else its owner
}

type partition struct {
	policy  string
	timer   *time.Timer
	lifting bool // its lift is under way
}

type cpuLimit struct {
	container string
	limit     string
}

// NewRuntime watches the agent pods of cfg's cluster and returns once its
// cache is synced. The pods exist already: the runtime starts nothing.
func NewRuntime(ctx context.Context, cfg *rest.Config, opts ...Option) (*Runtime, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	httpc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube: %w", err)
	}
	cs, err := kubernetes.NewForConfigAndClient(cfg, httpc)
	if err != nil {
		return nil, fmt.Errorf("kube: %w", err)
	}
	host, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube: %w", err)
	}
	hasType, err := labels.NewRequirement(o.typeLabel, selection.Exists, nil)
	if err != nil {
		return nil, fmt.Errorf("kube: WithTypeLabel: %w", err)
	}
	sel := o.selector.Add(*hasType)
	r := &Runtime{
		cs: cs, host: strings.TrimSuffix(host.String(), "/"), opts: o, runID: o.runID,
		stop:       make(chan struct{}),
		known:      map[string]knownPod{},
		baseline:   map[string]int{},
		workers:    map[string]bool{},
		restarts:   map[string]int{},
		partitions: map[string]*partition{},
		slowed:     map[string][]cpuLimit{},
		simulated:  map[string]bool{},
		killed:     map[types.UID]bool{},
		lifts:      map[string]map[string]types.UID{},
		deferred:   map[string][]string{},
	}
	r.proxyC = &http.Client{Transport: counting{httpc.Transport, &r.calls}, Timeout: httpc.Timeout}
	r.agentFaults = agentfault.Faults{Land: r.landAgentFault}
	if r.runID == "" {
		r.runID = NewRunID()
	}
	if o.refWorkers > 0 {
		ofRun, err := labels.NewRequirement(LabelRun, selection.Equals, []string{r.runID})
		if err != nil {
			return nil, fmt.Errorf("kube: WithRunID: %w", err)
		}
		sel = sel.Add(*ofRun)
	}
	r.factory = informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithNamespace(o.namespace),
		informers.WithTweakListOptions(func(lo *metav1.ListOptions) { lo.LabelSelector = sel.String() }))
	r.pods = r.factory.Core().V1().Pods().Lister().Pods(o.namespace)
	r.factory.Start(r.stop)
	synced := r.factory.WaitForCacheSync(ctx.Done())
	if o.leaderLease != "" {
		// The Lease carries no agent labels: an informer of its own, on
		// its name.
		r.leaseFn = informers.NewSharedInformerFactoryWithOptions(cs, 0,
			informers.WithNamespace(o.namespace),
			informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
				lo.FieldSelector = fields.OneTermEqualSelector("metadata.name", o.leaderLease).String()
			}))
		r.leases = r.leaseFn.Coordination().V1().Leases().Lister().Leases(o.namespace)
		r.leaseFn.Start(r.stop)
		maps.Copy(synced, r.leaseFn.WaitForCacheSync(ctx.Done()))
	}
	for typ, ok := range synced {
		if !ok {
			r.shutdown()
			return nil, fmt.Errorf("kube: cache of %v not synced: %w", typ, ctx.Err())
		}
	}
	if o.refWorkers > 0 {
		err := r.deployReference(ctx)
		if err == nil {
			err = r.waitReady(ctx, 2+o.refWorkers)
		}
		if err == nil && o.controlPort != 0 {
			err = r.waitHealthy(ctx)
		}
		if err != nil {
			return nil, errors.Join(err, r.Close(context.WithoutCancel(ctx)))
		}
	}
	pods, err := r.pods.List(labels.Everything())
	if err != nil {
		r.shutdown()
		return nil, err
	}
	r.baselineOf(pods)
	return r, nil
}

// baselineOf counts the pods of each owner at the start.
func (r *Runtime) baselineOf(pods []*corev1.Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range pods {
		k := r.remember(p)
		r.baseline[k.owner]++
		if k.typ == fault.TypeWorker {
			r.workers[k.owner] = true
		}
	}
}

// NewRunID returns a fresh value for the arena.io/run label.
func NewRunID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// remember records a pod among the known agents; r.mu is held.
func (r *Runtime) remember(p *corev1.Pod) knownPod {
	k, ok := r.known[p.Name]
	if ok {
		return k
	}
	k = knownPod{owner: "pod/" + p.Name, typ: p.Labels[r.opts.typeLabel]}
	if ref := metav1.GetControllerOf(p); ref != nil {
		k.owner = ref.Kind + "/" + ref.Name
		k.stable = ref.Kind == "StatefulSet"
	}
	k.restarts = k.owner
	if k.stable || k.owner == "pod/"+p.Name {
		k.restarts = p.Name
	}
	r.known[p.Name] = k
	return k
}

// RunID returns the value of the arena.io/run label of what this runtime
// creates.
func (r *Runtime) RunID() string { return r.runID }

// Namespace returns the agents' namespace.
func (r *Runtime) Namespace() string { return r.opts.namespace }

// Clientset returns the runtime's client.
func (r *Runtime) Clientset() kubernetes.Interface { return r.cs }

// Calls returns how many API requests the faults and their lifts have made
// so far (listing is from the cache and makes none).
func (r *Runtime) Calls() int64 { return r.calls.Load() }

// runLabels are the labels of everything the runtime creates.
func (r *Runtime) runLabels() map[string]string {
	l := maps.Clone(r.opts.labels)
	if l == nil {
		l = map[string]string{}
	}
	l[LabelProject] = r.opts.project
	l[LabelRun] = r.runID
	return l
}

// ListAgents lists the agent pods from the cache, sorted by ID: running
// when the pod is Ready, stopped otherwise (pending, terminating, or a
// StatefulSet's pod between its kill and its return). The leader is the
// Lease holder when WithLeaderLease is set. Restarts counts this runtime's
// kills of the pod's name (StatefulSet pods and bare pods) or of its owner
// (a ReplicaSet's pods, whose names change), plus container restarts.
func (r *Runtime) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pods, err := r.pods.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	holder := r.leaseHolder()
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	out := make([]fault.AgentInfo, 0, len(pods))
	for _, p := range pods {
		k := r.remember(p)
		seen[p.Name] = true
		info := fault.AgentInfo{ID: p.Name, Type: k.typ, Status: fault.StatusStopped, Restarts: r.restarts[k.restarts]}
		switch {
		case !podReady(p) || r.killed[p.UID]:
		case r.paused(p):
			info.Status = fault.StatusPaused
		default:
			info.Status = fault.StatusRunning
		}
		for _, c := range p.Status.ContainerStatuses {
			info.Restarts += int(c.RestartCount)
		}
		out = append(out, info)
	}
	live := map[types.UID]bool{}
	for _, p := range pods {
		live[p.UID] = true
	}
	for uid := range r.killed {
		if !live[uid] {
			delete(r.killed, uid) // the cache has dropped it
		}
	}
	for name, k := range r.known {
		if !seen[name] && k.stable {
			out = append(out, fault.AgentInfo{ID: name, Type: k.typ, Status: fault.StatusStopped, Restarts: r.restarts[k.restarts]})
		}
	}
	for i := range out {
		if holder != "" && out[i].ID == holder {
			out[i].Type = fault.TypeLeader
		}
	}
	slices.SortFunc(out, func(a, b fault.AgentInfo) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out, nil
}

// leaseHolder is the holder of the leader Lease, "" without one.
func (r *Runtime) leaseHolder() string {
	if r.leases == nil {
		return ""
	}
	l, err := r.leases.Get(r.opts.leaderLease)
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// pod returns the agent's pod from the cache; a known StatefulSet pod
// between its kill and its return is (nil, nil).
func (r *Runtime) pod(id string) (*corev1.Pod, error) {
	p, err := r.pods.Get(id)
	if apierrors.IsNotFound(err) {
		r.mu.Lock()
		k, ok := r.known[id]
		r.mu.Unlock()
		if ok && k.stable {
			return nil, nil
		}
		return nil, fmt.Errorf("kube: agent %q: %w", id, fault.ErrNoAgent)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// closeLift is a fault Close lifts.
type closeLift struct{ id, kind string }

// markClosed marks the runtime closed, stops the heal timers and returns
// what Close lifts: the partitioned and slowed agents, and the agent
// faults, pauses first (a paused agent answers no other lift); closing is
// false when it was closed already.
func (r *Runtime) markClosed() (partitioned, slowed []string, lifts []closeLift, closing bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, nil, nil, false
	}
	r.closed = true
	for id, p := range r.partitions {
		if p.timer != nil && p.timer.Stop() {
			r.timers.Done() // it will not run
		}
		partitioned = append(partitioned, id)
	}
	slowed = slices.Collect(maps.Keys(r.slowed))
	for id, kinds := range r.lifts {
		for kind := range kinds {
			lifts = append(lifts, closeLift{id, kind})
		}
	}
	slices.SortFunc(lifts, func(a, b closeLift) int {
		return boolRank(a.kind != agentapi.KindPause) - boolRank(b.kind != agentapi.KindPause)
	})
	return partitioned, slowed, lifts, true
}

// Close lifts the faults still active (partitions, slowdowns), deletes
// every NetworkPolicy labelled with the run and stops the informers.
func (r *Runtime) Close(ctx context.Context) error {
	ids, slowed, lifts, closing := r.markClosed()
	if !closing {
		return nil
	}
	r.timers.Wait()
	var errs []error
	for _, l := range lifts {
		err := r.liftAgentFault(ctx, l.id, l.kind)
		if p, perr := r.pods.Get(l.id); perr == nil && p.DeletionTimestamp == nil {
			errs = append(errs, err) // a pod going takes its faults with it
		}
	}
	for _, id := range ids {
		errs = append(errs, r.heal(ctx, id))
	}
	for _, id := range slowed {
		errs = append(errs, r.unslow(ctx, id))
	}
	ofRun := metav1.ListOptions{LabelSelector: LabelRun + "=" + r.runID}
	errs = append(errs, r.cs.NetworkingV1().NetworkPolicies(r.opts.namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, ofRun))
	if r.opts.refWorkers > 0 {
		bg := metav1.DeletePropagationBackground
		if err := r.cs.CoreV1().Services(r.opts.namespace).Delete(ctx, referenceService, metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
		errs = append(errs,
			r.cs.AppsV1().StatefulSets(r.opts.namespace).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: &bg}, ofRun),
			r.cs.CoreV1().Pods(r.opts.namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, ofRun))
	}
	r.shutdown()
	return errors.Join(errs...)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (r *Runtime) shutdown() {
	close(r.stop)
	r.factory.Shutdown()
	if r.leaseFn != nil {
		r.leaseFn.Shutdown()
	}
}

// Leftovers lists what carries the project's label in the cluster:
// NetworkPolicies, Services (the reference agents') and namespaces, as
// "kind/namespace/name".
func Leftovers(ctx context.Context, cs kubernetes.Interface, project string) ([]string, error) {
	sel := metav1.ListOptions{LabelSelector: LabelProject + "=" + project}
	var out []string
	nps, err := cs.NetworkingV1().NetworkPolicies(metav1.NamespaceAll).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, np := range nps.Items {
		out = append(out, "NetworkPolicy/"+np.Namespace+"/"+np.Name)
	}
	svcs, err := cs.CoreV1().Services(metav1.NamespaceAll).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, s := range svcs.Items {
		out = append(out, "Service/"+s.Namespace+"/"+s.Name)
	}
	nss, err := cs.CoreV1().Namespaces().List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, ns := range nss.Items {
		if ns.DeletionTimestamp == nil {
			out = append(out, "Namespace//"+ns.Name)
		}
	}
	pods, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: LabelPartition})
	if err != nil {
		return nil, err
	}
	for _, p := range pods.Items {
		out = append(out, "Pod/"+p.Namespace+"/"+p.Name+" (label "+LabelPartition+")")
	}
	return out, nil
}

// Sweep removes what a killed process left behind for project: its
// NetworkPolicies, Services and namespaces, and the partition label of
// pods.
func Sweep(ctx context.Context, cs kubernetes.Interface, project string) error {
	sel := metav1.ListOptions{LabelSelector: LabelProject + "=" + project}
	var errs []error
	nps, err := cs.NetworkingV1().NetworkPolicies(metav1.NamespaceAll).List(ctx, sel)
	if err != nil {
		return err
	}
	for _, np := range nps.Items {
		if err := cs.NetworkingV1().NetworkPolicies(np.Namespace).Delete(ctx, np.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
		errs = append(errs, unlabelPods(ctx, cs, np.Namespace, np.Name))
	}
	svcs, err := cs.CoreV1().Services(metav1.NamespaceAll).List(ctx, sel)
	if err != nil {
		return err
	}
	for _, s := range svcs.Items {
		if err := cs.CoreV1().Services(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	nss, err := cs.CoreV1().Namespaces().List(ctx, sel)
	if err != nil {
		return err
	}
	for _, ns := range nss.Items {
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
