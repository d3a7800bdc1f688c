package kube_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/kube"
)

const testProject = "arena-kube-test"

func newRuntime(t *testing.T, opts ...kube.Option) *kube.Runtime {
	t.Helper()
	cfg := cluster(t)
	var rt *kube.Runtime
	t.Cleanup(func() { // registered first, so it runs after ForTest's cleanups
		if rt != nil {
			assertNothingOfRun(t, rt)
			assertNoAgentProcess(t, rt.Namespace())
		}
	})
	rt = kube.ForTest(t, append([]kube.Option{kube.WithConfig(cfg), kube.WithProject(testProject)}, opts...)...)
	return rt
}

// assertNothingOfRun fails t when anything labelled with rt's run is
// still in the API once its cleanups ran.
func assertNothingOfRun(t *testing.T, rt *kube.Runtime) {
	t.Helper()
	cs := rt.Clientset()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sel := metav1.ListOptions{LabelSelector: kube.LabelRun + "=" + rt.RunID()}
	var left []string
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		left = nil
		pods, err := cs.CoreV1().Pods("").List(ctx, sel)
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			left = append(left, "pod "+p.Name)
		}
		sts, err := cs.AppsV1().StatefulSets("").List(ctx, sel)
		if err != nil {
			return false, err
		}
		for _, s := range sts.Items {
			left = append(left, "statefulset "+s.Name)
		}
		svcs, err := cs.CoreV1().Services("").List(ctx, sel)
		if err != nil {
			return false, err
		}
		for _, s := range svcs.Items {
			left = append(left, "service "+s.Name)
		}
		nps, err := cs.NetworkingV1().NetworkPolicies("").List(ctx, sel)
		if err != nil {
			return false, err
		}
		for _, n := range nps.Items {
			left = append(left, "networkpolicy "+n.Name)
		}
		nss, err := cs.CoreV1().Namespaces().List(ctx, sel)
		if err != nil {
			return false, err
		}
		for _, n := range nss.Items {
			left = append(left, "namespace "+n.Name)
		}
		return len(left) == 0, nil
	})
	if err != nil {
		t.Errorf("labelled with run %s after cleanup: %v (%v)", rt.RunID(), left, err)
	}
}

// assertNoAgentProcess fails t when the plane still runs a process for a
// pod of namespace ns.
func assertNoAgentProcess(t *testing.T, ns string) {
	t.Helper()
	var left []string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(context.Context) (bool, error) {
		left = nil
		for pod, pid := range plane.AgentPIDs() {
			if strings.HasPrefix(pod, ns+"/") {
				left = append(left, fmt.Sprintf("%s (pid %d)", pod, pid))
			}
		}
		return len(left) == 0, nil
	})
	if err != nil {
		t.Errorf("agent processes of namespace %s after cleanup: %v", ns, left)
	}
}

