package kube

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ares-arena/arena/kube/kubetest"
)

// TB is what ForTest needs of a test: *testing.T, *testing.B and Ginkgo's
// GinkgoT() all have it.
type TB interface {
	kubetest.TB
	Errorf(format string, args ...any)
}

// ForTest gives a test a runtime in a namespace of its own and removes it
// all in t.Cleanup:
//
//   - the cluster is WithConfig's, or else a kubetest plane started for the
//     test (skipped without its binaries, failed when ARENA_REQUIRE_KUBE=1),
//     which runs the reference agents as agentd processes (kubetest's
//     WithAgentd; skipped, or failed, when it cannot: not root);
//   - the namespace, arena-<run>, carries the run's labels; Cleanup closes
//     the runtime (lifting its faults) and deletes the namespace.
//
// Give it WithReferenceAgents for a system to fault, or create your own
// pods in rt.Namespace() and make a second runtime over them with
// NewRuntime.
func ForTest(t TB, opts ...Option) *Runtime {
	t.Helper()
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	if err := o.validate(); err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	cfg := o.cfg
	if cfg == nil {
		var popts []kubetest.Option
		if o.refWorkers > 0 && o.controlPort != 0 {
			popts = append(popts, kubetest.WithAgentd())
		}
		plane := kubetest.New(t, popts...)
		if plane == nil {
			return nil
		}
		if plane.AgentsErr != nil {
			if os.Getenv(kubetest.RequireEnv) == "1" {
				t.Fatalf("kube: reference agents: %v (%s=1 requires them)", plane.AgentsErr, kubetest.RequireEnv)
			} else {
				t.Skipf("kube: reference agents: %v (set %s=1 to fail instead)", plane.AgentsErr, kubetest.RequireEnv)
			}
			return nil
		}
		cfg = plane.Config
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("kube: %v", err)
		return nil
	}
	// Two minutes, and more for many reference agents (1,000 pods take a
	// while to be scheduled and made Ready on two cores).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute+time.Duration(o.refWorkers)*200*time.Millisecond)
	defer cancel()
	run := o.runID
	if run == "" {
		run = NewRunID()
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   "arena-" + run,
		Labels: map[string]string{LabelProject: o.project, LabelRun: run},
	}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("kube: namespace: %v", err)
		return nil
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute+time.Duration(o.refWorkers)*100*time.Millisecond)
		defer cancel()
		if err := DeleteNamespace(ctx, cs, ns.Name); err != nil {
			t.Errorf("kube: %v", err)
		}
	})
	rt, err := NewRuntime(ctx, cfg, append(opts, WithNamespace(ns.Name), WithRunID(run))...)
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := rt.Close(ctx); err != nil {
			t.Errorf("kube: close: %v", err)
		}
	})
	return rt
}

// DeleteNamespace deletes a namespace and waits until it is gone (its
// objects with it).
func DeleteNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete namespace %s: %w", name, err)
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		_, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(fmt.Errorf("namespace %s still there", name), ctx.Err())
		case <-tick.C:
		}
	}
}
