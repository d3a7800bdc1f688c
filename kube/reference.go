package kube

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/kube/kubetest"
)

// ReferenceImage is the image of the reference agents' pods: a kubetest
// plane with WithAgentd runs them as agentd processes.
const ReferenceImage = kubetest.AgentdImage

// labelSet names the StatefulSet of a reference pod.
const labelSet = "arena.io/set"

// referenceService is the headless Service that gives the reference pods
// their DNS names (<pod>.arena-agents) in a cluster with DNS.
const referenceService = "arena-agents"

// deployReference creates the reference StatefulSets, leader-0 →
// orchestrator-0 → worker-1 … worker-N, and their headless Service.
//
// Routing: agentd hands tasks to http://<id>:8080. In a cluster with DNS
// the pods are <pod>.arena-agents.<namespace>.svc (the StatefulSets'
// serviceName is the headless Service arena-agents, which sets each pod's
// hostname and subdomain), so AGENTD_ROUTE_URLS names each route
// http://<route>.arena-agents:8080, resolved through the namespace's search
// path. A kubetest plane has no DNS: its runner replaces those URLs with
// its gateway's.
func (r *Runtime) deployReference(ctx context.Context) error {
	workers := make([]string, r.opts.refWorkers)
	for i := range workers {
		workers[i] = fmt.Sprintf("worker-%d", i+1)
	}
	sets := []struct {
		name, typ string
		replicas  int32
		start     int32
		routes    []string
	}{
		{"leader", fault.TypeLeader, 1, 0, []string{"orchestrator-0"}},
		{"orchestrator", fault.TypeOrchestrator, 1, 0, workers},
		{"worker", fault.TypeWorker, int32(r.opts.refWorkers), 1, nil},
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: referenceService, Labels: r.runLabels()},
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			Selector:                 map[string]string{LabelRun: r.runID},
			PublishNotReadyAddresses: true,
			Ports:                    []corev1.ServicePort{{Name: "control", Port: int32(r.controlPort())}},
		},
	}
	if _, err := r.cs.CoreV1().Services(r.opts.namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("kube: reference agents: Service %s: %w", referenceService, err)
	}
	for _, s := range sets {
		var urls []string
		for _, to := range s.routes {
			urls = append(urls, fmt.Sprintf("%s=http://%s.%s:%d", to, to, referenceService, r.controlPort()))
		}
		env := []corev1.EnvVar{
			{Name: "AGENTD_ID", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
			{Name: "AGENTD_TYPE", Value: s.typ},
			{Name: "AGENTD_ROUTES", Value: strings.Join(s.routes, ",")},
			{Name: "AGENTD_ROUTE_URLS", Value: strings.Join(urls, ",")},
			{Name: "AGENTD_ADDR", Value: fmt.Sprintf(":%d", r.controlPort())},
			{Name: "AGENTD_DATA", Value: "/data"},
		}
		if s.replicas == 0 {
			continue
		}
		podLabels := r.runLabels()
		podLabels[r.opts.typeLabel] = s.typ
		podLabels[labelSet] = s.name
		ss := &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: s.name, Labels: r.runLabels()},
			Spec: appsv1.StatefulSetSpec{
				Replicas:            &s.replicas,
				ServiceName:         referenceService,
				Ordinals:            &appsv1.StatefulSetOrdinals{Start: s.start},
				PodManagementPolicy: appsv1.ParallelPodManagement,
				Selector:            &metav1.LabelSelector{MatchLabels: map[string]string{LabelRun: r.runID, labelSet: s.name}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
					Spec: corev1.PodSpec{
						TerminationGracePeriodSeconds: new(int64),
						Containers: []corev1.Container{{
							Name:  "agentd",
							Image: ReferenceImage,
							Ports: []corev1.ContainerPort{{Name: "control", ContainerPort: int32(r.controlPort())}},
							Env:   env,
							Resources: corev1.ResourceRequirements{
								Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
								Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
							},
						}},
					},
				},
			},
		}
		if _, err := r.cs.AppsV1().StatefulSets(r.opts.namespace).Create(ctx, ss, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("kube: reference agents: StatefulSet %s: %w", s.name, err)
		}
	}
	return nil
}

func (r *Runtime) controlPort() int { return cmp.Or(r.opts.controlPort, DefaultControlPort) }

// waitHealthy waits until every agent pod's agent answers GET /health (any
// answer of the agent's: it listens).
func (r *Runtime) waitHealthy(ctx context.Context) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		pods, err := r.pods.List(labels.Everything())
		if err != nil {
			return err
		}
		var waiting []string
		for _, p := range pods {
			if _, has, err := r.health(ctx, p.Name); has && err != nil {
				waiting = append(waiting, p.Name+": "+err.Error())
			}
		}
		if len(waiting) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kube: agents not answering: %s: %w", strings.Join(waiting, "; "), ctx.Err())
		case <-tick.C:
		}
	}
}

// waitReady waits until n agent pods are Ready in the cache.
func (r *Runtime) waitReady(ctx context.Context, n int) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		pods, err := r.pods.List(labels.Everything())
		if err != nil {
			return err
		}
		ready := 0
		for _, p := range pods {
			if podReady(p) {
				ready++
			}
		}
		if ready >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kube: %d of %d agent pods Ready: %w", ready, n, ctx.Err())
		case <-tick.C:
		}
	}
}
