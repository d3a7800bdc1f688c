package netfault

import (
	"context"
	"errors"
	"math"
	"strings"

	"github.com/ares-arena/arena/fault"
)

// ActionHTTPError is the fault type of HTTPErrorFault.
const ActionHTTPError fault.Type = "http_error"

// HTTPErrorFault is the spec of http_error, a fault type of this network:
// the requests to an agent under `route` are answered with `status` by the
// network (see Transport). Register it on the injector with
// fault.WithFault(netfault.HTTPErrorFault(n)); scenarios, survival, HTTP
// and the schema then know it.
func HTTPErrorFault(n *Network) fault.Spec {
	return fault.Spec{
		Type: ActionHTTPError, Doc: "Answers an agent's HTTP requests under route with status, without reaching it.",
		Target: fault.TargetAgent,
		Metadata: []fault.MetaKey{
			{Name: "status", Kind: fault.MetaKindNumber, Default: 503, Check: checkStatus, Min: 400.0, Max: 599.0,
				Doc: "The HTTP status to answer: a whole number from 400 to 599 (default 503)."},
			{Name: "route", Kind: fault.MetaKindString, Default: "/", Check: checkRoute,
				Doc: "The path the fault covers, with everything under it (default /: every path)."},
			{Name: fault.MetaDuration, Kind: fault.MetaKindDuration,
				Doc: "The fault's lifetime: the engine lifts it after this."},
		},
		Lifts: true,
		Inject: func(ctx context.Context, a fault.Action, p fault.Params) error {
			return n.FailRoute(ctx, a.TargetID, p.Values["route"].(string), int(p.Values["status"].(float64)))
		},
		Lift: func(ctx context.Context, a fault.Action) error {
			return n.liftRoutes(ctx, a.TargetID)
		},
		Category: fault.CategoryRuntime, Fix: "target an agent added to the netfault.Network whose requests go through its Transport",
		Priority: 4, Suggestion: "retry idempotent requests on 5xx with backoff, and open a circuit breaker to a fallback",
	}
}

func checkStatus(v any) error {
	f := v.(float64)
	if f != math.Trunc(f) || f < 400 || f > 599 {
		return errors.New("want a whole number from 400 to 599")
	}
	return nil
}

func checkRoute(v any) error {
	s := v.(string)
	if !strings.HasPrefix(s, "/") || strings.ContainsAny(s, " \t\r\n?#") {
		return errors.New(`want a path starting with "/", without spaces, query or fragment`)
	}
	return nil
}
