package kube_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/kube"
)

// Pause goes to agentd through the pod proxy: the agent is listed paused,
// answers nothing (the probe fails), takes no other fault, and works again
// after ResumeAgent.
func TestPauseThroughThePodProxy(t *testing.T) {
	rt := newRuntime(t, kube.WithReferenceAgents(1))
	ctx := context.Background()
	lift, err := rt.PauseAgent(ctx, "leader-0")
	if err != nil {
		t.Fatal(err)
	}
	if a := agent(t, rt, "leader-0"); a.Status != fault.StatusPaused {
		t.Errorf("leader-0 after PauseAgent: %s, want paused", a.Status)
	}
	if err := rt.Probe(ctx); err == nil || !strings.Contains(err.Error(), "leader-0") {
		t.Errorf("probe with the leader paused: %v, want leader-0 unavailable", err)
	}
	if _, err := rt.ToolTimeout(ctx, "leader-0", time.Second); !errors.Is(err, fault.ErrCannotLand) {
		t.Errorf("ToolTimeout on a paused agent: %v, want fault.ErrCannotLand", err)
	}
	if _, err := rt.PauseAgent(ctx, "leader-0"); !errors.Is(err, fault.ErrCannotLand) {
		t.Errorf("PauseAgent on a paused agent: %v, want fault.ErrCannotLand", err)
	}
	if err := rt.ResumeAgent(ctx, "leader-0"); err != nil {
		t.Fatal(err)
	}
	if err := rt.ResumeAgent(ctx, "leader-0"); !errors.Is(err, fault.ErrCannotLand) {
		t.Errorf("ResumeAgent on a running agent: %v, want fault.ErrCannotLand", err)
	}
	if err := lift(ctx); err != nil {
		t.Errorf("lifting the pause after the resume: %v, want nil", err)
	}
	if err := rt.Probe(ctx); err != nil {
		t.Errorf("probe after the resume: %v", err)
	}
	st, err := rt.State(ctx, "leader-0")
	if err != nil || len(st.Faults) != 0 {
		t.Errorf("leader-0 state after the resume: faults %v, %v; want none", st.Faults, err)
	}
}

