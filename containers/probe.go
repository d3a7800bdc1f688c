package containers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/containers/agentcheck"
	"github.com/ares-arena/arena/fault"
	"github.com/ares-arena/arena/internal/ctxtime"
)

// Probe reports whether the system is healthy now: every agent is asked
// GET /health (AgentHealthPath) through its mapped port, in parallel, within
// the probe timeout (WithProbeTimeout). The system is healthy when every
// agent that is not a worker (the leader, the orchestrator, your own types)
// is available, a quorum (⌊N/2⌋+1) of the N workers is, and no agent reports
// a broken DAG. With WithQuorumProbe it is healthy when a quorum of all the
// agents is available, whatever their types (a symmetric cluster).
// An agent is available when it answers 200, or 503 for a broken DAG only.
// The error names the first reason found, in that order:
//
//	leader unavailable: leader-0: no answer within 100ms
//	orchestrator unavailable: orchestrator-0: connection refused
//	quorum lost: 1 of 3 workers available
//	dag broken: missing edge orchestrator-0->worker-2
//
// A paused agent does not answer, a killed one refuses until its restart, a
// partitioned one cannot be reached at all, and an agentd agent answers 503
// while its error rate is above its threshold.
func (r *Runtime) Probe(ctx context.Context) error {
	type verdict struct {
		h   agentapi.Health
		err error
	}
	vs := make([]verdict, len(r.agents))
	var wg sync.WaitGroup
	for i, a := range r.agents {
		wg.Go(func() { vs[i].h, vs[i].err = r.health(ctx, a) })
	}
	wg.Wait()
	avail := func(i int) bool { return vs[i].err == nil && (vs[i].h.Healthy || vs[i].h.DAGBroken) }
	why := func(i int) string {
		if vs[i].err != nil {
			return vs[i].err.Error()
		}
		return vs[i].h.Reason
	}
	if r.opts.quorum {
		up := 0
		var down []string
		for i, a := range r.agents {
			if avail(i) {
				up++
			} else {
				down = append(down, a.ID+": "+why(i))
			}
		}
		if up < len(r.agents)/2+1 {
			return fmt.Errorf("quorum lost: %d of %d agents available (%s)", up, len(r.agents), strings.Join(down, "; "))
		}
		return nil
	}
	order := make([]int, 0, len(r.agents))
	for i := range r.agents {
		order = append(order, i)
	}
	rank := func(t string) int {
		switch t {
		case fault.TypeLeader:
			return 0
		case fault.TypeOrchestrator:
			return 1
		case fault.TypeWorker:
			return 3
		}
		return 2
	}
	slices.SortStableFunc(order, func(i, j int) int { return rank(r.agents[i].Type) - rank(r.agents[j].Type) })
	workers, up := 0, 0
	for _, i := range order {
		a := r.agents[i]
		if a.Type == fault.TypeWorker {
			workers++
			if avail(i) {
				up++
			}
			continue
		}
		if !avail(i) {
			return fmt.Errorf("%s unavailable: %s: %s", a.Type, a.ID, why(i))
		}
	}
	if workers > 0 && up < workers/2+1 {
		return fmt.Errorf("quorum lost: %d of %d workers available", up, workers)
	}
	for _, i := range order {
		if vs[i].err == nil && vs[i].h.DAGBroken {
			return errors.New(vs[i].h.Reason)
		}
	}
	return nil
}

// Checks returns the consistency checks, which read GET /state of the agents
// that have one (agents answering 404 are left out; when no agent's state
// could be read, a check returns fault.ErrNotApplicable and is not measured):
//
//   - "tasks": no task lost. Every task an agent handed on is in the ledger
//     of the agent it was handed to.
//   - "memory": every agent's memory matches its checksum, and its last
//     checkpoint reads back intact.
//
// Agents that cannot answer by design (partitioned, paused, stopped) are
// skipped; the tasks handed to them are not verified this time. An agent
// that should answer and does not (after a few tries) fails the check.
func (r *Runtime) Checks() []fault.Check {
	return []fault.Check{
		{Name: "tasks", Run: r.checkTasks},
		{Name: "memory", Run: r.checkMemory},
	}
}

// states reads the state of every agent that can answer
// (agentcheck.States).
func (r *Runtime) states(ctx context.Context) (map[string]agentapi.State, error) {
	ids := make([]string, len(r.agents))
	for i, a := range r.agents {
		ids[i] = a.ID
	}
	return agentcheck.States(ctx, ids, func(ctx context.Context, id string) (agentapi.State, error) {
		return r.readState(ctx, r.byID[id])
	})
}

// readState reads a's state, retrying a few times: an agent that has just
// restarted may need a moment to listen again.
func (r *Runtime) readState(ctx context.Context, a *Agent) (agentapi.State, error) {
	var err error
	for try := 0; try < 4; try++ {
		if r.unreachable(ctx, a) != "" {
			return agentapi.State{}, agentcheck.ErrSkip
		}
		var st agentapi.State
		if st, err = r.client(a).State(ctx); err == nil || errors.Is(err, fault.ErrUnsupported) {
			return st, wrap(err)
		}
		if ctxtime.Sleep(ctx, 250*time.Millisecond) != nil {
			break
		}
	}
	return agentapi.State{}, fmt.Errorf("state unreadable: %w", err)
}

func (r *Runtime) checkTasks(ctx context.Context) error {
	sts, err := r.states(ctx)
	if err != nil {
		return err
	}
	return agentcheck.Tasks(ctx, sts, func(ctx context.Context, id string) (agentapi.State, error) {
		a, ok := r.byID[id]
		if !ok {
			return agentapi.State{}, fmt.Errorf("no agent %s", id)
		}
		return r.readState(ctx, a)
	})
}

func (r *Runtime) checkMemory(ctx context.Context) error {
	sts, err := r.states(ctx)
	if err != nil {
		return err
	}
	return agentcheck.Memory(sts)
}
