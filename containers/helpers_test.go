package containers_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/ares-arena/arena/agentapi"
	"github.com/ares-arena/arena/containers"
	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
)

// eventually polls cond until it holds, or fails the test after within with
// cond's last word on why not.
func eventually(t *testing.T, within time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s (last: %s)", within, what, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// service wires a runtime into an arena service, as a user would.
func service(rt *containers.Runtime, opts ...engine.Option) *engine.Service {
	opts = append([]engine.Option{engine.WithProbe(rt.Probe), engine.WithChecks(rt.Checks()...)}, opts...)
	return engine.NewService(fault.NewInjector(rt, rt), nil, nil, opts...)
}

func inspect(t *testing.T, rt *containers.Runtime, id string) container.InspectResponse {
	t.Helper()
	a, _ := rt.Agent(id)
	res, err := rt.Docker().ContainerInspect(context.Background(), a.ContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatalf("inspect %s: %v", id, err)
	}
	return res.Container
}

// healthFromOutside asks the agent's /health through its mapped port, as
// any client on the host would, with a timeout of its own.
func healthFromOutside(rt *containers.Runtime, id string, timeout time.Duration) (int, error) {
	a, _ := rt.Agent(id)
	c := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	defer c.CloseIdleConnections()
	resp, err := c.Get(a.Endpoint() + agentapi.PathHealth)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

func state(t *testing.T, rt *containers.Runtime, id string) agentapi.State {
	t.Helper()
	st, err := rt.State(context.Background(), id)
	if err != nil {
		t.Fatalf("state of %s: %v", id, err)
	}
	return st
}

// waitHealthy waits until the whole system probes healthy.
func waitHealthy(t *testing.T, rt *containers.Runtime, within time.Duration) {
	t.Helper()
	eventually(t, within, "the system probes healthy", func() (bool, string) {
		err := rt.Probe(context.Background())
		if err != nil {
			return false, err.Error()
		}
		return true, ""
	})
}

func execute(t *testing.T, svc *engine.Service, a fault.Action) fault.Result {
	t.Helper()
	res := svc.Execute(context.Background(), a)
	if !res.Success {
		t.Fatalf("Execute(%s %s) did not land: %s", a.Type, a.TargetID, res.Error)
	}
	return res
}
