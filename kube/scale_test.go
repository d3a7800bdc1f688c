package kube_test

import (
	"context"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ares-arena/arena/arenatest"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/kube"
	"github.com/ares-arena/arena/kube/kubetest"
)

// ScaleEnv names the environment variable that runs TestScaleSurvival and
// sets its duration ("10m"): it is too long for every `make test`.
const ScaleEnv = "ARENA_KUBE_SCALE"

// TestScaleSurvival: 1,000 pods on 50 kwok nodes, a survival run of kills,
// partitions (their policies' lifecycle: EnforcementAssumed, since kwok
// enforces nothing) and resizes; it logs API calls per fault, injection
// latency percentiles and the informer's heap, and checks that every
// NetworkPolicy and resize was rolled back.
func TestScaleSurvival(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv(ScaleEnv))
	if err != nil || d <= 0 {
		t.Skipf("set %s to a duration (10m) to run it", ScaleEnv)
	}
	plane := kubetest.New(t, kubetest.WithNodes(50), kubetest.WithStartupTimeout(5*time.Minute))
	if plane == nil {
		return
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	rt := kube.ForTest(t, kube.WithConfig(plane.Config), kube.WithProject(testProject),
		kube.WithReferenceAgents(998), kube.WithEnforcement(kube.EnforcementAssumed),
		kube.WithoutAgentAPI()) // no agentd processes: the plane has no WithAgentd
	t.Logf("1000 pods Ready in %v", time.Since(start).Round(time.Second))
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("heap with the runtime's informer over 1000 pods: +%.1f MiB", float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))

	timed := &timedRuntime{Runtime: rt, lat: map[fault.Type][]time.Duration{}}
	rep := arenatest.Survive(t, engine.SurvivalConfig{
		Duration: d, Interval: 500 * time.Millisecond, Seed: 7, MaxActiveFaults: 20,
		Mix: map[fault.Type]float64{
			fault.KillAgent: 1, fault.NetworkPartition: 1, fault.SlowAgent: 1,
		},
		Targets: engine.TargetFilter{Types: []string{fault.TypeWorker}},
	}, arenatest.WithRuntime(timed))
	landed := 0
	for typ, o := range rep.ByType {
		t.Logf("%s: %d attempted, %d landed, %d failed, %d recovered, MTTR %v", typ, o.Attempted, o.Landed, o.Failed, o.Recovered, o.MTTR)
		landed += o.Landed
	}
	t.Logf("%d faults landed, %d API requests by the faults and lifts: %.2f per fault", landed, rt.Calls(), float64(rt.Calls())/float64(max(landed, 1)))
	for typ, l := range timed.lat {
		slices.Sort(l)
		p := func(q float64) time.Duration { return l[int(q*float64(len(l)-1))].Round(100 * time.Microsecond) }
		t.Logf("%s injection latency over %d: p50 %v p90 %v p99 %v max %v", typ, len(l), p(.5), p(.9), p(.99), l[len(l)-1])
	}

	// The run's rollback lifted what was active at its end: every pod has
	// its limit and no partition label, and no policy is left; then Close
	// (which deletes the reference pods) leaves no policy either.
	ctx := context.Background()
	cs := rt.Clientset()
	pods, err := cs.CoreV1().Pods(rt.Namespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, p := range pods.Items {
		if q := p.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]; q.String() != "1" || p.Labels[kube.LabelPartition] != "" {
			changed++
		}
	}
	nps, err := cs.NetworkingV1().NetworkPolicies(rt.Namespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after the run: %d NetworkPolicies, %d of %d pods with a changed limit or a partition label; active in the runtime: %v",
		len(nps.Items), changed, len(pods.Items), rt.Active())
	if changed != 0 || len(nps.Items) != 0 || len(pods.Items) < 990 {
		t.Errorf("not rolled back: %d pods changed, %d policies, %d pods (a pod just killed may be missing)", changed, len(nps.Items), len(pods.Items))
	}
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	nps, err = cs.NetworkingV1().NetworkPolicies(rt.Namespace()).List(ctx, metav1.ListOptions{})
	if err != nil || len(nps.Items) != 0 {
		t.Errorf("NetworkPolicies after Close: %d (%v)", len(nps.Items), err)
	}
}

// timedRuntime records each injection's latency.
type timedRuntime struct {
	*kube.Runtime
	mu  sync.Mutex
	lat map[fault.Type][]time.Duration
}

func (r *timedRuntime) time(kind fault.Type, f func() (fault.Lift, error)) (fault.Lift, error) {
	start := time.Now()
	lift, err := f()
	if err == nil {
		r.mu.Lock()
		r.lat[kind] = append(r.lat[kind], time.Since(start))
		r.mu.Unlock()
	}
	return lift, err
}

func (r *timedRuntime) StopAgent(ctx context.Context, id string) error {
	_, err := r.time(fault.KillAgent, func() (fault.Lift, error) { return nil, r.Runtime.StopAgent(ctx, id) })
	return err
}

func (r *timedRuntime) PartitionNetwork(ctx context.Context, id string) (fault.Lift, error) {
	return r.time(fault.NetworkPartition, func() (fault.Lift, error) { return r.Runtime.PartitionNetwork(ctx, id) })
}

func (r *timedRuntime) SlowAgent(ctx context.Context, id string, d time.Duration) (fault.Lift, error) {
	return r.time(fault.SlowAgent, func() (fault.Lift, error) { return r.Runtime.SlowAgent(ctx, id, d) })
}
