package netfault

import (
	"context"
	"testing"

	"github.com/ares-arena/arena/engine"
	"github.com/ares-arena/arena/fault"
)

func TestHTTPErrorFault(t *testing.T) {
	n := New(nil, WithAgent("api", "service"))
	defer n.Close()
	in := fault.NewInjectorFor(n, fault.WithFault(HTTPErrorFault(n)))
	for _, tc := range []struct {
		meta map[string]any
		want string
	}{
		{map[string]any{"status": 600}, "metadata.status: 600 is out of range (want 400 to 599)"},
		{map[string]any{"status": 502.5}, "metadata.status: want a whole number from 400 to 599"},
		{map[string]any{"route": "q"}, `metadata.route: want a path starting with "/", without spaces, query or fragment`},
		{map[string]any{"route": "/q?x=1"}, `metadata.route: want a path starting with "/", without spaces, query or fragment`},
		{map[string]any{"code": 500}, "metadata.code: unknown key for http_error (want status, route, duration)"},
	} {
		err := in.Validate(fault.Action{Type: ActionHTTPError, TargetID: "api", Metadata: tc.meta})
		if err == nil || err.Error() != tc.want {
			t.Errorf("Validate(%v) = %v, want %q", tc.meta, err, tc.want)
		}
	}
	for _, typ := range []fault.Type{fault.NetworkLatency, fault.NetworkBandwidth, fault.ConnectionReset, ActionHTTPError} {
		if !in.Supports(typ) || !in.CanLift(typ) {
			t.Errorf("%s: Supports %v, CanLift %v, want both", typ, in.Supports(typ), in.CanLift(typ))
		}
	}
	if in.Supports(fault.KillAgent) {
		t.Error("Supports(kill_agent) = true, want false: the network kills nothing")
	}
	svc := engine.NewService(in, nil, nil)
	res := svc.Execute(context.Background(), fault.Action{Type: ActionHTTPError, TargetID: "api", Metadata: map[string]any{"status": 502, "route": "/q"}})
	if !res.Success {
		t.Fatalf("Execute(http_error) = %+v", res)
	}
	if s := n.failedStatus("api", "/q/1"); s != 502 {
		t.Errorf("failedStatus(/q/1) = %d, want 502", s)
	}
}
