package planted

import (
	"context"
	"fmt"

	"github.com/ares-arena/arena/fault"
)

// Refuser is a system that lists three running workers, w1 to w3, and
// lands no kill on those it refuses: the shape of a runtime whose agents
// exist but whose faults fail (a built-in written for another system's
// names, once its targets are resolved). It has only the capability to
// stop agents.
type Refuser struct{ refuse map[string]bool }

// NewRefuser returns a Refuser that refuses to kill the agents ids.
func NewRefuser(ids ...string) Refuser {
	r := Refuser{refuse: map[string]bool{}}
	for _, id := range ids {
		r.refuse[id] = true
	}
	return r
}

// ListAgents lists w1, w2 and w3, running workers.
func (r Refuser) ListAgents(context.Context) ([]fault.AgentInfo, error) {
	return []fault.AgentInfo{
		{ID: "w1", Type: fault.TypeWorker, Status: fault.StatusRunning},
		{ID: "w2", Type: fault.TypeWorker, Status: fault.StatusRunning},
		{ID: "w3", Type: fault.TypeWorker, Status: fault.StatusRunning},
	}, nil
}

// StopAgent lands a kill, or fails as a simulated world does for a node
// it does not have.
func (r Refuser) StopAgent(_ context.Context, id string) error {
	if r.refuse[id] {
		return fmt.Errorf("sim: no node %q", id)
	}
	return nil
}
