package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ares-arena/arena/clock"
	"github.com/ares-arena/arena/fault"
)

// oldRuntime is a runtime written against the capabilities as they were
// before Lift: its methods return only an error.
type oldRuntime struct{ s *stubRuntime }

func (o oldRuntime) ListAgents(ctx context.Context) ([]fault.AgentInfo, error) {
	return o.s.ListAgents(ctx)
}
func (o oldRuntime) StopAgent(ctx context.Context, id string) error { return o.s.StopAgent(ctx, id) }
func (o oldRuntime) PauseAgent(_ context.Context, id string) error {
	return o.s.fault("PauseAgent", id)
}
func (o oldRuntime) ResumeAgent(_ context.Context, id string) error {
	return o.s.fault("ResumeAgent", id)
}
func (o oldRuntime) SlowAgent(_ context.Context, id string, d time.Duration) error {
	return o.s.fault("SlowAgent", id+","+d.String())
}
func (o oldRuntime) InjectLatency(_ context.Context, id string, l fault.Latency) error {
	return o.s.fault("InjectLatency", id+","+l.Latency.String())
}

// oldLifter is an oldRuntime that lifts through the deprecated fault.Lifter.
type oldLifter struct{ oldRuntime }

func (o oldLifter) LiftFault(_ context.Context, kind fault.Type, id string) error {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	o.s.calls = append(o.s.calls, "LiftFault("+string(kind)+","+id+")")
	o.s.forever = false
	return nil
}

var _ fault.Lifter = oldLifter{}

// TestLegacyRuntimeLandsAndLifts: a runtime of the old shape still lands
// what it has, and arena lifts its timed faults through its LiftFault.
func TestLegacyRuntimeLandsAndLifts(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, -1)
	in := fault.NewInjectorFor(oldLifter{oldRuntime{stub}})
	for _, typ := range []fault.Type{fault.KillAgent, fault.PauseAgent, fault.ResumeAgent, fault.SlowAgent, fault.NetworkLatency} {
		if err := in.Unsupported(typ); err != nil {
			t.Errorf("Unsupported(%s) = %v, want nil: the old method lands it", typ, err)
		}
	}
	for _, typ := range []fault.Type{fault.PauseAgent, fault.SlowAgent, fault.NetworkLatency} {
		if !in.CanLift(typ) {
			t.Errorf("CanLift(%s) = false, want true: the runtime has LiftFault", typ)
		}
	}
	if err := in.Unsupported(fault.ToolTimeout); err == nil || !strings.Contains(err.Error(), "it does not implement fault.ToolTimeouter") {
		t.Errorf("Unsupported(tool_timeout) = %v, want the capability named", err)
	}
	svc := NewService(in, nil, nil, WithClock(clk), WithProbe(stub.probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second},
		Step{At: time.Second, Action: fault.Action{Type: fault.SlowAgent, TargetID: "worker-1", Metadata: map[string]any{"duration": "1.5s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; f.Lifted == nil || !f.Recovered {
		t.Errorf("fault = %+v, want lifted and recovered", f)
	}
	if want := "LiftFault(slow_agent,worker-1)"; !slices.Contains(stub.Calls(), want) {
		t.Errorf("calls %v, want %s", stub.Calls(), want)
	}
}

// TestLegacyRuntimeWithoutLifter: without LiftFault a runtime of the old
// shape lands its faults and arena leaves them to the system.
func TestLegacyRuntimeWithoutLifter(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, -1)
	in := fault.NewInjectorFor(oldRuntime{stub})
	if in.CanLift(fault.PauseAgent) {
		t.Error("CanLift(pause_agent) = true, want false: nothing lifts it")
	}
	svc := NewService(in, nil, nil, WithClock(clk), WithProbe(stub.probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 10 * time.Second},
		Step{At: time.Second, Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1", Metadata: map[string]any{"duration": "1.5s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; f.Lifted != nil || f.Recovered {
		t.Errorf("fault = %+v, want neither lifted nor recovered (the runtime cannot lift)", f)
	}
}

// refusing lands only pauses and refuses the rest, with a reason, in one
// place.
type refusing struct{ *stubRuntime }

func (r refusing) Refusals() map[fault.Type]string {
	return map[fault.Type]string{
		fault.NetworkLatency: "no proxy between the agents",
		fault.PauseAgent:     "refused, but implemented all the same",
	}
}

// TestRefusalSaysTheRuntimesReason: a type the runtime refuses is
// ErrUnsupported with its reason; a capability it implements wins over a
// refusal of its type (arenatest.TestRuntime fails a runtime that does
// both).
func TestRefusalSaysTheRuntimesReason(t *testing.T) {
	in := fault.NewInjectorFor(refusing{newStub(clock.Real{}, 0)})
	err := in.Unsupported(fault.NetworkLatency)
	if want := "network_latency is not supported by this runtime: no proxy between the agents"; err == nil || err.Error() != want || !errors.Is(err, fault.ErrUnsupported) {
		t.Errorf("Unsupported(network_latency) = %v, want %q wrapping ErrUnsupported", err, want)
	}
	if err := in.Unsupported(fault.NetworkBandwidth); err == nil || !strings.Contains(err.Error(), "(it does not implement fault.BandwidthLimiter)") {
		t.Errorf("Unsupported(network_bandwidth) = %v, want the capability named", err)
	}
	if err := in.Unsupported(fault.PauseAgent); err != nil {
		t.Errorf("Unsupported(pause_agent) = %v, want nil: the runtime implements Pauser", err)
	}
}

// noLiftRuntime lands pauses and hands back no Lift: a bug of the runtime.
type noLiftRuntime struct{ *stubRuntime }

func (n noLiftRuntime) PauseAgent(ctx context.Context, id string) (fault.Lift, error) {
	_, err := n.stubRuntime.PauseAgent(ctx, id)
	return nil, err
}

// TestMissingLiftIsReported: a liftable fault landed without a Lift is
// still lifted by arena, and the lift fails saying the runtime handed back
// none.
func TestMissingLiftIsReported(t *testing.T) {
	clk := clock.NewVirtual(time.Time{})
	stub := newStub(clk, 0)
	svc := NewService(fault.NewInjectorFor(noLiftRuntime{stub}), nil, nil, WithClock(clk), WithProbe(stub.probe))
	rep, err := RunSchedule(context.Background(), svc, RunOptions{Seed: 1, Duration: 5 * time.Second},
		Step{At: time.Second, Action: fault.Action{Type: fault.PauseAgent, TargetID: "worker-1", Metadata: map[string]any{"duration": "1s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Faults[0]; !strings.Contains(f.LiftError, "the runtime landed it but handed back no Lift") {
		t.Errorf("fault = %+v, want a lift error that says the runtime handed back no Lift", f)
	}
}
