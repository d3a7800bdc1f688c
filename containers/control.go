package containers

import (
	"context"
	"errors"
	"fmt"

	"github.com/ares-arena/arena/agentapi"
)

// client is agent a's fault-control endpoint (package agentapi), with the
// control timeout: 404 and 501 answers are fault.ErrUnsupported, 409
// fault.ErrCannotLand.
func (r *Runtime) client(a *Agent) agentapi.Client {
	return agentapi.Client{HTTP: r.ctlC, URL: a.endpoint, Agent: a.ID}
}

func (r *Runtime) postFault(ctx context.Context, a *Agent, f agentapi.Fault) error {
	_, err := r.client(a).Land(ctx, f)
	return wrap(err)
}

func (r *Runtime) deleteFault(ctx context.Context, a *Agent, kind string) error {
	_, err := r.client(a).Lift(ctx, kind)
	return wrap(err)
}

// State reads the agent's GET /state (fault.ErrUnsupported when it has
// none).
func (r *Runtime) State(ctx context.Context, agentID string) (agentapi.State, error) {
	a, err := r.agent(agentID)
	if err != nil {
		return agentapi.State{}, err
	}
	st, err := r.client(a).State(ctx)
	return st, wrap(err)
}

// health asks the agent's health endpoint within the probe timeout. A 200
// or 503 answer is a verdict; any other outcome is an error that says what
// happened ("no answer within 100ms").
func (r *Runtime) health(ctx context.Context, a *Agent) (agentapi.Health, error) {
	h, err := agentapi.Client{HTTP: r.probeC, URL: a.endpoint, Agent: a.ID}.Health(ctx, a.health)
	if re := (*agentapi.ReachError)(nil); errors.As(err, &re) {
		return h, errors.New(re.Reason) // the probe names the agent
	}
	return h, wrap(err)
}

// wrap puts the package's name before an error of the agent's client.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("containers: %w", err)
}
