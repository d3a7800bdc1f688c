package kubetest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/ares-arena/arena/kube/kubetest"
)

// A pod of AgentdImage is an agentd process listening on the pod's IP:
// the API server's pod proxy and the gateway reach it; deleting the pod
// kills the process, and Close removes the pod CIDR's route.
func TestAgentdPodsAnswer(t *testing.T) {
	plane := kubetest.New(t, kubetest.WithNodes(1), kubetest.WithAgentd())
	if plane == nil {
		return
	}
	if plane.AgentsErr != nil {
		if os.Getenv(kubetest.RequireEnv) == "1" {
			t.Fatalf("%v", plane.AgentsErr)
		}
		t.Skipf("%v", plane.AgentsErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := kubernetes.NewForConfig(plane.Config)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "agent-0", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "agentd", Image: kubetest.AgentdImage,
			Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
			Env:   []corev1.EnvVar{{Name: "AGENTD_TYPE", Value: "worker"}},
		}}},
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var body []byte
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		body, err = cs.CoreV1().RESTClient().Get().Namespace("default").Resource("pods").Name("agent-0:8080").
			SubResource("proxy").Suffix("state").DoRaw(ctx)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("GET /state through the pod proxy: %v (last: %s)", err, body)
	}
	if !strings.Contains(string(body), `"id":"agent-0"`) || !strings.Contains(string(body), `"type":"worker"`) {
		t.Errorf("state through the pod proxy: %s, want agent-0, a worker", body)
	}
	resp, err := http.Get(plane.GatewayURL() + "/pods/default/agent-0/health")
	if err != nil {
		t.Fatal(err)
	}
	gw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /health through the gateway: %s %s", resp.Status, gw)
	}
	pid := plane.AgentPIDs()["default/agent-0"]
	if pid == 0 {
		t.Fatalf("no process for default/agent-0: %v", plane.AgentPIDs())
	}
	if err := cs.CoreV1().Pods("default").Delete(ctx, "agent-0", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(context.Context) (bool, error) {
		return len(plane.AgentPIDs()) == 0 && !alive(pid), nil
	})
	if err != nil {
		t.Errorf("agentd %d still running after its pod's deletion: %v", pid, err)
	}
	cidrRoute := "local " + plane.PodCIDR() + " "
	if out, _ := exec.Command("ip", "route", "show", "table", "local").Output(); !strings.Contains(string(out), cidrRoute) {
		t.Errorf("no route %q while the plane runs:\n%s", cidrRoute, out)
	}
	if err := plane.Close(); err != nil {
		t.Fatal(err)
	}
	if out, _ := exec.Command("ip", "route", "show", "table", "local").Output(); strings.Contains(string(out), cidrRoute) {
		t.Errorf("route %s still there after Close:\n%s", cidrRoute, out)
	}
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
