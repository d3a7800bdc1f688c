package kube

import (
	"context"
	"fmt"
	"time"

	"github.com/ares-arena/arena"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// ReferenceImage is the image of the reference agents' pods. kwok nodes
// never pull it.
const ReferenceImage = "arena-agentd:local"

// labelSet names the StatefulSet of a reference pod.
const labelSet = "arena.io/set"

// deployReference creates the reference StatefulSets.
func (r *Runtime) deployReference(ctx context.Context) error {
	sets := []struct {
		name, typ string
		replicas  int32
		start     int32
	}{
		{"leader", arena.TypeLeader, 1, 0},
		{"orchestrator", arena.TypeOrchestrator, 1, 0},
		{"worker", arena.TypeWorker, int32(r.opts.refWorkers), 1},
	}
	for _, s := range sets {
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
							Ports: []corev1.ContainerPort{{Name: "control", ContainerPort: 8080}},
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
