package fault

import (
	"context"
)

// RoleResolver maps the agents as a runtime lists them to their roles now:
// it returns the same agents with Type set to each one's live role (the
// current leader's to TypeLeader, the others' to whatever the system calls
// them, e.g. TypeWorker). In a Raft system the leader moves; a resolver reads
// who holds it (a status endpoint, a Kubernetes Lease), so that kill_leader,
// type:leader selectors and the survival mix follow it.
//
// The injector consults it at every target selection, right after
// ListAgents; an error fails that selection (the fault does not land).
type RoleResolver func(ctx context.Context, agents []AgentInfo) ([]AgentInfo, error)

type rolesOption struct{ r RoleResolver }

func (o rolesOption) apply(in *Injector) { in.roles = o.r }

// WithRoles makes the injector resolve roles live with r (nil: the roles
// ListAgents reports, fixed at start for most runtimes).
func WithRoles(r RoleResolver) InjectorOption { return rolesOption{r} }
