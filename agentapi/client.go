package agentapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/ares-arena/arena/internal/faulterr"
)

// ErrOutOfReach: the agent's control endpoint did not answer (no
// connection, no answer in time), or something between the client and the
// agent answered in its place (Client.Foreign). The fault may or may not
// have landed. Such errors are a *ReachError.
var ErrOutOfReach = errors.New("control endpoint out of reach")

// ReachError is a request that got no answer from the agent.
type ReachError struct {
	Agent   string // the agent's ID
	Request string // "POST /faults"
	Reason  string // what happened: "no answer within 2s", "connection refused", a proxy's message
	// Foreign: something between answered in the agent's place (so the
	// request did not reach the agent); otherwise the answer was lost, and
	// the request may have reached it.
	Foreign bool
}

func (e *ReachError) Error() string {
	return fmt.Sprintf("agent %s: %s: %v: %s", e.Agent, e.Request, ErrOutOfReach, e.Reason)
}

// Unwrap returns ErrOutOfReach.
func (e *ReachError) Unwrap() error { return ErrOutOfReach }

// maxAnswer bounds the body of an answer read.
const maxAnswer = 8 << 20

// Client speaks the contract to one agent: the runtimes of arena that run
// agentapi agents (package containers, package kube) land and lift the
// agent-level faults, read the agent's state and ask its health through it.
// Its errors say which agent, and wrap the errors arena's runtimes share,
// so that errors.Is answers the same on every runtime:
//
//   - 404, 405 or 501: the agent does not implement the fault or endpoint:
//     fault.ErrUnsupported ("agent worker-1: tool_timeout is not supported
//     by this runtime: the agent answered …").
//   - 409: the agent's state rules the fault out now: fault.ErrCannotLand.
//   - no answer, or an answer that is not the agent's (Foreign):
//     ErrOutOfReach.
//
// A Client is a value; it is safe for concurrent use when its HTTP client
// is.
type Client struct {
	// HTTP sends the requests; nil is http.DefaultClient. Its Timeout
	// bounds each request.
	HTTP *http.Client
	// URL is the base of the agent's control port ("http://127.0.0.1:41234"),
	// or of a proxy to it (a Kubernetes pod proxy).
	URL string
	// Agent names the agent in errors.
	Agent string
	// Foreign, when not nil, tells an answer that is not the agent's own
	// (a proxy that could not reach it) and returns why.
	Foreign func(status int, body []byte) (why string, ok bool)
}

// Land posts f (POST /faults) and returns the faults active after it.
func (c Client) Land(ctx context.Context, f Fault) (FaultState, error) {
	var st FaultState
	err := c.call(ctx, http.MethodPost, PathFaults, f.Kind, f, &st)
	return st, err
}

// Lift lifts the agent's fault of kind (DELETE /faults/{kind}) and returns
// the faults active after it. Lifting a kind that is not active is not an
// error.
func (c Client) Lift(ctx context.Context, kind string) (FaultState, error) {
	var st FaultState
	err := c.call(ctx, http.MethodDelete, PathFaults+"/"+url.PathEscape(kind), "lifting "+kind, nil, &st)
	return st, err
}

// State reads the agent's GET /state (fault.ErrUnsupported when it has
// none).
func (c Client) State(ctx context.Context) (State, error) {
	var st State
	err := c.call(ctx, http.MethodGet, PathState, "", nil, &st)
	return st, err
}

// Health asks the agent's health at path (PathHealth when ""). A 200 is
// healthy whatever the body; a 503 is unhealthy, with the body's reason
// (its status when the body has none); 404 or 501 means the agent has no
// health endpoint (fault.ErrUnsupported); anything else is an error.
func (c Client) Health(ctx context.Context, path string) (Health, error) {
	if path == "" {
		path = PathHealth
	}
	code, data, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return Health{}, err
	}
	switch code {
	case http.StatusOK:
		return Health{Healthy: true}, nil
	case http.StatusServiceUnavailable:
		var h Health
		if json.Unmarshal(data, &h) != nil || h.Reason == "" {
			h = Health{Reason: status(code)}
		}
		h.Healthy = false
		return h, nil
	case http.StatusNotFound, http.StatusNotImplemented:
		return Health{}, fmt.Errorf("agent %s: GET %s %w: the agent answered %s", c.Agent, path, faulterr.Unsupported, status(code))
	}
	return Health{}, fmt.Errorf("agent %s: health answered %s", c.Agent, status(code))
}

// call sends one request of the contract and decodes a 200 answer into
// out; what names the fault for errors ("" for the method and path).
func (c Client) call(ctx context.Context, method, path, what string, body, out any) error {
	if what == "" {
		what = method + " " + path
	}
	code, data, err := c.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	if code == http.StatusOK {
		if out != nil {
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("agent %s: %s: %w", c.Agent, what, err)
			}
		}
		return nil
	}
	msg := status(code)
	var e Error
	if json.Unmarshal(data, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	switch code {
	case http.StatusNotFound, http.StatusNotImplemented, http.StatusMethodNotAllowed:
		return fmt.Errorf("agent %s: %s %w: the agent answered %s", c.Agent, what, faulterr.Unsupported, msg)
	case http.StatusConflict:
		return fmt.Errorf("agent %s: %s: %w: %s", c.Agent, what, faulterr.CannotLand, msg)
	}
	return fmt.Errorf("agent %s: %s: %s", c.Agent, what, msg)
}

// do sends one request and returns the agent's answer; a transport error,
// or an answer that is not the agent's, is ErrOutOfReach.
func (c Client) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	unreached := func(why string, foreign bool) error {
		return &ReachError{Agent: c.Agent, Request: method + " " + path, Reason: why, Foreign: foreign}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, unreached(transportReason(err, hc), false)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, nil, unreached(err.Error(), false)
	}
	if c.Foreign != nil {
		if why, ok := c.Foreign(resp.StatusCode, data); ok {
			return 0, nil, unreached(why, true)
		}
	}
	return resp.StatusCode, data, nil
}

// transportReason shortens a transport error to what happened.
func transportReason(err error, hc *http.Client) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() && hc.Timeout > 0 {
			return "no answer within " + hc.Timeout.String()
		}
		err = ue.Err
	}
	return err.Error()
}

func status(code int) string {
	return strconv.Itoa(code) + " " + http.StatusText(code)
}
