package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Probe is healthy when every owner (StatefulSet, ReplicaSet, or a bare
// pod) has as many available agent pods as it had when the runtime
// started, but for the owners of workers (type worker), which need a quorum
// of them (⌊N/2⌋+1, as the containers runtime's probe), when no agent
// reports a broken task DAG, and, with WithLeaderLease, when the Lease's
// holder is an available pod. A pod is available when it is
// Ready (read from the informers' cache) and its agent answers GET /health
// through the pod proxy within WithProbeTimeout with 200, or 503 for a
// broken DAG only. An agent answering 404 has no /health: readiness alone
// decides. With WithoutAgentAPI, readiness alone decides for every pod and
// Probe makes no API request.
func (r *Runtime) Probe(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pods, err := r.pods.List(labels.Everything())
	if err != nil {
		return err
	}
	var ready []*corev1.Pod
	for _, p := range pods {
		if podReady(p) {
			ready = append(ready, p)
		}
	}
	why := make([]string, len(ready)) // "" when available
	dag := make([]string, len(ready))
	var wg sync.WaitGroup
	for i, p := range ready {
		wg.Go(func() {
			h, has, err := r.health(ctx, p.Name)
			switch {
			case !has:
			case err != nil:
				why[i] = err.Error()
			case h.DAGBroken:
				dag[i] = h.Reason
			case !h.Healthy:
				why[i] = h.Reason
			}
		})
	}
	wg.Wait()
	avail := map[string]int{}
	availPod := map[string]bool{}
	down := map[string][]string{}
	owners, baseline, workers := r.owners(ready)
	for i, p := range ready {
		k := owners[i]
		if why[i] != "" {
			down[k.owner] = append(down[k.owner], p.Name+": "+why[i])
			continue
		}
		avail[k.owner]++
		availPod[p.Name] = true
	}
	var errs []error
	for owner, want := range baseline {
		need := want
		if workers[owner] {
			need = want/2 + 1
		}
		if avail[owner] < need {
			msg := fmt.Sprintf("%s: %d of %d pods available", owner, avail[owner], want)
			if need < want {
				msg = fmt.Sprintf("%s: quorum lost: %d of %d worker pods available", owner, avail[owner], want)
			}
			if d := down[owner]; len(d) > 0 {
				slices.Sort(d)
				msg += " (" + strings.Join(d, "; ") + ")"
			}
			errs = append(errs, errors.New(msg))
		}
	}
	for _, d := range dag {
		if d != "" {
			errs = append(errs, errors.New(d))
		}
	}
	if r.leases != nil {
		switch h := r.leaseHolder(); {
		case h == "":
			errs = append(errs, fmt.Errorf("lease %s: no holder", r.opts.leaderLease))
		case !availPod[h]:
			errs = append(errs, fmt.Errorf("lease %s: holder %s is not an available pod", r.opts.leaderLease, h))
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// owners returns what is known of the pods (remembering those seen first),
// and copies of the pods per owner at the start and of the worker owners.
func (r *Runtime) owners(pods []*corev1.Pod) (known []knownPod, baseline map[string]int, workers map[string]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range pods {
		known = append(known, r.remember(p))
	}
	return known, maps.Clone(r.baseline), maps.Clone(r.workers)
}