func agent(t *testing.T, rt fault.AgentLister, id string) fault.AgentInfo {
	t.Helper()
	agents, err := rt.ListAgents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(agents, func(a fault.AgentInfo) bool { return a.ID == id })
	if i < 0 {
		t.Fatalf("no agent %s in %v", id, agents)
	}
	return agents[i]
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func TestReferenceAgentsListed(t *testing.T) {
	rt := newRuntime(t, kube.WithReferenceAgents(3))
	agents, err := rt.ListAgents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range agents {
		got = append(got, a.ID+":"+a.Type+":"+string(a.Status))
	}
	want := []string{"leader-0:leader:running", "orchestrator-0:orchestrator:running",
		"worker-1:worker:running", "worker-2:worker:running", "worker-3:worker:running"}
	if !slices.Equal(got, want) {
		t.Errorf("agents %v, want %v", got, want)
	}
	if err := rt.Probe(context.Background()); err != nil {
		t.Errorf("probe of a fresh system: %v", err)
	}
}

// A kill deletes the pod with grace 0: its agentd process is killed, its
// StatefulSet brings the pod back with a new agentd process, the runtime
// counts the restart, and the probe sees the outage and the recovery.
func TestKillIsResurrected(t *testing.T) {
	rt := newRuntime(t, kube.WithReferenceAgents(2))
	ctx := context.Background()
	before, err := rt.Clientset().CoreV1().Pods(rt.Namespace()).Get(ctx, "worker-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := rt.Namespace() + "/worker-1"
	pid := plane.AgentPIDs()[key]
	if pid == 0 {
		t.Fatalf("no agentd process for %s: %v", key, plane.AgentPIDs())
	}
	if err := rt.Probe(ctx); err != nil {
		t.Fatalf("probe before the kill: %v", err)
	}
	if err := rt.StopAgent(ctx, "worker-1"); err != nil {
		t.Fatal(err)
	}
	var outage error
	eventually(t, "the probe sees the outage", func() bool { outage = rt.Probe(ctx); return outage != nil })
	t.Logf("probe during the outage: %v", outage)
	if err := rt.StopAgent(ctx, "no-such-pod"); !errors.Is(err, fault.ErrNoAgent) {
		t.Errorf("StopAgent(no-such-pod) = %v, want fault.ErrNoAgent", err)
	}
	eventually(t, "worker-1 replaced by a new pod", func() bool {
		after, err := rt.Clientset().CoreV1().Pods(rt.Namespace()).Get(ctx, "worker-1", metav1.GetOptions{})
		return err == nil && after.UID != before.UID
	})
	eventually(t, "worker-1 back and running", func() bool {
		a := agent(t, rt, "worker-1")
		return a.Status == fault.StatusRunning && a.Restarts == 1
	})
	eventually(t, "probe healthy again", func() bool { return rt.Probe(ctx) == nil })
	if now := plane.AgentPIDs()[key]; now == 0 || now == pid {
		t.Errorf("agentd of %s: pid %d after the kill, %d before: want a new process", key, now, pid)
	}
	if alive(pid) {
		t.Errorf("agentd %d of the killed pod still runs", pid)
	}
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// The holder of the leader Lease is the leader, live: when the Lease moves
// the leader moves, and a holder that is not Ready fails the probe.
func TestLeaseHolderIsLeader(t *testing.T) {
	ref := newRuntime(t, kube.WithReferenceAgents(3))
	ctx := context.Background()
	cs := ref.Clientset()
	holder := "worker-2"
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "workers-leader"},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder},
	}
	if _, err := cs.CoordinationV1().Leases(ref.Namespace()).Create(ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rt, err := kube.NewRuntime(ctx, cluster(t), kube.WithNamespace(ref.Namespace()),
		kube.WithSelector("arena.io/set=worker"), kube.WithLeaderLease("workers-leader"))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	eventually(t, "worker-2 leads", func() bool { return agent(t, rt, "worker-2").Type == fault.TypeLeader })
	if typ := agent(t, rt, "worker-1").Type; typ != fault.TypeWorker {
		t.Errorf("worker-1 is %s, want worker", typ)
	}
	moveLease(t, cs, ref.Namespace(), "worker-3")
	eventually(t, "worker-3 leads", func() bool { return agent(t, rt, "worker-3").Type == fault.TypeLeader })
	if typ := agent(t, rt, "worker-2").Type; typ != fault.TypeWorker {
		t.Errorf("after the move worker-2 is %s, want worker", typ)
	}
	if err := rt.Probe(ctx); err != nil {
		t.Errorf("probe: %v", err)
	}
	moveLease(t, cs, ref.Namespace(), "nobody")
	eventually(t, "probe fails while the holder is no Ready pod", func() bool { return rt.Probe(ctx) != nil })
}

func moveLease(t *testing.T, cs kubernetes.Interface, ns, holder string) {
	t.Helper()
	ctx := context.Background()
	l, err := cs.CoordinationV1().Leases(ns).Get(ctx, "workers-leader", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l.Spec.HolderIdentity = &holder
	if _, err := cs.CoordinationV1().Leases(ns).Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// slow_agent resizes the CPU limit in place (pods/resize) and lifting
// restores it.
func TestSlowResizesInPlace(t *testing.T) {
	rt := newRuntime(t, kube.WithReferenceAgents(1))
	ctx := context.Background()
	limit := func() string {
		p, err := rt.Clientset().CoreV1().Pods(rt.Namespace()).Get(ctx, "worker-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		q := p.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]
		return q.String()
	}
	lift, err := rt.SlowAgent(ctx, "worker-1", 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if got := limit(); got != "250m" {
		t.Errorf("slowed limit %s, want 250m (1 CPU · 100ms/(100ms+300ms))", got)
	}
	if _, err := rt.SlowAgent(ctx, "worker-1", time.Second); !errors.Is(err, fault.ErrCannotLand) {
		t.Errorf("slowing a slowed agent: %v, want fault.ErrCannotLand", err)
	}
	if err := lift(ctx); err != nil {
		t.Fatal(err)
	}
	if got := limit(); got != "1" {
		t.Errorf("lifted limit %s, want 1", got)
	}
	if err := lift(ctx); err != nil {
		t.Errorf("lifting again: %v", err)
	}
}

// On kwok nodes no CNI enforces NetworkPolicy: the partition is reported
// as not landed and nothing is created.
func TestPartitionOnKwokIsNotEnforced(t *testing.T) {
	rt := newRuntime(t, kube.WithReferenceAgents(1))
	ctx := context.Background()
	_, err := rt.PartitionNetwork(ctx, "worker-1")
	if !errors.Is(err, kube.ErrNotEnforced) {
		t.Fatalf("PartitionNetwork on kwok = %v, want ErrNotEnforced", err)
	}
	nps, err := rt.Clientset().NetworkingV1().NetworkPolicies(rt.Namespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(nps.Items) != 0 {
		t.Errorf("%d NetworkPolicies after a partition that did not land", len(nps.Items))
	}
}

// With enforcement assumed, a partition is a deny-all NetworkPolicy
// selecting the pod by label; lifting deletes it and unlabels the pod, and
// an unlifted one heals after WithPartitionHealing.
func TestPartitionPolicyLifecycle(t *testing.T) {
	rt := newRuntime(t, kube.WithReferenceAgents(2), kube.WithEnforcement(kube.EnforcementAssumed),
		kube.WithPartitionHealing(time.Second))
	// worker-1 is partitioned again at the end and left to Close, before its healing (1s) is due.
	ctx := context.Background()
	cs := rt.Clientset()
	ns := rt.Namespace()
	lift, err := rt.PartitionNetwork(ctx, "worker-1")
	if err != nil {
		t.Fatal(err)
	}
	nps, err := cs.NetworkingV1().NetworkPolicies(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(nps.Items) != 1 {
		t.Fatalf("policies: %v, %v", nps, err)
	}
	np := nps.Items[0]
	if np.Labels[kube.LabelRun] != rt.RunID() || len(np.Spec.Ingress)+len(np.Spec.Egress) != 0 || len(np.Spec.PolicyTypes) != 2 {
		t.Errorf("policy %+v: want deny-all ingress and egress, labelled with the run", np)
	}
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil || len(pods.Items) != 1 || pods.Items[0].Name != "worker-1" {
		t.Fatalf("policy selects %v (%v), want worker-1 alone", pods, err)
	}
	if _, err := rt.PartitionNetwork(ctx, "worker-1"); !errors.Is(err, fault.ErrCannotLand) {
		t.Errorf("partitioning twice: %v, want fault.ErrCannotLand", err)
	}
	if err := lift(ctx); err != nil {
		t.Fatal(err)
	}
	assertNoPartition(t, rt)
	if _, err := rt.PartitionNetwork(ctx, "worker-2"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "worker-2's partition heals on its own", func() bool { return len(rt.Active()) == 0 })
	assertNoPartition(t, rt)

	// Close lifts a partition whose healing is still pending (and does not
	// wait for its timer).
	if _, err := rt.PartitionNetwork(ctx, "worker-1"); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- rt.Close(ctx) }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close hangs with a partition pending")
	}
	assertNoPartition(t, rt)
}

func assertNoPartition(t *testing.T, rt *kube.Runtime) {
	t.Helper()
	ctx := context.Background()
	nps, err := rt.Clientset().NetworkingV1().NetworkPolicies(rt.Namespace()).List(ctx, metav1.ListOptions{})
	if err != nil || len(nps.Items) != 0 {
		t.Errorf("policies after lifting: %d (%v)", len(nps.Items), err)
	}
	pods, err := rt.Clientset().CoreV1().Pods(rt.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelPartition})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("pods still labelled %s: %d (%v)", kube.LabelPartition, len(pods.Items), err)
	}
}
