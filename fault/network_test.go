package fault

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// netRecorder has only the network capabilities and records their calls.
type netRecorder struct{ calls []string }

func (r *netRecorder) ListAgents(context.Context) ([]AgentInfo, error) {
	return []AgentInfo{{ID: "w", Type: TypeWorker, Status: StatusRunning}}, nil
}

func (r *netRecorder) InjectLatency(_ context.Context, id string, l Latency) (Lift, error) {
	return r.record(fmt.Sprintf("latency(%s, %+v)", id, l))
}

func (r *netRecorder) LimitBandwidth(_ context.Context, id string, rate int64) (Lift, error) {
	return r.record(fmt.Sprintf("bandwidth(%s, %d)", id, rate))
}

func (r *netRecorder) ResetConnections(_ context.Context, id string, after time.Duration) (Lift, error) {
	return r.record(fmt.Sprintf("reset(%s, %s)", id, after))
}

// record records a landing, and hands back a lift that records its undo.
func (r *netRecorder) record(call string) (Lift, error) {
	r.calls = append(r.calls, call)
	return func(context.Context) error {
		r.calls = append(r.calls, "lift "+call)
		return nil
	}, nil
}

// TestNetworkFaultsLand: the metadata reaches the capability decoded, with
// the documented defaults; a runtime with only these capabilities supports
// exactly the three network types.
func TestNetworkFaultsLand(t *testing.T) {
	rt := &netRecorder{}
	in := NewInjectorFor(rt)
	for _, a := range []Action{
		{Type: NetworkLatency, TargetID: "w"},
		{Type: NetworkLatency, TargetID: "w", Metadata: map[string]any{"latency": "1s", "jitter": 0.25, "direction": "inbound", "peer": "leader-0"}},
		{Type: NetworkBandwidth, TargetID: "w"},
		{Type: NetworkBandwidth, TargetID: "w", Metadata: map[string]any{"rate": 1e6}},
		{Type: ConnectionReset, TargetID: "w"},
		{Type: ConnectionReset, TargetID: "w", Metadata: map[string]any{"after": "150ms"}},
	} {
		p, err := in.faults.Params(a)
		if err != nil {
			t.Fatalf("params(%+v) = %v", a, err)
		}
		lift, err := in.Inject(context.Background(), a, p)
		if err != nil || lift == nil {
			t.Fatalf("Inject(%+v) = %p, %v; want a lift", a, lift, err)
		}
		if a.Metadata == nil {
			if err := lift(context.Background()); err != nil {
				t.Fatalf("lift of %+v = %v", a, err)
			}
		}
	}
	want := []string{
		"latency(w, {Latency:200ms Jitter:0s Direction:both Peer:})",
		"lift latency(w, {Latency:200ms Jitter:0s Direction:both Peer:})",
		"latency(w, {Latency:1s Jitter:250ms Direction:inbound Peer:leader-0})",
		"bandwidth(w, 100000)",
		"lift bandwidth(w, 100000)",
		"bandwidth(w, 1000000)",
		"reset(w, 0s)",
		"lift reset(w, 0s)",
		"reset(w, 150ms)",
	}
	if diff := cmp.Diff(want, rt.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	for _, typ := range Types() {
		net := typ == NetworkLatency || typ == NetworkBandwidth || typ == ConnectionReset
		if got := in.Supports(typ); got != net {
			t.Errorf("Supports(%s) = %v, want %v", typ, got, net)
		}
	}
}