// The agent-level faults land in agentd (its /state lists them) and are
// lifted by DELETE /faults/{kind}; the checks read every agent's state.
func TestAgentFaultsLandAndLift(t *testing.T) {
	rt := newRuntime(t, kube.WithReferenceAgents(2))
	ctx := context.Background()
	liftTool, err := rt.ToolTimeout(ctx, "worker-1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	liftLLM, err := rt.InjectLLMFailure(ctx, "worker-2", fault.LLMOverloaded)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.RemoveEdge(ctx, "orchestrator-0", "worker-2"); err != nil {
		t.Fatal(err)
	}
	kinds := func(id string) []string {
		st, err := rt.State(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range st.Faults {
			out = append(out, f.Kind)
		}
		return out
	}
	if k := kinds("worker-1"); !slices.Equal(k, []string{agentapi.KindToolTimeout}) {
		t.Errorf("worker-1 faults %v, want tool_timeout", k)
	}
	edges, err := rt.ListEdges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(edges, fault.Edge{Source: "orchestrator-0", Target: "worker-2"}) || !slices.Contains(edges, fault.Edge{Source: "orchestrator-0", Target: "worker-1"}) {
		t.Errorf("edges after removing orchestrator-0->worker-2: %v", edges)
	}
	if err := liftTool(ctx); err != nil {
		t.Fatal(err)
	}
	if err := liftLLM(ctx); err != nil {
		t.Fatal(err)
	}
	if k := kinds("worker-1"); len(k) != 0 {
		t.Errorf("worker-1 faults after the lift: %v", k)
	}
	if k := kinds("worker-2"); len(k) != 0 {
		t.Errorf("worker-2 faults after the lift: %v", k)
	}
	if err := rt.RemoveEdge(ctx, "orchestrator-0", "leader-0"); err == nil {
		t.Error("RemoveEdge of an edge that does not exist landed")
	}
	for _, c := range rt.Checks() {
		if err := c.Run(ctx); err != nil {
			t.Errorf("check %s: %v", c.Name, err)
		}
	}
}

// An agent that answers 404 to the contract: its faults fail with
// fault.ErrUnsupported naming the pod and the kind, nothing counts as
// landed, the checks are not applicable, and readiness alone makes the
// probe.
func TestAgentWithoutTheContract(t *testing.T) {
	ref := newRuntime(t, kube.WithReferenceAgents(0), kube.WithoutAgentAPI())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "noapi-0", Labels: map[string]string{kube.DefaultTypeLabel: fault.TypeWorker, "app": "noapi"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "noapi", Image: noAPIImage, Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
		}}},
	}
	if _, err := ref.Clientset().CoreV1().Pods(ref.Namespace()).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rt, err := kube.NewRuntime(ctx, cluster(t), kube.WithNamespace(ref.Namespace()), kube.WithSelector("app=noapi"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	eventually(t, "noapi-0 running", func() bool {
		agents, _ := rt.ListAgents(ctx)
		return len(agents) == 1 && agents[0].Status == fault.StatusRunning
	})
	var last error
	eventually(t, "noapi-0 listening", func() bool {
		_, last = rt.State(ctx, "noapi-0")
		if !errors.Is(last, fault.ErrUnsupported) {
			t.Logf("%v", last)
		}
		return errors.Is(last, fault.ErrUnsupported)
	})
	for kind, call := range map[string]func() error{
		"tool_timeout":   func() error { _, err := rt.ToolTimeout(ctx, "noapi-0", time.Second); return err },
		"memory_corrupt": func() error { return rt.CorruptMemory(ctx, "noapi-0") },
		"pause":          func() error { _, err := rt.PauseAgent(ctx, "noapi-0"); return err },
		"remove_node":    func() error { return rt.RemoveNode(ctx, "noapi-0") },
	} {
		err := call()
		if !errors.Is(err, fault.ErrUnsupported) || !strings.Contains(err.Error(), "noapi-0") || !strings.Contains(err.Error(), kind) {
			t.Errorf("%s: %v, want fault.ErrUnsupported naming noapi-0 and %s", kind, err, kind)
		}
	}
	if a := rt.Active(); len(a) != 0 {
		t.Errorf("active after unsupported faults: %v", a)
	}
	if a := agent(t, rt, "noapi-0"); a.Status != fault.StatusRunning {
		t.Errorf("noapi-0: %s after an unsupported pause, want running", a.Status)
	}
	for _, c := range rt.Checks() {
		if err := c.Run(ctx); !errors.Is(err, fault.ErrNotApplicable) {
			t.Errorf("check %s: %v, want fault.ErrNotApplicable", c.Name, err)
		}
	}
	if err := rt.Probe(ctx); err != nil {
		t.Errorf("probe of a Ready pod without /health: %v", err)
	}
}

// Injection latency through the pod proxy: tool_timeout landed and lifted
// 50 times on worker-1, each one API request (logged, not asserted: two
// busy cores make no benchmark).
func TestAgentFaultLatency(t *testing.T) {
	rt := newRuntime(t, kube.WithReferenceAgents(1))
	ctx := context.Background()
	const n = 50
	var inject, lift []time.Duration
	calls := rt.Calls()
	for range n {
		start := time.Now()
		undo, err := rt.ToolTimeout(ctx, "worker-1", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		inject = append(inject, time.Since(start))
		start = time.Now()
		if err := undo(ctx); err != nil {
			t.Fatal(err)
		}
		lift = append(lift, time.Since(start))
	}
	if got := rt.Calls() - calls; got != 2*n {
		t.Errorf("%d API requests for %d faults and lifts, want %d (one each)", got, n, 2*n)
	}
	pct := func(d []time.Duration, p int) time.Duration {
		slices.Sort(d)
		return d[(len(d)-1)*p/100].Round(10 * time.Microsecond)
	}
	t.Logf("tool_timeout through the pod proxy, %d times: inject p50 %v p95 %v max %v; lift p50 %v p95 %v max %v",
		n, pct(inject, 50), pct(inject, 95), pct(inject, 100), pct(lift, 50), pct(lift, 95), pct(lift, 100))
}
