package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
)

// Probe is healthy when every owner (StatefulSet, ReplicaSet, or a bare
// pod) has as many Ready agent pods as it had when the runtime started,
// and, with WithLeaderLease, the Lease's holder is a Ready pod. It reads
// the informers' cache: no API request.
func (r *Runtime) Probe(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pods, err := r.pods.List(labels.Everything())
	if err != nil {
		return err
	}
	ready := map[string]int{}
	readyPod := map[string]bool{}
	r.mu.Lock()
	for _, p := range pods {
		k := r.remember(p)
		if podReady(p) {
			ready[k.owner]++
			readyPod[p.Name] = true
		}
	}
	var errs []error
	for owner, want := range r.baseline {
		if ready[owner] < want {
			errs = append(errs, fmt.Errorf("%s: %d of %d pods Ready", owner, ready[owner], want))
		}
	}
	r.mu.Unlock()
	if r.leases != nil {
		switch h := r.leaseHolder(); {
		case h == "":
			errs = append(errs, fmt.Errorf("lease %s: no holder", r.opts.leaderLease))
		case !readyPod[h]:
			errs = append(errs, fmt.Errorf("lease %s: holder %s is not a Ready pod", r.opts.leaderLease, h))
		}
	}
	slices.SortFunc(errs, func(a, b error) int {
		switch {
		case a.Error() < b.Error():
			return -1
		case a.Error() > b.Error():
			return 1
		}
		return 0
	})
	return errors.Join(errs...)
}
