package containers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/ares-arena/arena/containers/agentapi"
)

// call sends one request of the contract to agent a and decodes a 200
// answer into out. Answers map to errors: 404 and 501 ErrUnsupported, 409
// ErrCannotLand, any other non-200 an error with the agent's message.
func (r *Runtime) call(ctx context.Context, c *http.Client, a *Agent, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.endpoint+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("containers: agent %s: %s %s: %s", a.ID, method, path, transportReason(err, c.Timeout))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("containers: agent %s: %s %s: %w", a.ID, method, path, err)
	}
	if resp.StatusCode == http.StatusOK {
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("containers: agent %s: %s %s: %w", a.ID, method, path, err)
		}
		return nil
	}
	var e agentapi.Error
	msg := resp.Status
	if json.Unmarshal(data, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	switch resp.StatusCode {
	case http.StatusNotFound, http.StatusNotImplemented, http.StatusMethodNotAllowed:
		return fmt.Errorf("containers: agent %s: %s %s: %w: %s", a.ID, method, path, ErrUnsupported, msg)
	case http.StatusConflict:
		return fmt.Errorf("containers: agent %s: %w: %s", a.ID, ErrCannotLand, msg)
	}
	return fmt.Errorf("containers: agent %s: %s %s: %s", a.ID, method, path, msg)
}

// transportReason shortens a transport error to what happened.
func transportReason(err error, timeout time.Duration) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return "no answer within " + timeout.String()
		}
		err = ue.Err
	}
	return err.Error()
}

func (r *Runtime) postFault(ctx context.Context, a *Agent, f agentapi.Fault) error {
	return r.call(ctx, r.ctlC, a, http.MethodPost, agentapi.PathFaults, f, nil)
}

func (r *Runtime) deleteFault(ctx context.Context, a *Agent, kind string) error {
	return r.call(ctx, r.ctlC, a, http.MethodDelete, agentapi.PathFaults+"/"+url.PathEscape(kind), nil, nil)
}

// State reads the agent's GET /state (ErrUnsupported when it has none).
func (r *Runtime) State(ctx context.Context, agentID string) (agentapi.State, error) {
	a, err := r.agent(agentID)
	if err != nil {
		return agentapi.State{}, err
	}
	var st agentapi.State
	err = r.call(ctx, r.ctlC, a, http.MethodGet, agentapi.PathState, nil, &st)
	return st, err
}

// health asks the agent's GET /health within the probe timeout. A 200 or
// 503 answer is a verdict (a body that is not JSON reads as its status); any
// other outcome is an error.
func (r *Runtime) health(ctx context.Context, a *Agent) (agentapi.Health, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.endpoint+a.health, nil)
	if err != nil {
		return agentapi.Health{}, err
	}
	resp, err := r.probeC.Do(req)
	if err != nil {
		return agentapi.Health{}, errors.New(transportReason(err, r.probeC.Timeout))
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	var h agentapi.Health
	switch resp.StatusCode {
	case http.StatusOK:
		return agentapi.Health{Healthy: true}, nil
	case http.StatusServiceUnavailable:
		if json.Unmarshal(data, &h) != nil || h.Reason == "" {
			h = agentapi.Health{Reason: resp.Status}
		}
		h.Healthy = false
		return h, nil
	}
	return agentapi.Health{}, fmt.Errorf("health answered %s", resp.Status)
}
