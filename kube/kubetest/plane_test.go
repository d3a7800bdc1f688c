package kubetest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/ares-arena/arena/kube/kubetest"
)

// The key under which make kube-tools caches the binaries is the one
// kubetest looks for: both follow kube/tools' go.mod files.
func TestToolsKeyFollowsGoMod(t *testing.T) {
	version := func(gomod, module string) string {
		data, err := os.ReadFile(filepath.Join("..", "tools", gomod))
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			f := strings.Fields(line)
			if f = slices.DeleteFunc(f, func(w string) bool { return w == "require" }); len(f) >= 2 && f[0] == module {
				return f[1]
			}
		}
		t.Fatalf("%s: no %s", gomod, module)
		return ""
	}
	want := "k8s-" + version("go.mod", "k8s.io/kubernetes") +
		"_etcd-" + version("etcd/go.mod", "go.etcd.io/etcd/server/v3") +
		"_kwok-" + version("kwok/go.mod", "sigs.k8s.io/kwok") +
		"_" + runtime.GOOS + "-" + runtime.GOARCH
	if kubetest.ToolsKey != want {
		t.Errorf("ToolsKey = %q, kube/tools builds %q", kubetest.ToolsKey, want)
	}
}

func TestStartWithoutToolsIsErrNoTools(t *testing.T) {
	dir := t.TempDir()
	_, err := kubetest.Start(context.Background(), kubetest.WithToolsDir(dir))
	if !errors.Is(err, kubetest.ErrNoTools) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Start in an empty dir: %v, want ErrNoTools naming %s", err, dir)
	}
}

// A force-deleted pod of a 3-replica Deployment is replaced by its
// ReplicaSet, scheduled onto a simulated node and Running again: the
// controller manager, the scheduler and kwok all work.
func TestDeploymentReplacesForceDeletedPod(t *testing.T) {
	plane := kubetest.New(t, kubetest.WithNodes(2))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := kubernetes.NewForConfig(plane.Config)
	if err != nil {
		t.Fatal(err)
	}
	if len(plane.Nodes) != 2 {
		t.Fatalf("nodes: %v", plane.Nodes)
	}
	for _, name := range plane.Nodes {
		node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, taint := range node.Spec.Taints {
			if taint.Key == kubetest.NotReadyTaint {
				t.Errorf("node %s still has %s", name, taint.Key)
			}
		}
	}

	labels := map[string]string{"app": "web"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web:never-pulled"}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	running := func() []corev1.Pod {
		pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			t.Fatal(err)
		}
		var out []corev1.Pod
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && p.Spec.NodeName != "" {
				out = append(out, p)
			}
		}
		return out
	}
	waitRunning := func(avoid string) []corev1.Pod {
		var pods []corev1.Pod
		err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(context.Context) (bool, error) {
			pods = running()
			for _, p := range pods {
				if p.Name == avoid {
					return false, nil
				}
			}
			return len(pods) == 3, nil
		})
		if err != nil {
			t.Fatalf("3 Running pods: %v (have %d); %v", err, len(pods), plane.Exited())
		}
		return pods
	}
	pods := waitRunning("")
	victim := pods[0].Name
	start := time.Now()
	if err := cs.CoreV1().Pods("default").Delete(ctx, victim, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	after := waitRunning(victim)
	t.Logf("pod %s force-deleted; 3 Running again in %v (%s replaced it)", victim, time.Since(start).Round(time.Millisecond), newest(after).Name)
	if err := plane.Exited(); err != nil {
		t.Error(err)
	}
}

func newest(pods []corev1.Pod) corev1.Pod {
	n := pods[0]
	for _, p := range pods[1:] {
		if p.CreationTimestamp.After(n.CreationTimestamp.Time) {
			n = p
		}
	}
	return n
}
